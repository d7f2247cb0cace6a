package export

import (
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// CheckFlags refuses, before any request, the flags that mean nothing for
// format: those its printer does not read (--tlp marks a STIX bundle or a
// MISP event, --to-ids flags a MISP event's attributes).
func CheckFlags(f format.Name, tlp string, toIDS bool) error {
	if toIDS && !reads(f, ReadsToIDS) {
		return failure.New(failure.Usage, "--to-ids flags the attributes of a MISP event: use it with %s", reading(ReadsToIDS))
	}
	if tlp == "" {
		return nil
	}
	if !reads(f, ReadsTLP) {
		return failure.New(failure.Usage, "--tlp marks a STIX bundle or a MISP event: use it with %s", reading(ReadsTLP))
	}
	_, err := ParseTLP(tlp)
	return err
}
