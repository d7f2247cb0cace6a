package ioc

import (
	"bytes"
	"errors"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
)

// The rules for a single value as an analyst pastes it (search, detect): what
// clings to an indicator copied out of prose, chat, a ticket or a browser's
// address bar is not part of it. They agree with what extract does with the
// same text; RULES.md lists them.

// Prepare is what `search` and `detect` call for each input: trim white
// space, Validate, then (if refang) drop invisible characters, Refang, take
// off the wrapping and punctuation that cling to a pasted value, put back
// the colon of an http(s) scheme that lost it, reduce a bare host with a port or a trailing "/" to the host, and Detect and
// Normalize. Without refang the value is taken exactly as given (trimmed of
// white space only). value is what gets searched; on error it is "" and t is
// Unknown. A value with inner white space, or of no type with a comma or
// semicolon, that holds several indicators is an input error naming them.
func Prepare(input string, refang bool) (value string, t Type, err error) {
	if err := Validate(input); err != nil {
		if strings.ContainsAny(input, "\n\r") {
			// A multi-line paste: say what it holds rather than which byte
			// is a newline.
			if serr := several(input); serr != nil {
				return "", Unknown, serr
			}
		}
		return "", Unknown, err
	}
	v := strings.TrimSpace(input)
	defanged := false
	if refang {
		raw := dropInvisible(v)
		v = strings.TrimSpace(Refang(raw))
		defanged = v != raw
		v = bareHost(missingColon(unwrap(v)))
		if v == "" {
			// Nothing but invisible characters: as empty as "".
			return "", Unknown, Validate("")
		}
	}
	if hasInnerSpace(v) {
		if err := several(v); err != nil {
			return "", Unknown, err
		}
	}
	t = Detect(v)
	if t == Unknown && strings.ContainsAny(v, ",;") {
		// A CSV row (1.2.3.4,5.6.7.8): no indicator holds it whole, and
		// sent as one value it would match nothing, silently.
		if err := several(v); err != nil {
			return "", Unknown, err
		}
	}
	if t == Domain && !defanged && isFileName(v) {
		t = Unknown
	}
	return Normalize(v, t), t, nil
}

// isFileName tells a host name that ends in a common file extension
// (invoice.pdf, update.zip): as in extract, it is a file, not a domain,
// unless its writer defanged it.
func isFileName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	return isFileExt(s[strings.LastIndexByte(s, '.')+1:])
}

// quotes are the characters that wrap a value copied from prose, code or
// chat; either end may have lost its partner in the copy.
const quotes = "\"'`“”‘’„‚«»‹›"

// unwrap takes off, as long as any is left, the quotes, backticks, matching
// or unmatched brackets (round, square, curly, angle) and the "|" of a
// Markdown table's cell around a value, and sentence punctuation after it.
// A value that would be left empty stays as it was.
func unwrap(s string) string {
	orig := s
	for {
		prev := s
		s = strings.TrimSpace(s)
		s = trimTrailingPunct(s)
		s = strings.TrimLeft(s, quotes+"|") // "|" opens a Markdown table's cell
		s = strings.TrimRight(s, quotes)
		s = trimBrackets(s)
		s = trimPlusPair(s)
		if s == prev {
			break
		}
	}
	if s == "" {
		return orig
	}
	return s
}

// trimTrailingPunct drops the sentence punctuation after a value, and the
// "|" of a Markdown table's cell (no indicator ends in one: a URL writes
// it %7C). A colon is kept after a colon: 2001:db8:: ends in one.
func trimTrailingPunct(s string) string {
	for len(s) > 0 {
		switch c := s[len(s)-1]; c {
		case '.', ',', ';', '!', '?', '|':
		case ':':
			if len(s) >= 2 && s[len(s)-2] == ':' {
				return s
			}
		default:
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}

// trimPlusPair drops the "++" on both sides of a value (AsciiDoc's
// passthrough, `++https://a.example/x++`). Only the pair goes: a '+'
// belongs in a URL (?q=a+b, /c++), as in extract (plusOpened).
func trimPlusPair(s string) string {
	if len(s) > 4 && strings.HasPrefix(s, "++") && strings.HasSuffix(s, "++") {
		return s[2 : len(s)-2]
	}
	return s
}

var bracketPairs = [...][2]byte{{'(', ')'}, {'[', ']'}, {'{', '}'}, {'<', '>'}}

// trimBrackets drops a pair of brackets around the whole value, or a
// bracket at either end that has no partner in it: a URL keeps the ones it
// opens and closes (…/Foo_(bar)), and [2001:db8::1]:443 its brackets.
func trimBrackets(s string) string {
	for _, p := range bracketPairs {
		if len(s) < 2 {
			return s
		}
		open, close := p[0], p[1]
		first, last := s[0] == open, s[len(s)-1] == close
		if !first && !last {
			continue
		}
		opens, closes := strings.Count(s, string(open)), strings.Count(s, string(close))
		switch {
		case first && last && wraps(s, open, close):
			s = s[1 : len(s)-1]
		case last && closes > opens:
			s = s[:len(s)-1]
		case first && opens > closes:
			s = s[1:]
		}
	}
	return s
}

// wraps reports whether the bracket opening s is the one that closes it.
func wraps(s string, open, close byte) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i == len(s)-1
			}
		}
	}
	return false
}

