// Package sanitize makes text that came from a server safe to print on a
// terminal. It is the one place where tilookup decides what a terminal may see:
// every string from the service goes through String (single-line table cells)
// or Multiline (blocks of text) before it reaches human output.
//
// What happens to each kind of character:
//
//   - Printable text, including U+FFFD and non-ASCII letters, is kept as is.
//   - An escape sequence (ESC followed by CSI, OSC, DCS, SOS, PM, APC or any
//     other escape) is removed whole, parameters and string payload included,
//     and replaced by one visible "␛" (U+241B SYMBOL FOR ESCAPE). The same goes
//     for sequences started by the 8-bit introducers U+009B (CSI), U+009D (OSC),
//     U+0090 (DCS), U+0098 (SOS), U+009E (PM) and U+009F (APC). Removing the
//     payload means an OSC 8 hyperlink or an OSC 52 clipboard write survives in
//     no form, not even as text that could be pasted back into a terminal. An
//     unterminated string sequence (OSC and the like) swallows the rest of the
//     string, as a terminal would.
//   - TAB, LF, CR, VT and FF become a space in String; CR LF becomes one space.
//     Multiline keeps LF and TAB, turns CR LF into LF, and turns the others
//     into a space. U+2028 and U+2029 (line and paragraph separators) become a
//     space in both.
//   - Every other C0 control and DEL becomes its Unicode "control picture"
//     (NUL → ␀, BEL → ␇, BS → ␈, DEL → ␡), so the analyst sees that something
//     was there.
//   - Any other C1 control (U+0080–U+009F) becomes U+FFFD.
//   - Bidirectional formatting characters become U+FFFD: the embeddings and
//     overrides U+202A–U+202E, the isolates U+2066–U+2069, and the marks
//     U+200E, U+200F and U+061C. The marks are included because they can
//     reorder the dots and slashes of an indicator just like an override.
//   - Invisible characters become their code point in angle brackets, e.g.
//     "evil<U+200B>.com": the zero-width space, non-joiner and joiner
//     U+200B–U+200D, the word joiner and invisible operators U+2060–U+2064,
//     the byte order mark U+FEFF, the soft hyphen U+00AD, U+180E, and the tag
//     characters U+E0000–U+E007F. Printed as is, they make two different
//     indicators look the same ("evil\u200b.com" and "evil.com") or smuggle
//     hidden text. Joiners inside emoji sequences are shown too: in threat
//     data an exact, visible value matters more than a pretty glyph.
//   - Each byte of invalid UTF-8 becomes U+FFFD.
//
// A string with nothing to change is returned as is, without allocating.
package sanitize

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

const (
	escPicture  = "\u241b" // ␛, stands for a removed escape sequence
	replacement = "\ufffd"
	ellipsis    = "…"
)

// String returns s made safe for one line of a terminal.
func String(s string) string { return clean(s, false) }

// Multiline is String for text shown as a block: LF and TAB are kept.
func Multiline(s string) string { return clean(s, true) }

// Truncate shortens s to at most n runes, the last of which is "…" when
// something was cut. It counts runes, not terminal columns, so it never splits
// a UTF-8 sequence; n <= 0 gives "".
func Truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n { // no more bytes than n, so no more runes
		return s
	}
	runes, cut := 0, 0
	for i := range s {
		if runes == n-1 {
			cut = i
		}
		runes++
		if runes > n {
			return s[:cut] + ellipsis
		}
	}
	return s
}

// IsUnsafe reports whether a terminal could interpret r rather than show it,
// or lay it out misleadingly: C0 controls (TAB and LF included), DEL, C1
// controls, bidirectional formatting characters, the line and paragraph
// separators, and invisible characters (IsInvisible). U+FFFD itself is safe; invalid UTF-8 is the caller's concern.
func IsUnsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true
	}
	return isBidi(r) || r == 0x2028 || r == 0x2029 || IsInvisible(r)
}

// IsInvisible reports whether r prints as nothing at all on a terminal
// while changing what a string is: zero-width characters, the BOM, the soft
// hyphen and the tag characters.
func IsInvisible(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r == 0xad, r == 0x180e, r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff:
		return true
	}
	return r >= 0xe0000 && r <= 0xe007f
}

func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// firstUnsafe returns the byte offset of the first thing clean would change,
// or -1. It is the allocation-free fast path.
func firstUnsafe(s string, multi bool) int { return findUnsafe(s, multi, true) }

// findUnsafe is firstUnsafe, taking eight bytes at a time where it can
// when words is true (a test holds it to words false).
func findUnsafe(s string, multi, words bool) int {
	i := 0
	if words && len(s) >= 8 {
		for i+8 <= len(s) && printableASCII8(s[i:i+8]) {
			i += 8
		}
		// The last eight bytes, overlapping the words already taken: a
		// value whose length is no multiple of 8 is then done in words
		// too, not its tail a byte at a time.
		if i+8 > len(s) && printableASCII8(s[len(s)-8:]) {
			return -1
		}
	}
	for i < len(s) {
		if words && i+8 <= len(s) && printableASCII8(s[i:i+8]) {
			// Eight printable ASCII bytes at once: the indicators extract
			// prints, tens of thousands of them, are nothing else.
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(multi && (c == '\n' || c == '\t')) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 || IsUnsafe(r) { // size 1 with a non-ASCII lead byte: invalid
			return i
		}
		i += size
	}
	return -1
}

// printableASCII8 tells whether the 8 bytes of w are all from space to
// '~', by arithmetic on them as one word: with the high bits clear, a
// byte less than 0x20 borrows into its high bit when 0x20 is subtracted,
// and DEL, XORed with 0x7f, is the one byte to become 0, which borrows
// when 1 is subtracted.
func printableASCII8(w string) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	_ = w[7]
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	del := x ^ 0x7f*ones
	return (x|(x-0x20*ones)|(del-ones)&^del)&high == 0
}

