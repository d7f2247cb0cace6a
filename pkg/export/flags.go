package export

import (
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// CheckFlags refuses, before any request, the flags that mean nothing for
// format: those its printer does not read (--tlp marks a STIX bundle or a
// MISP event, --to-ids flags a MISP event's attributes). The message names
// the formats that read the flag among those command writes: watch writes
// no STIX bundle, so --tlp there is for -o misp only.
func CheckFlags(command string, f format.Name, tlp string, toIDS bool) error {
	if toIDS && !reads(f, ReadsToIDS) {
		return failure.New(failure.Usage, "--to-ids flags the attributes of a MISP event: use it with %s", reading(command, ReadsToIDS))
	}
	if tlp == "" {
		return nil
	}
	if !reads(f, ReadsTLP) {
		return failure.New(failure.Usage, "--tlp marks a STIX bundle or a MISP event: use it with %s", reading(command, ReadsTLP))
	}
	_, err := ParseTLP(tlp)
	return err
}
