package export

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/uuid"
)

// scoNamespace is the UUIDv5 namespace STIX 2.1 (section 2.9) fixes for
// the deterministic ids of cyber-observable objects, so that every
// producer names the same observable with the same id.
var scoNamespace = [16]byte{0x00, 0xab, 0xed, 0xb4, 0xaa, 0x42, 0x46, 0x6c, 0x9c, 0x01, 0xfe, 0xd2, 0x33, 0x15, 0xa9, 0xb7}

// scoID is the deterministic id of an observable whose only
// ID-contributing property is the one given: {"value": v} for addresses,
// domains, URLs and e-mail addresses, {"hashes": {"SHA-256": v}} for a
// file known by one hash. The name hashed is the RFC 8785 (JCS) form of
// that object, which for one key is the compact JSON below.
func scoID(typ, key string, value string, hashAlgo string) string {
	var name string
	if hashAlgo != "" {
		name = `{"` + key + `":{` + jcsString(hashAlgo) + `:` + jcsString(value) + `}}`
	} else {
		name = `{"` + key + `":` + jcsString(value) + `}`
	}
	return typ + "--" + uuid.V5(scoNamespace, name)
}

// sdoNamespace is the UUIDv5 namespace of the objects tilookup makes
// itself (a random UUID fixed once): indicators, vulnerabilities,
// relationships, the note of an interrupted run.
var sdoNamespace = [16]byte{0x9a, 0x2f, 0x23, 0xf3, 0xe7, 0x23, 0x4c, 0xe3, 0xbc, 0x74, 0x37, 0x63, 0x46, 0xee, 0xc0, 0x08}

// sdoID is the id of an object tilookup makes, UUIDv5 of its type and of
// what identifies it (an indicator's pattern type and pattern, a
// vulnerability's name, a relationship's type and ends), so that every run
// names the same object with the same id: a TAXII collection that has it
// gets at most a new version of it (servers keep one per id and
// modified), never a second object. The name hashed is the JSON array of
// the parts, which no two lists of parts share.
func sdoID(typ string, parts ...string) string {
	name := "[" + jcsString(typ)
	for _, p := range parts {
		name += "," + jcsString(p)
	}
	return typ + "--" + uuid.V5(sdoNamespace, name+"]")
}

// jcsString is a JSON string as RFC 8785 serialises it (ECMAScript's
// JSON.stringify): only '"', '\\' and the C0 controls are escaped, with
// the short forms where they exist; everything else, '<', '&', U+2028 and
// non-ASCII included, is written as UTF-8. encoding/json escapes more, so
// it would give other ids than every other STIX producer.
func jcsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r) // invalid UTF-8 becomes U+FFFD, as JSON would
		}
	}
	b.WriteByte('"')
	return b.String()
}
