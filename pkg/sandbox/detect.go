package sandbox

import (
	"strings"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// typeUnknown is detected_type for a value of no type.
const typeUnknown = string(ioc.Unknown)

// detectType tells what kind of indicator q is, with the CLI's own
// detection (pkg/ioc), so that the sandbox and `tilookup detect` agree. The
// data set's indexed values go through the same function as queries.
func detectType(q string) string {
	v := strings.TrimSpace(q)
	if v == "" || hasControl(v) {
		return typeUnknown
	}
	return string(ioc.Detect(v))
}

// normalize gives the form under which a value of type typ is indexed, so
// that the analyst's spelling (upper-case hash, lower-case cve, a domain with
// a trailing dot, an uncompressed IPv6) does not decide whether it matches.
func normalize(q, typ string) string {
	q = strings.TrimSpace(q)
	if ioc.Type(typ) == ioc.Email {
		// The service's choice, not the CLI's: mailboxes match whatever
		// the case of their local part, as mail systems treat them.
		return strings.ToLower(q)
	}
	return ioc.Normalize(q, ioc.Type(typ))
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

// strategyFor names the search strategy for a detected type; "none" means
// the value is not searchable.
func strategyFor(typ string) string { return ioc.Strategy(ioc.Type(typ)) }
