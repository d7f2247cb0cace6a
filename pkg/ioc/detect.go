package ioc

import (
	"bytes"
	"net/netip"
	"strings"
	"unicode/utf8"
)

// Detect tells the type of an indicator that is already trimmed and
// refanged; see RULES.md for what each type accepts. Anything that fits no
// type is Unknown. The types are tried in the order of their detectRank
// (the type table), the first to accept s wins; a value holding a row's
// claims is that row's type or nothing, a row is not tried on a value
// that lacks a byte it needs, and the digests are told by one length
// switch (hashType). Detect does not allocate.
func Detect(s string) Type {
	if s == "" {
		return Unknown
	}
	d := detector()
	for _, r := range d.claiming {
		if strings.Contains(s, r.claims) {
			if r.is(s) {
				return r.Type
			}
			return Unknown
		}
	}
	held := d.holds(s)
	for i, r := range d.steps {
		if held&d.needMask[i] != d.needMask[i] {
			continue
		}
		if r == nil {
			if t := hashType(s); t != Unknown {
				return t
			}
		} else if r.is(s) {
			return r.Type
		}
	}
	return Unknown
}

// isHash and isHashBytes tell a digest of type t (hashType).
func isHash(t Type) func(string) bool { return func(s string) bool { return hashType(s) == t } }

func isHashBytes(t Type) func([]byte) bool { return func(s []byte) bool { return hashType(s) == t } }

func isDomainValue(s string) bool { return isDomain(s, true) }

// isURLValue accepts a URL as an analyst pastes it: with a scheme, spaces
// in its path and query are kept (splitPastedURL). Detect tries it after
// the addresses and domains, which a URL without a scheme must not be
// taken for (203.0.113.0/24 is a block), and before e-mail addresses:
// example.com/a@b.com is a URL whose path holds an '@'.
func isURLValue(s string) bool {
	if strings.Contains(s, "://") {
		_, ok := splitPastedURL(s)
		return ok
	}
	_, ok := splitURL(s)
	return ok
}

// hashType recognises a hex digest by its length alone: 32, 40, 64 or 128
// hex digits, any case. Other lengths (63, 65, ...) are no hash.
func hashType[T string | []byte](s T) Type {
	var t Type
	switch len(s) {
	case 32:
		t = MD5
	case 40:
		t = SHA1
	case 64:
		t = SHA256
	case 128:
		t = SHA512
	default:
		return Unknown
	}
	// Eight bytes at a time: every length above is a multiple of 8.
	for ; len(s) >= 8; s = s[8:] {
		_ = s[7] // one bounds check, not eight
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if !hex8(x) {
			return Unknown
		}
	}
	return t
}

// hex8 tells whether the eight bytes of x are all hex digits, any case.
func hex8(x uint64) bool {
	const ones = 0x0101010101010101
	const high = 0x80 * ones
	if x&high != 0 {
		return false
	}
	// For bytes under 0x80, which carry into no other, the top bit of
	// x+(0x80-lo) is set when a byte is lo or more, and of x+(0x7f-hi)
	// when it is over hi. c|0x20 is a lower-case letter's for a letter.
	digit := (x + (0x80-'0')*ones) &^ (x + (0x7f-'9')*ones)
	y := x | 0x20*ones
	letter := (y + (0x80-'a')*ones) &^ (y + (0x7f-'f')*ones)
	return (digit|letter)&high == high
}

// isCVE accepts CVE-YYYY-NNNN..., any case: a four-digit year and a
// sequence number of 4 to 19 digits, as MITRE assigns them.
func isCVE[T string | []byte](s T) bool {
	if len(s) < 13 || len(s) > 28 || lower(s[0]) != 'c' || lower(s[1]) != 'v' || lower(s[2]) != 'e' || s[3] != '-' || s[8] != '-' {
		return false
	}
	for i := 4; i < 8; i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	for i := 9; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isIPv4 accepts dotted-quad decimal only. A part with a leading zero
// ("010") is refused: inet_aton reads it as octal, other software as
// decimal, so the address it stands for is ambiguous.
func isIPv4[T string | []byte](s T) bool {
	// 1.2.3.4 to 255.255.255.255: the version numbers and dotted words of
	// prose (2.1.0, e.g) are dismissed by their length.
	if len(s) < 7 || len(s) > 15 {
		return false
	}
	// A part's value is checked at its end: three digits at most are
	// under 1000, and the loop has one test fewer a byte.
	parts, v, digits := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if digits == 0 || v > 255 || parts == 3 {
				return false
			}
			parts++
			v, digits = 0, 0
			continue
		}
		d := c - '0'
		if d > 9 || digits == 3 || (digits == 1 && v == 0) {
			return false
		}
		v = v*10 + int(d)
		digits++
	}
	return parts == 3 && digits > 0 && v <= 255
}

