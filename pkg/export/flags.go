package export

import (
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// CheckFlags refuses, before any request, the flags that mean
// nothing for format: --tlp marks a STIX bundle or a MISP event, and
// --to-ids flags a MISP event's attributes.
func CheckFlags(f format.Name, tlp string, toIDS bool) error {
	if toIDS && f != format.MISP {
		return failure.New(failure.Usage, "--to-ids flags the attributes of a MISP event: use it with -o misp")
	}
	if tlp == "" {
		return nil
	}
	if f != format.STIX && f != format.MISP {
		return failure.New(failure.Usage, "--tlp marks a STIX bundle or a MISP event: use it with -o stix or -o misp")
	}
	_, err := ParseTLP(tlp)
	return err
}
