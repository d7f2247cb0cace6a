// Package triage holds what `tilookup triage` needs besides the lookup
// pipeline: the rules that skip noise before any quota is spent (reserved
// addresses, an allow-list, MISP warning lists) and the reading of HTML
// reports as text.
package triage

import (
	"net/netip"
	"net/url"
	"strings"
	"sync"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// Skipper decides which indicators are not worth a lookup. The zero value
// skips nothing but address blocks, which are never sent; a nil *Skipper
// too.
type Skipper struct {
	// Noise skips private, loopback, link-local, CGNAT, multicast,
	// reserved and unspecified addresses (the documentation ranges are
	// real lookups: the sandbox and many write-ups use them), and the
	// special-use and private-use names (noiseNames), with the e-mail
	// addresses and URLs at them.
	Noise bool
	Allow *Allowlist
	Warn  *Warninglists
}

// Verdict is what the skip rules make of one indicator.
type Verdict struct {
	// Skip says why the value is not looked up, "" when it is.
	Skip string
	// Warninglists names the CIDR warning lists (hosting, cloud, VPN
	// ranges) whose ranges hold the value or its host, in load order,
	// when it is looked up: attackers rent exactly such addresses, so a
	// range marks a value and never skips it.
	Warninglists []string
}

// Reason says why value (of type t, as extract typed it) is skipped, or ""
// when it should be looked up: Judge's Skip.
func (s *Skipper) Reason(value string, t ioc.Type) string { return s.Judge(value, t).Skip }

// Judge is the one decision on value (of type t, as extract typed it)
// that triage, pivot, enrich and the MCP server share. A URL or an e-mail
// address is judged by its host as well as by its whole value.
func (s *Skipper) Judge(value string, t ioc.Type) Verdict {
	if ioc.Strategy(t) == "none" && known(t) {
		// A type the service has no search for: an address block.
		// Neither the block nor its network address is a value a
		// service matches exactly; sending the address would answer a
		// question the report did not ask.
		return Verdict{Skip: CIDRReason}
	}
	if s == nil {
		return Verdict{}
	}
	bare := t != ioc.URL || bareURL(value)
	var marks []int
	for i, c := range candidates(value, t) {
		if s.Noise {
			if r := c.noise(i > 0); r != "" {
				return Verdict{Skip: r}
			}
		}
		marks = s.Warn.ranges(c, marks)
		if i > 0 && !bare && c.typ == ioc.Domain {
			// A listed domain covers its bare URLs, not a URL with a
			// path on it: a payload on a file-hosting site is still
			// worth a lookup (the host itself is judged on its own).
			// A listed address block still covers every URL on it.
			continue
		}
		if r := s.Allow.match(c); r != "" {
			return Verdict{Skip: r}
		}
		if r := s.Warn.match(c); r != "" {
			return Verdict{Skip: r}
		}
	}
	return Verdict{Warninglists: s.Warn.names(marks)}
}

// known tells whether t is a type of the table (Strategy says "none" for
// a name that is not one too). Judge asks it only of a value that has no
// search; Info, which copies the whole row, costs too much to ask of each.
func known(t ioc.Type) bool {
	_, ok := ioc.Info(t)
	return ok
}

// CIDRReason is why an address block is skipped, even with --no-skip.
const CIDRReason = "address block (a range, not a value to look up)"

// candidate is one form of an indicator that a rule may match: the value
// itself, or the host of a URL or an e-mail address.
type candidate struct {
	value string // lower case
	typ   ioc.Type
	addr  netip.Addr // set when value is an address
}

func candidates(value string, t ioc.Type) []candidate {
	out := []candidate{newCandidate(value, t)}
	if host := hostOf(value, t); host != "" {
		out = append(out, newCandidate(host, ioc.Detect(host)))
	}
	return out
}

func newCandidate(v string, t ioc.Type) candidate {
	c := candidate{value: strings.ToLower(v), typ: t}
	if info, _ := ioc.Info(t); info.Family == "address" {
		if a, err := netip.ParseAddr(strings.Trim(v, "[]")); err == nil {
			c.addr = a.Unmap()
		}
	}
	return c
}

// noise is why the candidate is noise, or "": an address by its range, a
// name (a domain, or the host of a URL or an e-mail address, whatever
// Detect made of it) by its suffix.
func (c candidate) noise(host bool) string {
	switch {
	case c.addr.IsValid():
		return addrNoise(c.addr)
	case c.typ == ioc.Domain || host:
		return nameNoise(c.value)
	}
	return ""
}

// bareURL reports whether a URL is its host and nothing more: no path but
// "/", no query, no fragment.
func bareURL(v string) bool {
	u, err := parseURL(v)
	if err != nil {
		return false
	}
	return (u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == "" && !u.ForceQuery && u.Opaque == ""
}

// parseURL parses a URL as extract found it, with or without a scheme
// (example.com/x has none).
func parseURL(v string) (*url.URL, error) {
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	return url.Parse(v)
}

// hostOf is the host of a URL or the domain of an e-mail address.
func hostOf(v string, t ioc.Type) string {
	switch t {
	case ioc.URL:
		u, err := parseURL(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(u.Hostname(), ".")
	case ioc.Email:
		if at := strings.LastIndexByte(v, '@'); at >= 0 {
			return strings.Trim(v[at+1:], "[]")
		}
	}
	return ""
}

// noiseRange is an address block that no threat-intelligence service has
// anything to say about.
type noiseRange struct {
	prefix netip.Prefix
	reason string
}

// noiseRanges are the blocks that netip.Addr has no method for; built on
// first use so that start-up pays nothing.
var noiseRanges = sync.OnceValue(func() []noiseRange {
	blocks := []struct{ cidr, reason string }{
		{"100.64.0.0/10", "CGNAT address (shared address space)"},
		{"0.0.0.0/8", "reserved address (this network)"},
		{"192.0.0.0/24", "reserved address (IETF protocol assignments)"},
		{"198.18.0.0/15", "reserved address (benchmarking)"},
		{"240.0.0.0/4", "reserved address"},
		{"100::/64", "reserved address (discard)"},
		{"fec0::/10", "reserved address (site-local)"},
	}
	out := make([]noiseRange, len(blocks))
	for i, b := range blocks {
		out[i] = noiseRange{netip.MustParsePrefix(b.cidr), b.reason}
	}
	return out
})

// addrNoise is why an address is noise, or "".
func addrNoise(a netip.Addr) string {
	switch {
	case a.IsUnspecified():
		return "unspecified address"
	case a.IsLoopback():
		return "loopback address"
	case a.IsPrivate():
		return "private address"
	case a.IsLinkLocalUnicast():
		return "link-local address"
	case a.IsMulticast():
		return "multicast address"
	}
	for _, r := range noiseRanges() {
		if r.prefix.Contains(a) {
			return r.reason
		}
	}
	return ""
}

// noiseNames are the names that never resolve on the Internet: a lookup
// of one would tell a third party the layout of the network it came from,
// and no service knows anything about it. Names under .example, .test and
// .invalid are documentation names, not internal ones: they are looked up
// (the sandbox's demo data uses them).
var noiseNames = [...]struct{ suffix, reason string }{
	{"local", "special-use name (.local, mDNS, RFC 6762)"},
	{"localhost", "special-use name (.localhost, RFC 6761)"},
	{"home.arpa", "special-use name (home.arpa, RFC 8375)"},
	{"alt", "special-use name (.alt, RFC 9476)"},
	{"internal", "private-use name (.internal)"},
	{"lan", "private-use name (.lan, never delegated)"},
	{"corp", "private-use name (.corp, never delegated)"},
	{"home", "private-use name (.home, never delegated)"},
	{"mail", "private-use name (.mail, never delegated)"},
}

// nameNoise is why a host name (lower case) is noise, or "".
func nameNoise(host string) string {
	reason := ""
	domainSuffixes(strings.TrimSuffix(host, "."), func(suffix string) bool {
		for _, n := range noiseNames {
			if suffix == n.suffix {
				reason = n.reason
				return true
			}
		}
		return false
	})
	return reason
}

// prefixSet finds the first entry whose prefix holds an address, with one
// map lookup per prefix length in use rather than a scan of every entry
// (cloud ranges in warning lists run to thousands).
type prefixSet struct {
	byLen map[int]map[netip.Prefix]int
	lens  []int // in the order they first appeared
}

// add stores entry for pfx and returns it, or the entry pfx already has.
func (p *prefixSet) add(pfx netip.Prefix, entry int) int {
	pfx = pfx.Masked()
	if p.byLen == nil {
		p.byLen = map[int]map[netip.Prefix]int{}
	}
	m := p.byLen[pfx.Bits()]
	if m == nil {
		m = map[netip.Prefix]int{}
		p.byLen[pfx.Bits()] = m
		p.lens = append(p.lens, pfx.Bits())
	}
	if e, ok := m[pfx]; ok {
		return e
	}
	m[pfx] = entry
	return entry
}

// find returns the entries whose prefix holds a, in no particular order.
func (p *prefixSet) find(a netip.Addr, fn func(entry int) bool) {
	for _, bits := range p.lens {
		pfx, err := a.Prefix(bits)
		if err != nil {
			continue // an IPv4 length over 32, or the other family
		}
		if e, ok := p.byLen[bits][pfx]; ok && pfx.Addr().Is4() == a.Is4() && fn(e) {
			return
		}
	}
}

// parsePrefix reads "192.0.2.0/24" or a bare address as a prefix.
func parsePrefix(s string) (netip.Prefix, bool) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, false
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		return p, p.IsValid()
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, false
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), true
}

// domainSuffixes walks a host name and each parent domain: a.b.example.com,
// b.example.com, example.com, com.
func domainSuffixes(host string, fn func(string) bool) {
	for {
		if fn(host) {
			return
		}
		i := strings.IndexByte(host, '.')
		if i < 0 {
			return
		}
		host = host[i+1:]
	}
}
