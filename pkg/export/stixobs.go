package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/uuid"
)

// observable is how one tilookup type becomes a STIX observable: its STIX
// type, and the hash algorithm when it is a file known by a hash (the
// mapping is ioc's type table).
type observable struct {
	stixType string
	hashAlgo string // "MD5", "SHA-1", …; empty for a value
	// number reads the integer that identifies an SCO such as an
	// autonomous-system; nil for an SCO that holds the value as text.
	number func(string) (uint64, bool)
}

// observableOf is the SCO of type typ; false for a type that has none (a
// CVE is a vulnerability object, see bundler.add; unknown has nothing).
func observableOf(typ string) (observable, bool) {
	info, ok := ioc.Info(ioc.Type(typ))
	if !ok || !info.STIX.SCO {
		return observable{}, false
	}
	return observable{stixType: info.STIX.Type, hashAlgo: info.STIX.HashAlgo, number: info.STIX.Number}, true
}

// canonical is the value as the STIX object holds it. Values arrive
// normalised (hashes and hosts lower-case, IPv6 in RFC 5952 form); a URL
// must also be an RFC 3986 URL, so one pasted without a scheme gets
// http:// and the characters RFC 3986 never allows (spaces, backslashes,
// non-ASCII bytes…) are percent-encoded.
func (o observable) canonical(v string) string {
	switch {
	case o.hashAlgo != "":
		return strings.ToLower(v)
	case o.stixType == "url":
		return rfc3986(v)
	}
	return v
}

func rfc3986(v string) string {
	if !hasScheme(v) {
		v = "http://" + v
	}
	return encodeNonURI(v)
}

// encodeNonURI percent-encodes the bytes that RFC 3986 allows nowhere in
// a URI; '%' and the delimiters are left alone, so the URL means the same.
func encodeNonURI(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"<>\^`+"`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// hasScheme reports whether v starts with "scheme://".
func hasScheme(v string) bool {
	i := strings.Index(v, "://")
	if i < 1 {
		return false
	}
	for j, c := range v[:i] {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// object is the SCO of a canonical value, with its deterministic id.
func (o observable) object(v string) object {
	obj := object{Type: o.stixType, SpecVersion: "2.1"}
	if o.hashAlgo != "" {
		obj.ID = scoID(o.stixType, "hashes", v, o.hashAlgo)
		obj.Hashes = map[string]string{o.hashAlgo: v}
		return obj
	}
	if n, ok := o.numberOf(v); ok {
		// {"number": n}: a JSON number, which JCS writes as its digits.
		obj.ID = o.stixType + "--" + uuid.V5(scoNamespace, `{"number":`+strconv.FormatUint(n, 10)+`}`)
		obj.Number = &n
		return obj
	}
	obj.ID = scoID(o.stixType, "value", v, "")
	obj.Value = v
	return obj
}

// numberOf is the integer property of an SCO identified by one; false
// for the others.
func (o observable) numberOf(v string) (uint64, bool) {
	if o.number == nil {
		return 0, false
	}
	return o.number(v)
}

// pattern is the STIX pattern that matches the canonical value v:
// [ipv4-addr:value = '198.51.100.7'], [file:hashes.'SHA-256' = '…'].
func (o observable) pattern(v string) string {
	if n, ok := o.numberOf(v); ok {
		return "[" + o.stixType + ":number = " + strconv.FormatUint(n, 10) + "]"
	}
	path := "value"
	if o.hashAlgo != "" {
		path = "hashes." + o.hashAlgo
		if strings.Contains(o.hashAlgo, "-") {
			path = "hashes.'" + o.hashAlgo + "'"
		}
	}
	return "[" + o.stixType + ":" + path + " = " + patternString(v) + "]"
}

// patternString is a STIX pattern string literal: in quotes, with the
// two characters the grammar escapes, \ and ', escaped by a backslash.
func patternString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, `'`, `\'`) + "'"
}

// TLPLevels are the TLP 2.0 levels --tlp accepts, least restricted first.
var TLPLevels = []string{"clear", "green", "amber", "amber+strict", "red"}

// ParseTLP checks a --tlp level (case and a "TLP:" prefix are ignored)
// and returns it lower-case. TLP 1's "white" is refused with a pointer to
// its new name, so that the marking says what the user means.
func ParseTLP(s string) (string, error) {
	level := strings.ToLower(strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "TLP:"))
	for _, l := range TLPLevels {
		if level == l {
			return l, nil
		}
	}
	if level == "white" {
		return "", failure.New(failure.Usage, "TLP 2.0 renamed white to clear: use --tlp clear")
	}
	return "", failure.New(failure.Usage, "invalid TLP level %q: use one of %s", s, strings.Join(TLPLevels, ", "))
}

// tlpMarking is the marking-definition object of a TLP 2.0 level exactly
// as OASIS publishes it (cti-stix-common-objects, extension-definition
// specifications, tlp-2.0): the ids are fixed, so that every platform
// recognises them.
func tlpMarking(level string) (object, error) {
	ids := map[string]string{
		"clear":        "94868c89-83c2-464b-929b-a1a8aa3c8487",
		"green":        "bab4a63c-aed9-4cf5-a766-dfca5abac2bb",
		"amber":        "55d920b0-5e8b-4f79-9ee9-91f868d9b421",
		"amber+strict": "939a9414-2ddd-4d32-a0cd-375ea402b003",
		"red":          "e828b379-4e03-4974-9ac4-e53a884c97c1",
	}
	level, err := ParseTLP(level)
	if err != nil {
		return object{}, err
	}
	return object{
		Type: "marking-definition", SpecVersion: "2.1",
		ID:      "marking-definition--" + ids[level],
		Created: "2022-10-01T00:00:00.000Z",
		Name:    "TLP:" + strings.ToUpper(level),
		Extensions: map[string]any{
			"extension-definition--60a3c5c5-0d10-413e-aab3-9e08dde9e88d": map[string]string{
				"extension_type": "property-extension",
				"tlp_2_0":        level,
			},
		},
	}, nil
}
