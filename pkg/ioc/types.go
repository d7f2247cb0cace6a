package ioc

import (
	"math/bits"
	"slices"
	"sync"
)

// TypeInfo is one indicator type as a value: how it is told, normalised,
// defanged and found in text, how the service searches it, how it maps to
// STIX and MISP, and how a pivot graph draws it. Every decision that
// depends on the type reads this table, so that a new type is its
// constant, its row and the functions the row names, and a renamed one
// cannot silently fall out of an export.
type TypeInfo struct {
	Type Type
	// Example is a canonical value of the type: tests derive their
	// fixtures from it.
	Example string
	// Strategy is the search strategy the service reports for the type
	// (the sandbox answers with it).
	Strategy string
	STIX     STIXMapping
	MISP     MISPMapping
	Pivot    PivotShape
	// Family groups the types that one column of an export holds
	// together (a file_hash column mixes MD5 and SHA-256): "hash",
	// "address", or the type's own name.
	Family string

	// detectRank orders detection: a value of several shapes is the type
	// of lowest rank that accepts it (see Detect).
	detectRank int
	// is tells whether a trimmed, refanged value is of the type.
	is func(string) bool
	// digest: the type is a hex digest, told by its length alone; Detect
	// asks hashType's one length switch once for all the digest rows, at
	// the rank of the first, instead of each row scanning the value.
	digest bool
	// claims, when set, is a piece of text that only values of the type
	// hold: Detect tries the type alone on a value that holds it (a
	// "://" is a URL or nothing).
	claims string
	// needs are bytes that every value of the type holds, all of them:
	// Detect does not try the type on a value that lacks one.
	needs string
	// normalize is Normalize for a value of the type: s itself when it
	// is canonical already.
	normalize func(string) string
	// defang is Defang for the type; nil when nothing links the value.
	defang func(string) string
	// normalizeASCII is normalize in place for a value found in free text
	// (a piece of a line, already found to be of the type); it reports
	// false when the value needs the general path. nil: always general.
	normalizeASCII func(k []byte) bool
	// word finds the type in the extractor's words that hold none of
	// . : @ / (hashes, CVE IDs); nil when the punctuation of the type's
	// values tells the extractor where to look.
	word *wordRule
	// anchors are bytes of which every value holds one: the extractor
	// skips text with no anchor of any type. Each must be in nextAnchor's
	// superset (TestAnchors).
	anchors string
}

// wordRule is how the extractor finds a type in a bare word.
type wordRule struct {
	// minLen is the shortest value: a shorter word is not looked at.
	minLen int
	// inRuns: values are found in runs of letters and digits of exactly
	// a value's length inside the word (a digest in 44d8...02f.bin);
	// otherwise the whole word must be one.
	inRuns bool
	match  func([]byte) bool
}

// PivotShape is how a pivot graph draws a node of the type, as its
// legends tell.
type PivotShape struct {
	DOT string // Graphviz node shape
	// MermaidOpen and MermaidClose wrap a quoted label in the node's
	// outline in a Mermaid flowchart.
	MermaidOpen, MermaidClose string
}

// STIXMapping says which STIX 2.1 object stands for a value.
type STIXMapping struct {
	// Type is the object type: a cyber-observable (SCO) such as
	// ipv4-addr, or for a CVE the vulnerability domain object (SDO),
	// which has a name and external references instead of a value.
	Type string
	// SCO is true for a cyber-observable, which patterns can match.
	SCO bool
	// HashAlgo, for a file known by a hash, is the key of the file's
	// hashes property ("MD5", "SHA-256"...); "" when the SCO holds the
	// value in its value property.
	HashAlgo string
	// Number, for an SCO whose identifying property is an integer (an
	// autonomous system's number), reads it from a canonical value; nil
	// when the SCO holds the value as text in its value property.
	Number func(string) (uint64, bool)
}