// isIPv6 accepts what net/netip parses as IPv6, IPv4-mapped forms and a zone
// included, bare or in brackets ([2001:db8::1]).
func isIPv6[T string | []byte](s T) bool {
	_, ok := parseIPv6(s)
	return ok
}

func parseIPv6[T string | []byte](s T) (netip.Addr, bool) {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	if len(s) < 2 || len(s) > 64 || !colonNoSlash(s) {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(string(s))
	if err != nil || !a.Is6() {
		return netip.Addr{}, false
	}
	return a, true
}

// colonNoSlash is the shape of an IPv6 address netip may parse: a colon
// and no slash. A URL (https://...) is refused here, not by netip, whose
// error allocates.
func colonNoSlash[T string | []byte](s T) bool {
	colon := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			colon = true
		case '/':
			return false
		}
	}
	return colon
}

// isDomain accepts a host name of at least two labels: each 1 to 63 bytes of
// letters, digits, '-' (not first or last) and '_' (found in service names
// and in malware's hosts), Unicode letters allowed (IDN), the last label
// (TLD) not numeric and made of letters (or xn--), at most 253 bytes, and
// one optional trailing dot if trailingDot.
func isDomain[T string | []byte](s T, trailingDot bool) bool {
	if trailingDot && len(s) > 1 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	labels, tld, ok := hostLabels(s)
	return ok && labels >= 2 && validTLD(s[tld:])
}

// hostLabels checks the label syntax of a host name and returns the number
// of labels and where the last one starts.
func hostLabels[T string | []byte](s T) (labels, last int, ok bool) {
	if len(s) == 0 || len(s) > 253 {
		return 0, 0, false
	}
	start := 0
	cls := classTable // in a register: class's address would be loaded again for each byte
	_ = cls[0]        // one nil check, not one a byte
	for i := 0; ; i++ {
		// The ASCII bytes of a label in a loop of their own: one lookup
		// a byte, in a slice indexed from 0 (no bounds check).
		rest := s[i:]
		j := 0
		for j < len(rest) && cls[rest[j]]&cLabel != 0 {
			j++
		}
		i += j
		if i == len(s) || s[i] == '.' {
			n := i - start
			if n == 0 || n > 63 || s[start] == '-' || s[i-1] == '-' {
				return 0, 0, false
			}
			labels++
			last = start
			start = i + 1
			if i == len(s) {
				return labels, last, true
			}
			continue
		}
		if s[i] < utf8.RuneSelf {
			return 0, 0, false
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError || !isLetterRune(r) {
			return 0, 0, false
		}
		i += size - 1
	}
}

func decodeRune[T string | []byte](s T) (rune, int) {
	if len(s) > utf8.UTFMax {
		s = s[:utf8.UTFMax]
	}
	return utf8.DecodeRuneInString(string(s))
}

// validTLD refuses numeric and underscored TLDs and one-letter ones; ASCII
// characters must be letters, unless it is an xn-- A-label.
func validTLD[T string | []byte](t T) bool {
	if len(t) >= 5 && lower(t[0]) == 'x' && lower(t[1]) == 'n' && t[2] == '-' && t[3] == '-' {
		return true
	}
	runes := 0
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c >= utf8.RuneSelf {
			if utf8.RuneStart(c) {
				runes++ // a letter: hostLabels checked
			}
			continue
		}
		if class[c]&cAlpha == 0 {
			return false
		}
		runes++
	}
	// Counted in runes, not bytes: lower-casing may turn a non-ASCII
	// letter into an ASCII one (U+0130 into i), and must not change the type.
	return runes >= 2
}

