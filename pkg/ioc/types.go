package ioc

// TypeInfo is what the rest of tilookup knows about one indicator type
// besides detecting it: how the service searches it, and how it maps to
// STIX and MISP. Every mapping of a type to another vocabulary reads this
// table, so that a new type is its constant (ioc.go), its detection and
// its row here, and a renamed one cannot silently fall out of an export.
type TypeInfo struct {
	Type Type
	// Strategy is the search strategy the service reports for the type
	// (the sandbox answers with it).
	Strategy string
	STIX     STIXMapping
	MISP     MISPMapping
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
	{Type: MD5, Strategy: "exact_hash",
		STIX: STIXMapping{Type: "file", SCO: true, HashAlgo: "MD5"},
		MISP: MISPMapping{Type: "md5", Category: "Payload delivery", ToIDs: true, Matches: []string{"md5"}}},
	{Type: SHA1, Strategy: "exact_hash",
		STIX: STIXMapping{Type: "file", SCO: true, HashAlgo: "SHA-1"},
		MISP: MISPMapping{Type: "sha1", Category: "Payload delivery", ToIDs: true, Matches: []string{"sha1"}}},
	{Type: SHA256, Strategy: "exact_hash",
		STIX: STIXMapping{Type: "file", SCO: true, HashAlgo: "SHA-256"},
		MISP: MISPMapping{Type: "sha256", Category: "Payload delivery", ToIDs: true, Matches: []string{"sha256"}}},
	{Type: SHA512, Strategy: "exact_hash",
		STIX: STIXMapping{Type: "file", SCO: true, HashAlgo: "SHA-512"},
		MISP: MISPMapping{Type: "sha512", Category: "Payload delivery", ToIDs: true, Matches: []string{"sha512"}}},
	{Type: IPv4, Strategy: "exact_ip",
		STIX: STIXMapping{Type: "ipv4-addr", SCO: true},
		MISP: MISPMapping{Type: "ip-dst", Category: "Network activity", ToIDs: true, Matches: []string{"ip-src", "ip-dst", "ip"}}},
	{Type: IPv6, Strategy: "exact_ip",
		STIX: STIXMapping{Type: "ipv6-addr", SCO: true},
		MISP: MISPMapping{Type: "ip-dst", Category: "Network activity", ToIDs: true, Matches: []string{"ip-src", "ip-dst", "ip"}}},
	{Type: Domain, Strategy: "exact_domain",
		STIX: STIXMapping{Type: "domain-name", SCO: true},
		MISP: MISPMapping{Type: "domain", Category: "Network activity", ToIDs: true, Matches: []string{"domain", "hostname"}}},
	{Type: URL, Strategy: "exact_url",
		STIX: STIXMapping{Type: "url", SCO: true},
		MISP: MISPMapping{Type: "url", Category: "Network activity", ToIDs: true, Matches: []string{"url", "uri", "link"}}},
	{Type: CVE, Strategy: "exact_cve",
		STIX: STIXMapping{Type: "vulnerability"},
		MISP: MISPMapping{Type: "vulnerability", Category: "External analysis", ToIDs: false, Matches: []string{"vulnerability"}}},
	{Type: Email, Strategy: "exact_email",
		STIX: STIXMapping{Type: "email-addr", SCO: true},
		MISP: MISPMapping{Type: "email-src", Category: "Payload delivery", ToIDs: true, Matches: []string{"email", "email-src", "email-dst", "target-email", "whois-registrant-email"}}},
	// An address block is never searched (triage skips it): no strategy,
	// and no STIX observable of its own (a block may be IPv4 or IPv6, and
	// a report never holds a range as an indicator). MISP's ip-dst takes
	// CIDR notation.
	{Type: CIDR, Strategy: "none",
		STIX: STIXMapping{Type: "ipv4-addr", SCO: false},
		MISP: MISPMapping{Type: "ip-dst", Category: "Network activity", ToIDs: true, Matches: []string{"ip-dst"}}},
}

// Types returns every row, in the order of AllTypes. The caller must not
// modify it.
func Types() []TypeInfo { return typeTable[:] }

// Info returns the row of t; false for Unknown and for a name that is no
// type.
func Info(t Type) (TypeInfo, bool) {
	for _, r := range typeTable {
		if r.Type == t {
			return r, true
		}
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
	if r, ok := Info(t); ok {
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
