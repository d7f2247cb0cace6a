package triage

import (
	"bytes"
	"errors"
	htmlesc "html"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxHTMLToken bounds one token of an HTML document (a text run, a tag with
// its attributes), so that a page with no tags in sight cannot make the
// tokenizer hold all of it.
const MaxHTMLToken = 8 << 20

// ErrHTMLToken is returned when a token is longer than MaxHTMLToken.
var ErrHTMLToken = errors.New("an HTML token longer than 8 MiB (read the input as text with --input text)")

// HTMLText reads an HTML document as the text a reader sees, one block
// element per line, plus the value of every link's href attribute on a line
// of its own. The <head> (title, <link rel=stylesheet|canonical|preconnect>,
// <meta>, scripts), scripts, styles, comments and other attributes are left
// out, and so are the page's own furniture, its <nav> and its <header> and
// <footer> (hiding), so that a vendor's menu, an address in a tracking
// pixel's src or a script's string is not taken for an indicator of the
// report. NUL in text
// is dropped, as a browser drops it. It streams: memory is bounded by the
// longest token.
func HTMLText(r io.Reader) io.Reader {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(MaxHTMLToken)
	return &htmlReader{z: z}
}

type htmlReader struct {
	z    *html.Tokenizer
	buf  []byte
	out  []byte // what Read has not handed out yet
	hide hiding
	// next is how the text after a start tag is read: an xmp's, a
	// textarea's...
	next textKind
	err  error
}

func (h *htmlReader) Read(p []byte) (int, error) {
	for len(h.out) == 0 && h.err == nil {
		h.buf = h.buf[:0]
		h.step()
		h.out = h.buf
	}
	n := copy(p, h.out)
	h.out = h.out[n:]
	if n > 0 {
		return n, nil
	}
	return 0, h.err
}

// step reads one token and appends its text to buf.
func (h *htmlReader) step() {
	kind := h.next
	h.next = plainText // it holds for the one token after the start tag
	switch h.z.Next() {
	case html.ErrorToken:
		h.err = h.z.Err()
		if errors.Is(h.err, html.ErrBufferExceeded) {
			h.err = ErrHTMLToken
		}
	case html.TextToken:
		if !h.hide.hidden() {
			h.buf = append(h.buf, textOf(h.z.Raw(), kind)...)
		}
	case html.StartTagToken, html.SelfClosingTagToken:
		raw := h.z.Raw() // the tag as written (TagName lowers its name in there; tagAttrs skips it)
		name, _ := h.z.TagName()
		a := atom.Lookup(name)
		h.hide.start(a)
		h.next = textKindIn(a)
		h.breakLine(a)
		if h.hide.hidden() {
			break
		}
		if a == atom.Link || a == atom.Base {
			return // metadata, also where a body holds it
		}
		tagAttrs(raw, func(key, val []byte) {
			if bytes.EqualFold(key, []byte("href")) {
				h.buf = append(h.buf, '\n')
				h.buf = append(h.buf, bytes.TrimSpace(unescapeAttr(val))...)
				h.buf = append(h.buf, '\n')
			}
		})
		return
	case html.EndTagToken:
		name, _ := h.z.TagName()
		a := atom.Lookup(name)
		h.hide.end(a)
		h.breakLine(a)
	}
}

// The tokenizer's Text and TagAttr would decode character references
// themselves, but through a table of 2,000 entities that x/net/html builds
// in its init, which every start-up of tilookup (each TAB of shell
// completion) would pay. The standard library's table is built on first
// use, so text and attribute values are taken raw and decoded here, by the
// tokenizer's rules (tested against it).

// textKind is how the tokenizer reads the text of an element.
type textKind int

const (
	plainText textKind = iota
	rcdata             // title, textarea: references decoded, NUL made U+FFFD
	rawText            // xmp, iframe, noscript...: as written, NUL made U+FFFD
)

// textKindIn is the kind of the text in element a. (script and style are
// raw text too, but hidden.)
func textKindIn(a atom.Atom) textKind {
	switch a {
	case atom.Title, atom.Textarea:
		return rcdata
	case atom.Xmp, atom.Iframe, atom.Noembed, atom.Noframes, atom.Noscript, atom.Plaintext, atom.Script, atom.Style:
		return rawText
	}
	return plainText
}

// textOf is a text token as the tokenizer's Text gives it: line ends made
// "\n", character references decoded (except in raw text), and NUL made
// U+FFFD in the text of a title, a textarea or raw text.
func textOf(raw []byte, kind textKind) []byte {
	raw = newlines(raw)
	if kind != plainText {
		raw = bytes.ReplaceAll(raw, []byte{0}, []byte("\uFFFD"))
	} else if bytes.IndexByte(raw, 0) >= 0 {
		// A browser drops NUL in a body's text ("ev\x00il.example" shows
		// as evil.example), so it splits no word here either.
		raw = bytes.ReplaceAll(raw, []byte{0}, nil)
	}
	if kind == rawText || bytes.IndexByte(raw, '&') < 0 {
		return raw
	}
	return []byte(htmlesc.UnescapeString(string(raw)))
}

func newlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}

// unescapeAttr decodes an attribute value as the tokenizer does, which is
// not as text: a named reference without its ';' is kept as written when
// an '=' follows it or when it is not a whole entity name, so that the
// query string of "?id=7&region=eu&copy=1" stays a query string instead
// of turning into "?id=7®ion=eu©=1".
func unescapeAttr(val []byte) []byte {
	val = newlines(val)
	if bytes.IndexByte(val, '&') < 0 {
		return val
	}
	var out []byte
	for {
		i := bytes.IndexByte(val, '&')
		if i < 0 {
			return append(out, val...)
		}
		out = append(out, val[:i]...)
		val = val[i:]
		n := referenceLen(val)
		ref := string(val[:n])
		switch {
		case n > 1 && val[1] == '#':
			out = append(out, htmlesc.UnescapeString(ref)...) // numeric: as in text
		case n > 1 && (ref[n-1] == ';' || n == len(val) || val[n] != '='):
			out = append(out, wholeEntity(ref)...)
		default:
			out = append(out, ref...)
		}
		val = val[n:]
	}
}

// referenceLen is the length of the reference at the start of b ('&'
// first): '&', then '#' and a number, or a run of letters and digits, and
// the ';' that ends it if there is one.
func referenceLen(b []byte) int {
	i := 1
	if i < len(b) && b[i] == '#' {
		i++
		if i < len(b) && (b[i] == 'x' || b[i] == 'X') {
			i++
		}
	}
	for i < len(b) && isAlnum(b[i]) {
		i++
	}
	if i < len(b) && b[i] == ';' {
		i++
	}
	return i
}

// wholeEntity decodes ref when it is one whole entity name ("&copy;", or
// "&copy", which HTML knows without its ';'), else returns it as written:
// the text decoder's fallback to a prefix ("&copyx" as "©x") is not for
// attributes. A whole name decodes to symbols, never to a letter or digit,
// so a decoding that ends in ref's own last name character took a prefix.
func wholeEntity(ref string) string {
	dec := htmlesc.UnescapeString(ref)
	last := strings.TrimSuffix(ref, ";")
	if dec == ref || strings.HasSuffix(dec, last[len(last)-1:]+ref[len(last):]) {
		return ref
	}
	return dec
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// tagAttrs calls yield with the name and raw value of each attribute of a
// start tag, given the tag's raw bytes, following the tokenizer's rules
// (WHATWG 13.2.5.32-38): names end at space, '/', '>' or '=' (a leading
// '=' belongs to the name), values are quoted with ' or " or run to space
// or '>', and an attribute with no '=' has an empty value.
func tagAttrs(raw []byte, yield func(key, val []byte)) {
	i := 1 // past '<'
	for i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++
	}
	for {
		for i < len(raw) && (isTagSpace(raw[i]) || raw[i] == '/') {
			i++
		}
		if i >= len(raw) || raw[i] == '>' {
			return
		}
		start := i
		for i++; i < len(raw) && !isTagSpace(raw[i]) && raw[i] != '/' && raw[i] != '>' && raw[i] != '='; i++ {
		}
		key := raw[start:i]
		j := skipTagSpace(raw, i)
		var val []byte
		if j < len(raw) && raw[j] == '=' {
			j = skipTagSpace(raw, j+1)
			if j < len(raw) && (raw[j] == '"' || raw[j] == '\'') {
				quote := raw[j]
				j++
				vstart := j
				for j < len(raw) && raw[j] != quote {
					j++
				}
				val = raw[vstart:j]
				if j < len(raw) {
					j++
				}
			} else {
				vstart := j
				for j < len(raw) && !isTagSpace(raw[j]) && raw[j] != '>' {
					j++
				}
				val = raw[vstart:j]
			}
			i = j
		}
		yield(key, val)
	}
}

func skipTagSpace(b []byte, i int) int {
	for i < len(b) && isTagSpace(b[i]) {
		i++
	}
	return i
}

func isTagSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// breakLine ends the line at an element that is not inline, so that the
// cells of a table or the items of a list never run into one word.
func (h *htmlReader) breakLine(a atom.Atom) {
	if !isInline(a) {
		h.buf = append(h.buf, '\n')
	}
}

// hidesText is an element whose content is not text for a reader: the
// head is the page's metadata, the title the browser's tab.
func hidesText(a atom.Atom) bool {
	return a == atom.Script || a == atom.Style || a == atom.Template || a == atom.Head || a == atom.Title
}

// hiding follows which part of a page is left out as the tags go by: the
// content of a hidesText element, and the page's own furniture: its
// navigation (<nav>), and its banner and footer, which are a <header> or
// a <footer> outside any article, aside, main or section (as ARIA reads
// them: inside one, they are that article's heading and notes, part of
// the report).
type hiding struct {
	in       atom.Atom // the element whose content is hidden; 0 for none
	depth    int       // how many of in are open (a template in a template)
	sections int       // open article, aside, main and section elements
}

func (s *hiding) hidden() bool { return s.in != 0 }

func (s *hiding) start(a atom.Atom) {
	switch {
	case s.in == atom.Head && a == atom.Body:
		s.in, s.depth = 0, 0 // the head ended without its end tag
	case a == atom.Main && (s.in == atom.Nav || s.in == atom.Header || s.in == atom.Footer):
		// A main is never inside a page's furniture: its end tag was
		// left out, and the report must not go with it.
		s.in, s.depth = 0, 0
	}
	if s.in != 0 {
		if a == s.in {
			s.depth++
		}
		return
	}
	switch {
	case a == atom.Article || a == atom.Aside || a == atom.Main || a == atom.Section:
		s.sections++
	case hidesText(a), a == atom.Nav, (a == atom.Header || a == atom.Footer) && s.sections == 0:
		s.in, s.depth = a, 1
	}
}

func (s *hiding) end(a atom.Atom) {
	switch {
	case s.in != 0:
		if a == s.in {
			if s.depth--; s.depth == 0 {
				s.in = 0
			}
		}
	case a == atom.Article || a == atom.Aside || a == atom.Main || a == atom.Section:
		if s.sections > 0 {
			s.sections--
		}
	}
}

// isInline is an element that does not break a word: "evil<b>.</b>example"
// is one name.
func isInline(a atom.Atom) bool {
	switch a {
	case atom.A, atom.Abbr, atom.B, atom.Bdi, atom.Bdo, atom.Cite, atom.Code, atom.Data,
		atom.Dfn, atom.Em, atom.Font, atom.I, atom.Kbd, atom.Mark, atom.Q, atom.S,
		atom.Samp, atom.Small, atom.Span, atom.Strike, atom.Strong, atom.Sub, atom.Sup,
		atom.Time, atom.Tt, atom.U, atom.Var, atom.Wbr, atom.Ins, atom.Del, atom.Label:
		return true
	}
	return false
}

// Format is how an input is read.
type Format string

const (
	Auto Format = "auto" // HTML when the name or the first bytes say so
	Text Format = "text"
	HTML Format = "html"
)

// Formats are the names ParseFormat takes, the default first.
var Formats = []string{string(Auto), string(Text), string(HTML)}

// ParseFormat checks an --input value.
func ParseFormat(s string) (Format, bool) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case Auto, Text, HTML:
		return f, true
	}
	return "", false
}