// MISPMapping is the MISP attribute a value becomes, after MISP's
// describeTypes (sane_defaults).
type MISPMapping struct {
	Type     string // attribute type
	Category string // its default category
	ToIDs    bool   // its default to_ids flag
	// Matches are the attribute types that name values of this type in
	// a MISP warning list's matching_attributes (halves of composite
	// types such as ip-dst|port included).
	Matches []string
}

// typeTable has one row per type of AllTypes, in the same order.
var typeTable = [...]TypeInfo{
	{Type: MD5, Example: "44d88612fea8a8f36de82e1278abb02f", Strategy: "exact_hash",
		STIX:   STIXMapping{Type: "file", SCO: true, HashAlgo: "MD5"},
		MISP:   MISPMapping{Type: "md5", Category: "Payload delivery", ToIDs: true, Matches: []string{"md5"}},
		Pivot:  PivotShape{"box", "[", "]"},
		Family: "hash", detectRank: 0, is: isHash(MD5), digest: true, normalize: toLower, normalizeASCII: lowerASCII,
		word: &wordRule{minLen: 32, inRuns: true, match: isHashBytes(MD5)}, anchors: digits},
	{Type: SHA1, Example: "3395856ce81f2b7382dee72602f798b642f14140", Strategy: "exact_hash",
		STIX:   STIXMapping{Type: "file", SCO: true, HashAlgo: "SHA-1"},
		MISP:   MISPMapping{Type: "sha1", Category: "Payload delivery", ToIDs: true, Matches: []string{"sha1"}},
		Pivot:  PivotShape{"box", "[", "]"},
		Family: "hash", detectRank: 1, is: isHash(SHA1), digest: true, normalize: toLower, normalizeASCII: lowerASCII,
		word: &wordRule{minLen: 40, inRuns: true, match: isHashBytes(SHA1)}, anchors: digits},
	{Type: SHA256, Example: "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f", Strategy: "exact_hash",
		STIX:   STIXMapping{Type: "file", SCO: true, HashAlgo: "SHA-256"},
		MISP:   MISPMapping{Type: "sha256", Category: "Payload delivery", ToIDs: true, Matches: []string{"sha256"}},
		Pivot:  PivotShape{"box", "[", "]"},
		Family: "hash", detectRank: 2, is: isHash(SHA256), digest: true, normalize: toLower, normalizeASCII: lowerASCII,
		word: &wordRule{minLen: 64, inRuns: true, match: isHashBytes(SHA256)}, anchors: digits},
	{Type: SHA512, Example: "cc805d5fab1fd71a4ab352a9c533e65fb2d5b885518f4e565e68847223b8e6b85cb48f3afad842726d99239c9e36505c64b0dc9a061d9e507d833277ada336ab", Strategy: "exact_hash",
		STIX:   STIXMapping{Type: "file", SCO: true, HashAlgo: "SHA-512"},
		MISP:   MISPMapping{Type: "sha512", Category: "Payload delivery", ToIDs: true, Matches: []string{"sha512"}},
		Pivot:  PivotShape{"box", "[", "]"},
		Family: "hash", detectRank: 3, is: isHash(SHA512), digest: true, normalize: toLower, normalizeASCII: lowerASCII,
		word: &wordRule{minLen: 128, inRuns: true, match: isHashBytes(SHA512)}, anchors: digits},
	{Type: IPv4, Example: "198.51.100.7", Strategy: "exact_ip",
		STIX:   STIXMapping{Type: "ipv4-addr", SCO: true},
		MISP:   MISPMapping{Type: "ip-dst", Category: "Network activity", ToIDs: true, Matches: []string{"ip-src", "ip-dst", "ip"}},
		Pivot:  PivotShape{"ellipse", "(", ")"},
		Family: "address", detectRank: 5, is: isIPv4[string], needs: ".", normalize: same, defang: defangDots,
		normalizeASCII: func([]byte) bool { return true }, anchors: "."},
	{Type: IPv6, Example: "2001:db8::1", Strategy: "exact_ip",
		STIX:   STIXMapping{Type: "ipv6-addr", SCO: true},
		MISP:   MISPMapping{Type: "ip-dst", Category: "Network activity", ToIDs: true, Matches: []string{"ip-src", "ip-dst", "ip"}},
		Pivot:  PivotShape{"ellipse", "(", ")"},
		Family: "address", detectRank: 7, is: isIPv6[string], needs: ":", normalize: normalizeIPv6, defang: defangIPv6, anchors: ":"},
	{Type: Domain, Example: "evil.example.com", Strategy: "exact_domain",
		STIX:   STIXMapping{Type: "domain-name", SCO: true},
		MISP:   MISPMapping{Type: "domain", Category: "Network activity", ToIDs: true, Matches: []string{"domain", "hostname"}},
		Pivot:  PivotShape{"hexagon", "{{", "}}"},
		Family: "domain", detectRank: 8, is: isDomainValue, needs: ".", normalize: normalizeHost, defang: defangDots,
		normalizeASCII: lowerASCII, anchors: "."},
	{Type: URL, Example: "https://evil.example.com/gate.php?id=1", Strategy: "exact_url",
		STIX:   STIXMapping{Type: "url", SCO: true},
		MISP:   MISPMapping{Type: "url", Category: "Network activity", ToIDs: true, Matches: []string{"url", "uri", "link"}},
		Pivot:  PivotShape{"parallelogram", "[/", "/]"},
		Family: "url", detectRank: 9, is: isURLValue, claims: "://", normalize: normalizeURLValue, defang: defangURLValue, anchors: ":/"},
	{Type: CVE, Example: "CVE-2021-44228", Strategy: "exact_cve",
		STIX:   STIXMapping{Type: "vulnerability"},
		MISP:   MISPMapping{Type: "vulnerability", Category: "External analysis", ToIDs: false, Matches: []string{"vulnerability"}},
		Pivot:  PivotShape{"octagon", "[[", "]]"},
		Family: "cve", detectRank: 4, is: isCVE[string], needs: "-", normalize: normalizeCVE, normalizeASCII: upperCVE,
		word: &wordRule{minLen: 13, match: isCVE[[]byte]}, anchors: "-" + digits},
	{Type: Email, Example: "billing@mail-example.org", Strategy: "exact_email",
		STIX:   STIXMapping{Type: "email-addr", SCO: true},
		MISP:   MISPMapping{Type: "email-src", Category: "Payload delivery", ToIDs: true, Matches: []string{"email", "email-src", "email-dst", "target-email", "whois-registrant-email"}},
		Pivot:  PivotShape{"house", "([", "])"},
		Family: "email", detectRank: 10, is: isEmail[string], needs: "@.", normalize: normalizeEmail, defang: defangEmail,
		normalizeASCII: lowerEmailDomain, anchors: "@"},
	// An address block is never searched (triage skips it): no strategy,
	// and no STIX observable of its own (a block may be IPv4 or IPv6, and
	// a report never holds a range as an indicator). MISP's ip-dst takes
	// CIDR notation.
	{Type: CIDR, Example: "203.0.113.0/24", Strategy: "none",
		STIX:   STIXMapping{Type: "ipv4-addr", SCO: false},
		MISP:   MISPMapping{Type: "ip-dst", Category: "Network activity", ToIDs: true, Matches: []string{"ip-dst"}},
		Pivot:  PivotShape{"oval", "[", "]"},
		Family: "cidr", detectRank: 6, is: isCIDR[string], needs: "/", normalize: normalizeCIDR, defang: defangDots, anchors: "/"},
}

