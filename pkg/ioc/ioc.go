// Package ioc turns indicators of compromise as analysts paste them (often
// defanged: hxxps://evil[.]example[.]com) into the value a threat-intelligence
// service expects, tells their type, and extracts them from free text.
//
// Everything here is a pure function of its input: no network, no files.
// The exact rules are in RULES.md beside this file and on Normalize.
package ioc

import (
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
)

// Type is the kind of an indicator, as the service names it.
type Type string

const (
	MD5    Type = "md5"
	SHA1   Type = "sha1"
	SHA256 Type = "sha256"
	SHA512 Type = "sha512"
	IPv4   Type = "ipv4"
	IPv6   Type = "ipv6"
	Domain Type = "domain"
	URL    Type = "url"
	CVE    Type = "cve"
	Email  Type = "email"
	// CIDR is an address block (203.0.113.0/24, 2001:db8::/32): a range,
	// not a value a service can match exactly.
	CIDR    Type = "cidr"
	Unknown Type = "unknown"
)

// AllTypes lists every type but Unknown, in the order above (for --types
// completion and validation).
var AllTypes = []Type{MD5, SHA1, SHA256, SHA512, IPv4, IPv6, Domain, URL, CVE, Email, CIDR}

// typeAliases are the group names ParseTypes accepts besides the types
// themselves, so that an analyst need not spell out every hash.
var typeAliases = map[string][]Type{
	"hash":   {MD5, SHA1, SHA256, SHA512},
	"hashes": {MD5, SHA1, SHA256, SHA512},
	"ip":     {IPv4, IPv6},
	"all":    AllTypes,
}

// ParseTypes parses a comma-separated list like "ipv4,domain,sha256" for
// `extract --types`. Names are case-insensitive and may be padded with
// spaces; "hash" stands for the four hash types, "ip" for ipv4 and ipv6,
// "all" for every type. The result keeps the order given, without
// duplicates. An unknown name, or a list naming nothing, is a usage error
// that lists the valid names.
func ParseTypes(s string) ([]Type, error) {
	var out []Type
	seen := make(map[Type]bool, len(AllTypes))
	add := func(t Type) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		if group, ok := typeAliases[name]; ok {
			for _, t := range group {
				add(t)
			}
			continue
		}
		t, ok := typeByName(name)
		if !ok {
			return nil, failure.New(failure.Usage, "unknown indicator type %q; valid types: %s", name, validTypeNames())
		}
		add(t)
	}
	if len(out) == 0 {
		return nil, failure.New(failure.Usage, "no indicator type given; valid types: %s", validTypeNames())
	}
	return out, nil
}

func typeByName(name string) (Type, bool) {
	for _, t := range AllTypes {
		if string(t) == name {
			return t, true
		}
	}
	return "", false
}

func validTypeNames() string {
	names := make([]string, 0, len(AllTypes)+3)
	for _, t := range AllTypes {
		names = append(names, string(t))
	}
	names = append(names, "hash", "ip", "all")
	return strings.Join(names, ", ")
}