// Open returns the text of one input: r decoded (decodeText) and then read
// as it is, or as HTML when f says so or, for Auto, when name ends in
// .html, .htm or .xhtml or the first bytes look like HTML (as a browser
// sniffs content). warn, when not nil, is told about an encoding that is
// not read; reading a binary input fails with ErrBinary.
func Open(r io.Reader, name string, f Format, warn func(string)) io.Reader {
	r = decodeText(r, warn)
	switch f {
	case Text:
		return r
	case HTML:
		return HTMLText(r)
	}
	if htmlName(name) {
		return HTMLText(r)
	}
	head, rest := readHead(r, htmlSniffLen, nil) // a short read decides, as in decodeText
	if htmlHead(head) {
		return HTMLText(rest)
	}
	return rest
}

// htmlSniffLen is how much of a text htmlHead looks at.
const htmlSniffLen = 512

// htmlName tells an input read as HTML by its name.
func htmlName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".html", ".htm", ".xhtml":
		return true
	}
	return false
}

// htmlHead tells HTML by the start of a text, as a browser sniffs it.
func htmlHead(head []byte) bool {
	return strings.HasPrefix(http.DetectContentType(head), "text/html")
}

// readAsIs tells whether Open reads a text as it is (after decodeText),
// not as HTML: head is its start, up to htmlSniffLen bytes.
func readAsIs(f Format, name string, head []byte) bool {
	return f == Text || f == Auto && !htmlName(name) && !htmlHead(head)
}