// bareHost reduces a host written without a scheme and followed by a port
// or a lone "/" (198.51.100.7:8080, [2001:db8::1]:443, example.com/) to the
// host: copied from a log line or an address bar, the host is what is meant.
func bareHost(s string) string {
	if strings.Contains(s, "://") {
		return s
	}
	h := strings.TrimSuffix(s, "/")
	end := len(h)
	if strings.HasPrefix(h, "[") {
		end = strings.IndexByte(h, ']') + 1
	} else if c := strings.IndexByte(h, ':'); c >= 0 && strings.IndexByte(h[c+1:], ':') < 0 {
		end = c
	}
	if end <= 0 || end == len(s) || strings.ContainsAny(h[:end], "/@") {
		return s // nothing to take off, or no bare host
	}
	if rest := h[end:]; rest != "" && (rest[0] != ':' || !validPort(rest[1:])) {
		return s
	}
	switch Detect(h[:end]) {
	case IPv4, IPv6, Domain:
		return h[:end]
	}
	return s
}

// missingColon reads a URL whose scheme lost its colon in the typing
// (http//host/x, hxxps//host/x) as http://host/x, but only when the word
// before "//" is http or https, defanged or not, and the host after it is
// a domain or an address: anything else (http//intranet/x, a path such as
// a//b) stays as it was, so that nothing is invented.
func missingColon(s string) string {
	i := strings.Index(s, "//")
	if i < 3 || i > 5 {
		return s
	}
	scheme := schemeWord(s[:i])
	if scheme == "" {
		return s
	}
	fixed := scheme + "://" + s[i+2:]
	p, ok := splitPastedURL(fixed)
	if !ok {
		return s
	}
	switch Detect(fixed[p.host:p.hostEnd]) {
	case Domain, IPv4, IPv6:
		return fixed
	}
	return s
}

func hasInnerSpace(s string) bool {
	return strings.ContainsAny(s, " \t\n\r\v\f\u00a0")
}

// maxNamed is how many indicators the error for a value holding several
// names before it gives up listing them.
const maxNamed = 3

var errEnough = errors.New("enough")

// several returns an input error when s holds more than one indicator
// (203.0.113.66 198.51.100.1, two lines of a paste), naming them: searched
// as one value they would match nothing, silently.
func several(s string) error {
	var found []string
	_ = extractText([]byte(s), func(in Indicator) error {
		found = append(found, in.Value)
		if len(found) > maxNamed {
			return errEnough
		}
		return nil
	})
	if len(found) < 2 {
		return nil
	}
	list := strings.Join(found[:min(len(found), maxNamed)], ", ")
	if len(found) > maxNamed {
		list += ", …"
	}
	return failure.New(failure.Input, "the value holds several indicators (%s)", list).
		WithHint("give each as its own value, or pipe the text to 'tilookup extract'")
}

// extractText is ExtractReader for a short text in memory, on the caller's
// goroutine: what several and the tests need, without the reader's blocks.
func extractText(text []byte, fn func(Indicator) error) error {
	e := newExtractor(nil)
	e.invisible = hasInvisible(text)
	m := newMerger(fn)
	for len(text) > 0 && m.err == nil {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		e.processLine(line)
		m.merge(e)
	}
	return m.err
}

// splitPastedURL is splitURL for a single pasted value: a URL with an
// explicit scheme and a valid host whose path or query holds plain spaces
// (as copied from a report or a browser's address bar) is still a URL. Free
// text extraction does not use it: there a space ends the URL.
func splitPastedURL(s string) (urlParts, bool) {
	if p, ok := splitURL(s); ok {
		return p, true
	}
	start := schemeEnd(s)
	if start <= 0 {
		return urlParts{}, false
	}
	end := start + 3
	for end < len(s) && s[end] != '/' && s[end] != '?' && s[end] != '#' {
		end++
	}
	if end == len(s) {
		return urlParts{}, false
	}
	for i := end; i < len(s); i++ {
		if (s[i] < ' ' || s[i] == 0x7f) || (s[i] == ' ' && (i == end || i == len(s)-1)) {
			return urlParts{}, false
		}
	}
	return splitURL(s[:end])
}
