package ioc

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/failure"
)

// MaxLen is the longest value, in bytes after trimming, that Validate lets
// through: no indicator is longer, and the service refuses longer queries.
const MaxLen = 4096

// Validate rejects what must never be sent: a value empty after trimming
// white space, longer than MaxLen bytes, not valid UTF-8, or containing a
// control character (C0, DEL or C1; newlines inside the value included).
// A tab is white space, as a space is: pasted from a spreadsheet or a
// terminal, a value may hold one. Byte offsets in messages count from the start of s. The error
// is a *failure.Error of kind failure.Input with a one-line message.
func Validate(s string) error {
	t := strings.TrimSpace(s)
	if t == "" {
		return failure.New(failure.Input, "empty value")
	}
	if len(t) > MaxLen {
		return failure.New(failure.Input, "value is %d bytes, more than the %d allowed", len(t), MaxLen)
	}
	off := strings.Index(s, t)
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t') || c == 0x7f {
				return failure.New(failure.Input, "value contains control character U+%04X at byte %d", c, off+i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(t[i:])
		if r == utf8.RuneError && size == 1 {
			return failure.New(failure.Input, "value is not valid UTF-8 (byte 0x%02X at byte %d)", c, off+i)
		}
		if r >= 0x80 && r <= 0x9f {
			return failure.New(failure.Input, "value contains control character U+%04X at byte %d", r, off+i)
		}
		i += size
	}
	return nil
}

// dropInvisible removes the characters that copying from web pages, PDFs
// and Windows files leaves inside values without showing them (isInvisible).
// Left in, they turn a real hash into an "unsupported" value that looks
// right on screen.
func dropInvisible(s string) string {
	if !strings.ContainsAny(s, invisibles) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isInvisible(r) {
			return -1
		}
		return r
	}, s)
}

// invisibles are the format characters that show nothing and split no word
// for a reader: a byte order mark, the soft hyphen, zero-width spaces and
// joiners, the word joiner and the invisible operators. detect drops them
// from a value, extract from inside a word.
const invisibles = "\ufeff\u00ad\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064"

func isInvisible(r rune) bool {
	switch r {
	case '\ufeff', '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064':
		return true
	}
	return false
}

// invisibleAt is the length of the invisible character (isInvisible)
// encoded at l[i], or 0.
func invisibleAt(l []byte, i int) int {
	switch {
	case i+1 < len(l) && l[i] == 0xc2 && l[i+1] == 0xad:
		return 2
	case i+2 < len(l) && l[i] == 0xe2 && l[i+1] == 0x80 && l[i+2] >= 0x8b && l[i+2] <= 0x8d,
		i+2 < len(l) && l[i] == 0xe2 && l[i+1] == 0x81 && l[i+2] >= 0xa0 && l[i+2] <= 0xa4,
		i+2 < len(l) && l[i] == 0xef && l[i+1] == 0xbb && l[i+2] == 0xbf:
		return 3
	}
	return 0
}

// hasInvisible reports whether b holds an invisible character
// (isInvisible) anywhere: the extractor asks once per block, so that
// text without any, the rule, pays a few fast byte searches and no look
// at each line.
func hasInvisible(b []byte) bool {
	for _, lead := range [...]byte{0xe2, 0xc2, 0xef} {
		for i := 0; ; i++ {
			k := bytes.IndexByte(b[i:], lead)
			if k < 0 {
				break
			}
			i += k
			if invisibleAt(b, i) > 0 {
				return true
			}
		}
	}
	return false
}

// dropInvisibleInWords returns line without the invisible characters
// that sit inside a word, between two printable ASCII characters
// ("ev\u200bil.example" is evil.example, as detect reads it), written into
// buf; line itself when it has none. One next to a space, or between two
// letters of a script that writes no spaces, is left: it may be all that
// separates two words.
func dropInvisibleInWords(line, buf []byte) []byte {
	if bytes.IndexByte(line, 0xe2) < 0 && bytes.IndexByte(line, 0xc2) < 0 && bytes.IndexByte(line, 0xef) < 0 {
		return line
	}
	out := buf[:0]
	from := 0
	for i := 0; i < len(line); i++ {
		k := invisibleAt(line, i)
		if k == 0 {
			continue
		}
		// The word may go on after a run of them ("a\u200b\u00adb").
		j := i + k
		for j < len(line) && invisibleAt(line, j) > 0 {
			j += invisibleAt(line, j)
		}
		if i > 0 && j < len(line) && line[i-1] > ' ' && line[i-1] < utf8.RuneSelf && line[j] > ' ' && line[j] < utf8.RuneSelf {
			out = append(out, line[from:i]...)
			from = j
		}
		i = j - 1
	}
	if from == 0 {
		return line
	}
	return append(out, line[from:]...)
}