// isEmail accepts local@domain: a local part of 1 to 64 bytes of the
// characters RFC 5322 allows unquoted (dots not first, last or doubled) and
// a domain as isDomain without a trailing dot.
func isEmail[T string | []byte](s T) bool {
	at, ok := emailLocal(s)
	return ok && isDomain(s[at+1:], false)
}

// emailLocal is isEmail but for its domain: s has one '@', at at, after a
// valid local part. The extractor, which checks the domain against more
// rules (domainOK), asks this, not to check it twice.
func emailLocal[T string | []byte](s T) (at int, ok bool) {
	at = -1
	for i := 0; i < len(s); i++ {
		if s[i] == '@' {
			if at >= 0 {
				return 0, false
			}
			at = i
		}
	}
	return at, at > 0 && validLocal(s[:at])
}

func validLocal[T string | []byte](l T) bool {
	if len(l) == 0 || len(l) > 64 || l[0] == '.' || l[len(l)-1] == '.' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c == '.' && i > 0 && l[i-1] == '.' {
			return false
		}
		if !isLocalByte(c) {
			return false
		}
	}
	return true
}

// isLocalByte tells the bytes of a local part: letters, digits and the
// punctuation of RFC 5322's atext, .!#$%&'*+/=?^_`{|}~- and the dot, as
// bits of two words (a lookup per byte of each e-mail address found, where
// a search of that string was most of what checking one cost).
func isLocalByte(c byte) bool {
	const lo uint64 = 1<<'.' | 1<<'!' | 1<<'#' | 1<<'$' | 1<<'%' | 1<<'&' | 1<<'\'' |
		1<<'*' | 1<<'+' | 1<<'/' | 1<<'=' | 1<<'?' | 1<<'-' // bytes below 64
	const hi uint64 = 1<<('^'-64) | 1<<('_'-64) | 1<<('`'-64) | 1<<('{'-64) |
		1<<('|'-64) | 1<<('}'-64) | 1<<('~'-64) // 64 to 127
	if isAlnum(c) {
		return true
	}
	if c < 64 {
		return lo>>c&1 != 0
	}
	return c < 128 && hi>>(c-64)&1 != 0
}

// urlParts locates the pieces of a URL: s[:scheme] is the scheme (scheme is
// -1 without one), s[host:hostEnd] the host (brackets included for IPv6),
// s[hostEnd:] the port, path, query and fragment.
type urlParts struct {
	scheme, host, hostEnd int
}

// splitURL accepts scheme://[userinfo@]host[:port][/path][?query][#frag],
// and, without a scheme, host[:port] followed by a path or with a port
// (example.com/x, 192.0.2.1:8080). With a scheme the host may be a single
// label (http://intranet/); without one it must be an IPv4 address, a
// bracketed IPv6 address or a domain. A port is 1 to 5 digits up to 65535.
// White space and control characters are refused anywhere.
func splitURL[T string | []byte](s T) (urlParts, bool) {
	return splitURLIn(s, true)
}

// splitURLIn is splitURL; spaces tells whether s may hold white space or
// a control character to refuse: a token of free text holds none (they
// end it), and the extractor does not look for them again.
func splitURLIn[T string | []byte](s T, spaces bool) (urlParts, bool) {
	var p urlParts
	p.scheme = -1
	auth := 0
	if i := schemeEnd(s); i > 0 {
		p.scheme = i
		auth = i + 3
	}
	// The authority's end and its last '@' (userinfo) in one pass.
	end, at := auth, -1
	stops := authorityStop // in a register, as cls in hostLabels
	for end < len(s) {
		// Most bytes of an authority are none of / ? # @: one lookup each.
		for end < len(s) && !stops[s[end]] {
			end++
		}
		if end == len(s) || s[end] != '@' {
			break
		}
		at = end
		end++
	}
	if p.scheme < 0 && (end == len(s) || s[end] != '/') {
		end = len(s) // without a scheme only a path makes it a URL (or a port, below)
	}
	if spaces && hasSpaceOrControl(s) {
		return p, false
	}
	p.host = auth
	if p.scheme >= 0 && at >= 0 {
		p.host = at + 1
	}
	h := s[p.host:end]
	portAt := -1
	if len(h) > 0 && h[0] == '[' {
		close := indexByte(h, ']')
		if close < 0 || !isIPv6(h[:close+1]) {
			return p, false
		}
		p.hostEnd = p.host + close + 1
		if close+1 < len(h) {
			if h[close+1] != ':' {
				return p, false
			}
			portAt = close + 1
		}
	} else {
		c := indexByte(h, ':')
		if c >= 0 {
			portAt = c
			h = h[:c]
		}
		p.hostEnd = p.host + len(h)
		if !validURLHost(h, p.scheme >= 0) {
			return p, false
		}
	}
	if portAt >= 0 {
		if !validPort(s[p.host+portAt+1 : end]) {
			return p, false
		}
	} else if p.scheme < 0 && end == len(s) {
		return p, false // a bare host is a domain or an address, not a URL
	}
	return p, true
}