const digits = "0123456789"

// row returns the row of t, nil for Unknown and for a name that is no
// type.
func row(t Type) *TypeInfo {
	for i := range typeTable {
		if typeTable[i].Type == t {
			return &typeTable[i]
		}
	}
	return nil
}

// byDetectRank is the table in the order Detect tries the types, sorted
// on first use.
var byDetectRank = sync.OnceValue(func() []*TypeInfo {
	rows := make([]*TypeInfo, len(typeTable))
	for i := range typeTable {
		rows[i] = &typeTable[i]
	}
	slices.SortFunc(rows, func(a, b *TypeInfo) int { return a.detectRank - b.detectRank })
	return rows
})

// detection is the table as Detect runs it, built on first use.
type detection struct {
	// claiming are the rows with claims.
	claiming []*TypeInfo
	// steps are the rows in detectRank order, the digest rows replaced by
	// one nil step at the rank of the first: hashType tells them all.
	steps []*TypeInfo
	// needMask[i] is the bits of the bytes steps[i] needs; bit[c] is the
	// bit of byte c, 0 for a byte no row needs.
	needMask []uint8
	bit      [256]uint8
}

// holds is the bits of the needed bytes that s holds.
func (d *detection) holds(s string) uint8 {
	var m uint8
	for i := 0; i < len(s); i++ {
		m |= d.bit[s[i]]
	}
	return m
}