// Normalize returns the canonical form of s, an indicator of type t, that is
// sent to the service:
//
//   - md5, sha1, sha256, sha512: lower-cased hex.
//   - cve: upper-cased (CVE-2021-44228).
//   - domain: lower-cased (Unicode lower-casing for IDN, which stays in
//     Unicode: no punycode conversion either way), one trailing dot removed.
//   - ipv4: as is (Detect only accepts the canonical dotted quad).
//   - ipv6: brackets removed, zone dropped (it only means something on the
//     host that wrote it), then RFC 5952 form via net/netip: lower-case,
//     zeros compressed, IPv4-mapped as ::ffff:192.0.2.1.
//   - email: local part as is (it may be case-sensitive), domain as for a
//     domain.
//   - url: scheme and host lower-cased, an IPv6 host in RFC 5952 form inside
//     its brackets; user info, port, path, query and fragment untouched; no
//     scheme is added to a URL written without one and no "/" to an empty
//     path.
//   - unknown, or s not of type t: s unchanged.
//
// Normalize returns s itself, without allocating, when it is already
// canonical.
func Normalize(s string, t Type) string {
	if r := row(t); r != nil && r.is(s) {
		return r.normalize(s)
	}
	return s
}

func same(s string) string { return s }

func normalizeCVE(s string) string {
	if s[0] != 'C' || s[1] != 'V' || s[2] != 'E' {
		return "CVE" + s[3:]
	}
	return s
}

func normalizeIPv6(s string) string {
	a, _ := parseIPv6(s)
	if n := a.WithZone("").String(); n != s {
		return n
	}
	return s
}

func normalizeCIDR(s string) string {
	k := strings.LastIndexByte(s, '/')
	if a, ok := parseIPv6(s[:k]); ok {
		if n := a.String(); n != s[:k] {
			return n + s[k:]
		}
	}
	return s
}

func normalizeEmail(s string) string {
	at := strings.IndexByte(s, '@')
	if d := normalizeHost(s[at+1:]); d != s[at+1:] {
		return s[:at+1] + d
	}
	return s
}

func normalizeURLValue(s string) string {
	p, _ := splitPastedURL(s)
	return normalizeURL(s, p)
}

func normalizeHost(h string) string {
	if len(h) > 1 && h[len(h)-1] == '.' {
		h = h[:len(h)-1]
	}
	return toLower(h)
}