func clean(s string, multi bool) string {
	i := firstUnsafe(s, multi)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			i = cleanASCIIControl(&b, s, i, multi)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case size == 1:
			b.WriteString(replacement)
			i++
		case r == 0x9b: // 8-bit CSI
			i = skipCSI(s, i+size)
			b.WriteString(escPicture)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // OSC, DCS, SOS, PM, APC
			i = skipString(s, i+size)
			b.WriteString(escPicture)
		case r >= 0x80 && r <= 0x9f, isBidi(r):
			b.WriteString(replacement)
			i += size
		case r == 0x2028 || r == 0x2029:
			b.WriteByte(' ')
			i += size
		case IsInvisible(r):
			writeCodePoint(&b, r)
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// writeCodePoint writes r as "<U+XXXX>", the notation of the Unicode
// charts, so that the analyst can look it up.
func writeCodePoint(b *strings.Builder, r rune) {
	const hex = "0123456789ABCDEF"
	b.WriteString("<U+")
	digits := 4
	if r > 0xffff {
		digits = 5
	}
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		b.WriteByte(hex[r>>shift&0xf])
	}
	b.WriteByte('>')
}

// cleanASCIIControl writes the replacement for the control byte at s[i] and
// returns the offset just past what it consumed.
func cleanASCIIControl(b *strings.Builder, s string, i int, multi bool) int {
	switch c := s[i]; c {
	case 0x1b:
		b.WriteString(escPicture)
		return skipEscape(s, i)
	case '\n':
		if multi {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	case '\t':
		if multi {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	case '\r':
		if i+1 < len(s) && s[i+1] == '\n' {
			return i + 1 // the LF that follows stands for the pair
		}
		b.WriteByte(' ')
	case '\v', '\f':
		b.WriteByte(' ')
	case 0x7f:
		b.WriteString("\u2421") // ␡
	default:
		b.WriteRune(0x2400 + rune(c)) // the control pictures block mirrors C0
	}
	return i + 1
}

// skipEscape returns the offset just past the escape sequence that starts
// with the ESC at s[i], following ECMA-48's shapes closely enough to remove
// what a terminal would consume.
func skipEscape(s string, i int) int {
	j := i + 1
	if j >= len(s) {
		return j
	}
	switch c := s[j]; {
	case c == '[':
		return skipCSI(s, j+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, j+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then one final byte (nF, e.g. ESC ( B)
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x30 && s[j] <= 0x7e {
			j++
		}
		return j
	case c >= 0x30 && c <= 0x7e: // a single-character escape such as ESC c (reset)
		return j + 1
	}
	return j // a lone ESC; what follows is handled on its own
}

// skipCSI returns the offset past a control sequence's parameter,
// intermediate and final bytes, starting just after the introducer.
func skipCSI(s string, j int) int {
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		j++
	}
	return j
}

// skipString returns the offset past a control string (OSC, DCS, ...) and
// its terminator: BEL, ST (ESC \ or U+009C), or CAN/SUB, which abort it. An
// ESC that does not start ST ends the string without being consumed, since a
// terminal starts a new sequence there.
func skipString(s string, j int) int {
	for j < len(s) {
		switch s[j] {
		case 0x07, 0x18, 0x1a:
			return j + 1
		case 0x1b:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			return j
		case 0xc2:
			if j+1 < len(s) && s[j+1] == 0x9c {
				return j + 2
			}
		}
		j++
	}
	return j
}

// JSON returns JSON text b with every character a terminal could interpret
// written as a \u escape, so that the text still decodes to the same value.
// It expects valid JSON (such characters can only occur inside strings);
// invalid UTF-8 becomes \ufffd, which is what a decoder would produce anyway.
// b is returned unchanged when there is nothing to escape.
func JSON(b []byte) []byte {
	start := -1
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f {
				start = i
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if size == 1 || IsUnsafe(r) {
			start = i
			break
		}
		i += size
	}
	if start < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:start]...)
	for i := start; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f {
				out = appendUEscape(out, rune(c))
			} else {
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case size == 1:
			out = appendUEscape(out, utf8.RuneError)
		case IsUnsafe(r):
			out = appendUEscape(out, r)
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// appendUEscape appends r as a JSON \u escape; beyond the BMP (the tag
// characters) as a UTF-16 surrogate pair, as JSON requires.
func appendUEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return appendUEscape(appendUEscape(out, hi), lo)
	}
	const hex = "0123456789abcdef"
	return append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// Line folds s onto one sanitized line: runs of white space (newlines
// included) become one space. Every error message printed on stderr goes
// through it, so that one failure is one line.
func Line(s string) string {
	return String(strings.Join(strings.Fields(s), " "))
}
