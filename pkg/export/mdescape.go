package export

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// mdSpecial are the ASCII characters always escaped with a backslash in
// Markdown text: the inline syntax (emphasis, code, links, images, HTML,
// entities, strikethrough, GitHub's $math$ and #references), '|', which
// would end a table cell, and '@', which would make an e-mail autolink or
// a GitHub mention.
const mdSpecial = "\\`*_{}[]()<>#!|~&$@"

// mdText escapes s for a table cell or a list item: one line, no markup.
// sanitize.String first, so that the document is also safe to cat on a
// terminal, and so that no line break can end the cell. GFM's autolinks
// are broken where they would start: the ':' of "://" and the '.' of
// "www.".
func mdText(s string) string {
	s = sanitize.String(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	for i, r := range s {
		if r < 0x80 && (strings.ContainsRune(mdSpecial, r) ||
			r == ':' && strings.HasPrefix(s[i+1:], "//") ||
			r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www")) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode writes s as an inline code span: how indicators are shown, so
// that they read the same raw and rendered and never autolink. Inside a
// code span nothing is markup; only a backtick run as long as the fence
// could end it early (the fence is made longer than any run in s), and a
// '|' would still end a table cell (GFM unescapes "\|" before the span is
// parsed, so the code shows a plain '|').
func mdCode(s string) string {
	s = strings.ReplaceAll(sanitize.String(s), "|", `\|`)
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	// A leading or trailing backtick would join the fence, and a leading
	// space would be eaten: pad both sides, which CommonMark strips.
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ' {
		s = " " + s + " "
	}
	return fence + s + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// mdLink is a link to the service's detail page with text already escaped,
// or the text alone when the address is not a plain http(s) URL (a
// javascript: or data: address from a hostile server links nowhere).
func mdLink(text, address string) string {
	dest, ok := linkDestination(address)
	if !ok {
		return text
	}
	return "[" + text + "](" + dest + ")"
}

// linkDestination makes an http(s) URL safe as a Markdown link
// destination: the characters that could end the destination, the link or
// the table cell, or that Markdown would unescape, are percent-encoded;
// what a URL means is unchanged.
func linkDestination(address string) (string, bool) {
	s, ok := httpURL(address)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c >= 0x7f || strings.IndexByte("<>()|\\`\"{}", c) >= 0:
			fmt.Fprintf(&b, "%%%02X", c)
		case c == '&':
			// An entity such as &lt; would be decoded in a destination;
			// a backslash keeps the '&' (a query separator) as it is.
			b.WriteString(`\&`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// httpURL is address when it is an absolute http(s) URL with a host, as
// net/url writes it back, with what RFC 3986 forbids percent-encoded.
func httpURL(address string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(address))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	return encodeNonURI(u.String()), true
}