var detector = sync.OnceValue(func() *detection {
	d := &detection{}
	digests := false
	for _, r := range byDetectRank() {
		if r.claims != "" {
			d.claiming = append(d.claiming, r)
		}
		switch {
		case !r.digest:
			var m uint8
			for i := 0; i < len(r.needs); i++ {
				c := r.needs[i]
				if d.bit[c] == 0 {
					d.bit[c] = 1 << bits.OnesCount8(d.holdsAll())
				}
				m |= d.bit[c]
			}
			d.steps = append(d.steps, r)
			d.needMask = append(d.needMask, m)
		case !digests:
			d.steps = append(d.steps, nil)
			d.needMask = append(d.needMask, 0)
			digests = true
		}
	}
	return d
})

// holdsAll is the bits given out so far (at most 8 distinct needed bytes:
// TestDetectShortcuts).
func (d *detection) holdsAll() uint8 {
	var m uint8
	for _, b := range d.bit {
		m |= b
	}
	return m
}

// wordRows are the rows with a word rule, whole-word ones first (a CVE ID
// is looked for before the digests in a word), built on first use.
var wordRows = sync.OnceValue(func() []*TypeInfo {
	var whole, runs []*TypeInfo
	for i := range typeTable {
		switch r := &typeTable[i]; {
		case r.word == nil:
		case r.word.inRuns:
			runs = append(runs, r)
		default:
			whole = append(whole, r)
		}
	}
	return append(whole, runs...)
})

// minWordLen is the shortest bare word the extractor looks at: the
// shortest value of any word rule.
var minWordLen = sync.OnceValue(func() int {
	n := MaxLen
	for _, r := range wordRows() {
		n = min(n, r.word.minLen)
	}
	return n
})

// Types returns every row, in the order of AllTypes. The caller must not
// modify it.
func Types() []TypeInfo { return typeTable[:] }

// Info returns the row of t; false for Unknown and for a name that is no
// type.
func Info(t Type) (TypeInfo, bool) {
	if r := row(t); r != nil {
		return *r, true
	}
	return TypeInfo{}, false
}

// FromMISP returns the types whose values a MISP attribute type names in a
// warning list's matching_attributes (see MISPMapping.Matches); nil when
// none.
func FromMISP(attr string) []Type {
	var out []Type
	for _, r := range typeTable {
		for _, m := range r.MISP.Matches {
			if m == attr {
				out = append(out, r.Type)
				break
			}
		}
	}
	return out
}

// Strategy is the search strategy of type t as the service names it;
// "none" for a value that is not searchable.
func Strategy(t Type) string {
	if r := row(t); r != nil { // not Info: triage asks for each value found
		return r.Strategy
	}
	return "none"
}

// TypeNames lists the type names in table order, for help texts and
// schemas.
func TypeNames() []string {
	names := make([]string, len(typeTable))
	for i, r := range typeTable {
		names[i] = string(r.Type)
	}
	return names
}