// schemeEnd returns the index of "://" after a scheme of two or more
// characters (a letter, then letters, digits, '+', '-', '.'), or -1.
func schemeEnd[T string | []byte](s T) int {
	for i := 0; i+2 < len(s) && i <= 32; i++ {
		c := s[i]
		if c == ':' {
			if i >= 2 && s[i+1] == '/' && s[i+2] == '/' {
				return i
			}
			return -1
		}
		if class[c]&cAlpha == 0 && (i == 0 || !(isDigit(c) || c == '+' || c == '-' || c == '.')) {
			return -1
		}
	}
	return -1
}

func validURLHost[T string | []byte](h T, singleLabelOK bool) bool {
	if isIPv4(h) {
		return true
	}
	labels, last, ok := hostLabels(h)
	if !ok {
		return false
	}
	if labels == 1 {
		return singleLabelOK
	}
	return validTLD(h[last:])
}

func validPort[T string | []byte](p T) bool {
	if len(p) == 0 || len(p) > 5 {
		return false
	}
	v := 0
	for i := 0; i < len(p); i++ {
		if !isDigit(p[i]) {
			return false
		}
		v = v*10 + int(p[i]-'0')
	}
	return v <= 65535
}

func indexByte[T string | []byte](s T, c byte) int {
	switch s := any(s).(type) {
	case string:
		return strings.IndexByte(s, c)
	case []byte:
		return bytes.IndexByte(s, c)
	}
	return -1
}

func hasSubstr[T string | []byte](s T, sub string) bool {
	switch s := any(s).(type) {
	case string:
		return strings.Contains(s, sub)
	case []byte:
		return bytes.Contains(s, []byte(sub))
	}
	return false
}

// isCIDR accepts an address block: an IPv4 address (as isIPv4) or an IPv6
// address without a zone, '/', and a prefix length within the address's
// bits, written without a leading zero.
func isCIDR[T string | []byte](s T) bool {
	k := -1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			k = i
			break
		}
	}
	if k <= 0 {
		return false
	}
	p := s[k+1:]
	if len(p) == 0 || len(p) > 3 || len(p) > 1 && p[0] == '0' {
		return false
	}
	bits := 0
	for i := 0; i < len(p); i++ {
		if !isDigit(p[i]) {
			return false
		}
		bits = bits*10 + int(p[i]-'0')
	}
	a := s[:k]
	if isIPv4(a) {
		return bits <= 32
	}
	if indexByte(a, '%') >= 0 || len(a) > 0 && a[0] == '[' {
		return false
	}
	_, ok := parseIPv6(a)
	return ok && bits <= 128
}

// hasSpaceOrControl tells whether s holds a byte <= ' ' or DEL, eight bytes
// at a time: splitURL asks it of every URL found, whole.
func hasSpaceOrControl[T string | []byte](s T) bool {
	const ones = 0x0101010101010101
	const high = 0x80 * ones
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8] // one bounds check for the eight bytes
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// A byte under 0x21 borrows in x - 0x21 and has its top bit clear
		// (a byte from 0x80 on is no match); DEL is a zero byte of x ^ 0x7f.
		// A borrow can mark a byte above a match, never one where there is
		// no match at all, so "any" is exact.
		d := x ^ 0x7f*ones
		if ((x-0x21*ones)&^x|(d-ones)&^d)&high != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// classTable is &class in a variable, which a loop over bytes loads once.
var classTable = &class

// authorityStop marks the bytes splitURL stops at in an authority: the
// three that end it and '@', which ends its userinfo.
var authorityStop = &[256]bool{'/': true, '?': true, '#': true, '@': true}