func normalizeURL(s string, p urlParts) string {
	scheme := ""
	if p.scheme >= 0 {
		scheme = s[:p.scheme]
	}
	host := s[p.host:p.hostEnd]
	nhost := toLower(host)
	if len(host) > 0 && host[0] == '[' {
		if a, ok := parseIPv6(host); ok {
			nhost = "[" + a.WithZone("").String() + "]"
		}
	}
	nscheme := toLower(scheme)
	if nscheme == scheme && nhost == host {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(nscheme)
	b.WriteString(s[len(scheme):p.host])
	b.WriteString(nhost)
	b.WriteString(s[p.hostEnd:])
	return b.String()
}

// Defang returns s, an indicator of type t (normalized), in a form that
// chat and ticket systems will not turn into a link, for pasting into
// tickets; Refang reverses it:
//
//   - url: http -> hxxp, https -> hxxps, ftp -> fxp, ftps -> fxps,
//     "://" -> "[:]//", every '.' of the host -> "[.]", user info '@' -> "[@]";
//     the path is left alone.
//   - domain, ipv4, cidr: every '.' -> "[.]".
//   - email: '@' -> "[@]" and every '.' of the domain -> "[.]".
//   - ipv6: every ':' after a hex digit -> "[:]" ("::" -> "[:]:", the form
//     Refang reads), every '.' of an IPv4 tail -> "[.]".
//   - hashes, cve, unknown: unchanged (nothing links them).
func Defang(s string, t Type) string {
	if r := row(t); r != nil && r.defang != nil {
		return r.defang(s)
	}
	return s
}

func defangDots(s string) string { return strings.ReplaceAll(s, ".", "[.]") }

// defangIPv6 brackets only the colons Refang takes back in an address:
// one between hex digits or before the second colon of "::". A leading
// "::" (::ffff:…) keeps its colons; the later ones still break the link.
func defangIPv6(s string) string {
	var b strings.Builder
	b.Grow(len(s) * 3)
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == ':' && i > 0 && isHex(s[i-1]):
			b.WriteString("[:]")
		case s[i] == '.':
			b.WriteString("[.]")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func defangEmail(s string) string {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return s
	}
	return s[:at] + "[@]" + strings.ReplaceAll(s[at+1:], ".", "[.]")
}

func defangURLValue(s string) string {
	if p, ok := splitPastedURL(s); ok {
		return defangURL(s, p)
	}
	return s
}

func defangURL(s string, p urlParts) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	auth := 0
	if p.scheme >= 0 {
		scheme := s[:p.scheme]
		switch strings.ToLower(scheme) {
		case "http":
			scheme = "hxxp"
		case "https":
			scheme = "hxxps"
		case "ftp":
			scheme = "fxp"
		case "ftps":
			scheme = "fxps"
		case "sftp":
			scheme = "sfxp"
		}
		b.WriteString(scheme)
		b.WriteString("[:]//")
		auth = p.scheme + 3
	}
	userinfo := s[auth:p.host]
	if strings.HasSuffix(userinfo, "@") {
		b.WriteString(userinfo[:len(userinfo)-1])
		b.WriteString("[@]")
	} else {
		b.WriteString(userinfo)
	}
	host := s[p.host:p.hostEnd]
	if len(host) > 0 && host[0] == '[' {
		b.WriteString(host)
	} else {
		b.WriteString(strings.ReplaceAll(host, ".", "[.]"))
	}
	b.WriteString(s[p.hostEnd:])
	return b.String()
}

// hasControls reports whether b holds a NUL or an ESC, which a terminal
// or an editor shows as nothing (dropTerminalControls): the extractor asks
// once per block, as for hasInvisible.
func hasControls(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || bytes.IndexByte(b, 0x1b) >= 0
}

// dropTerminalControls returns line as a terminal shows it, written into
// buf (line itself when there is nothing to drop): without NUL bytes,
// which show as nothing (as a browser drops them from a page's text), and
// without ESC sequences (ECMA-48), the colours and titles of a saved
// terminal log: a control sequence ESC [ parameters intermediates final,
// an operating-system command or string ESC ] P X ^ _ ... up to BEL or
// ESC \ (an OSC 8 link shows its text, not its target), and ESC with
// intermediates and a final byte (ESC ( B). "\x1b[31mevil.example\x1b[0m"
// is evil.example, "ev\x00il.example" evil.example.
func dropTerminalControls(line, buf []byte) []byte {
	out := buf[:0]
	from := 0
	for i := 0; i < len(line); {
		c := line[i]
		if c != 0 && c != 0x1b {
			i++
			continue
		}
		out = append(out, line[from:i]...)
		i += escapeLen(line[i:])
		from = i
	}
	if from == 0 {
		return line
	}
	return append(out, line[from:]...)
}

// escapeLen is the length of the NUL or the ESC sequence that starts s.
func escapeLen(s []byte) int {
	if s[0] == 0 || len(s) == 1 {
		return 1
	}
	i := 2
	switch s[1] {
	case '[': // CSI: parameter bytes, intermediate bytes, a final byte
		for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
			i++
		}
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			i++
		}
		return i
	case ']', 'P', 'X', '^', '_': // a string, ended by BEL or ST (ESC \)
		for ; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			case s[i] == '\n' || s[i] == 0x1b:
				return i // unterminated: the line, or the next sequence, goes on
			}
		}
		return i
	}
	i = 1 // ESC, intermediates, a final byte
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}
