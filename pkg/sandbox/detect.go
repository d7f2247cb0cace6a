package sandbox

import (
	"net/netip"
	"strings"
)

// Indicator types, named as the search response's detected_type.
const (
	typeMD5     = "md5"
	typeSHA1    = "sha1"
	typeSHA256  = "sha256"
	typeSHA512  = "sha512"
	typeIPv4    = "ipv4"
	typeIPv6    = "ipv6"
	typeDomain  = "domain"
	typeURL     = "url"
	typeCVE     = "cve"
	typeEmail   = "email"
	typeUnknown = "unknown"
)

// detectType tells what kind of indicator q is. It is deliberately small and
// self-contained: pkg/ioc will replace it, and until then the sandbox must
// not depend on a package still being written. The data set's indexed values
// go through the same function as queries, so both sides always agree.
func detectType(q string) string {
	v := strings.TrimSpace(q)
	if v == "" || hasControl(v) {
		return typeUnknown
	}
	if isHex(v) {
		switch len(v) {
		case 32:
			return typeMD5
		case 40:
			return typeSHA1
		case 64:
			return typeSHA256
		case 128:
			return typeSHA512
		}
	}
	if a, err := netip.ParseAddr(v); err == nil && a.Zone() == "" {
		if a.Is4() {
			return typeIPv4
		}
		return typeIPv6
	}
	switch {
	case isCVE(v):
		return typeCVE
	case isURL(v):
		return typeURL
	case isEmail(v):
		return typeEmail
	case isDomain(v):
		return typeDomain
	}
	return typeUnknown
}

// normalize gives the form under which a value of type typ is indexed, so
// that the analyst's spelling (upper-case hash, lower-case cve, a domain with
// a trailing dot, an uncompressed IPv6) does not decide whether it matches.
func normalize(q, typ string) string {
	v := strings.TrimSpace(q)
	switch typ {
	case typeMD5, typeSHA1, typeSHA256, typeSHA512, typeEmail:
		// Mail providers treat local parts case-insensitively in practice,
		// and feeds disagree on case, so e-mail matches ignore it too.
		return strings.ToLower(v)
	case typeCVE:
		return strings.ToUpper(v)
	case typeIPv4, typeIPv6:
		if a, err := netip.ParseAddr(v); err == nil {
			return a.String()
		}
	case typeDomain:
		return strings.ToLower(strings.TrimSuffix(v, "."))
	case typeURL:
		// Scheme and host are case-insensitive; path, query and fragment
		// are not, so they are kept byte for byte.
		scheme, rest, _ := strings.Cut(v, "://")
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		return strings.ToLower(scheme) + "://" + strings.ToLower(rest[:end]) + rest[end:]
	}
	return v
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isCVE accepts CVE-YYYY-NNNN with four or more digits in the sequence
// number, as MITRE has allowed since 2014.
func isCVE(s string) bool {
	if len(s) < 4 || !strings.EqualFold(s[:4], "CVE-") {
		return false
	}
	year, seq, ok := strings.Cut(s[4:], "-")
	return ok && len(year) == 4 && isDigits(year) && len(seq) >= 4 && isDigits(seq)
}

var urlSchemes = []string{"http", "https", "ftp"}

// isURL wants a scheme we know and a host that is a domain or an IP; the
// rest of the URL may hold anything printable, spaces included, because
// phishing URLs in feeds are often not properly escaped.
func isURL(s string) bool {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return false
	}
	known := false
	for _, k := range urlSchemes {
		known = known || strings.EqualFold(scheme, k)
	}
	if !known {
		return false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:]
	}
	return isHost(authority)
}

// isHost accepts host[:port] where host is a domain, an IPv4 address or a
// bracketed IPv6 address.
func isHost(s string) bool {
	if strings.HasPrefix(s, "[") {
		inner, port, ok := strings.Cut(s[1:], "]")
		if !ok || (port != "" && !(strings.HasPrefix(port, ":") && isDigits(port[1:]))) {
			return false
		}
		a, err := netip.ParseAddr(inner)
		return err == nil && a.Is6()
	}
	if host, port, ok := strings.Cut(s, ":"); ok {
		if !isDigits(port) {
			return false
		}
		s = host
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Is4()
	}
	return isDomain(s)
}

func isEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	if !ok || strings.Contains(domain, "@") || local == "" || len(local) > 64 {
		return false
	}
	if strings.HasPrefix(local, ".") || strings.HasSuffix(local, ".") || strings.Contains(local, "..") {
		return false
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		if !(isAlnum(c) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", c) >= 0) {
			return false
		}
	}
	return isDomain(domain)
}

// isDomain accepts a name of two or more labels whose last label looks like
// a top-level domain (letters, or an xn-- IDN label). It does not consult a
// list of delegated TLDs: the sandbox's data lives under reserved names such
// as .test and .example that no such list holds.
func isDomain(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	labels := strings.Split(s, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if !isLabel(l) {
			return false
		}
	}
	tld := strings.ToLower(labels[len(labels)-1])
	if strings.HasPrefix(tld, "xn--") {
		return len(tld) > 4
	}
	for i := 0; i < len(tld); i++ {
		if tld[i] < 'a' || tld[i] > 'z' {
			return false
		}
	}
	return len(tld) >= 2
}

func isLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !(isAlnum(l[i]) || l[i] == '-' || l[i] == '_') {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// strategyFor names the search strategy for a detected type; "none" means
// the value is not searchable.
func strategyFor(typ string) string {
	switch typ {
	case typeMD5, typeSHA1, typeSHA256, typeSHA512:
		return "exact_hash"
	case typeIPv4, typeIPv6:
		return "exact_ip"
	case typeDomain:
		return "exact_domain"
	case typeURL:
		return "exact_url"
	case typeCVE:
		return "exact_cve"
	case typeEmail:
		return "exact_email"
	}
	return "none"
}
