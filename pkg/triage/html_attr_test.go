package triage

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// firstTag is a tokenizer at doc's first token when that is a start tag,
// else nil.
func firstTag(doc string) *html.Tokenizer {
	z := html.NewTokenizer(strings.NewReader(doc))
	switch z.Next() {
	case html.StartTagToken, html.SelfClosingTagToken:
		return z
	}
	return nil
}

// tokenizerAttrs is the oracle: the attributes x/net/html's tokenizer reads
// from the first tag of doc, values decoded.
func tokenizerAttrs(doc string) []string {
	z := firstTag(doc)
	if z == nil {
		return nil
	}
	var out []string
	for _, more := z.TagName(); more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		out = append(out, string(k)+"="+string(v))
	}
	return out
}

// ourAttrs is what tagAttrs and unescape read from the same tag.
func ourAttrs(doc string) []string {
	z := firstTag(doc)
	if z == nil {
		return nil
	}
	var out []string
	tagAttrs(z.Raw(), func(k, v []byte) {
		out = append(out, asciiLower(string(k))+"="+string(unescapeAttr(v)))
	})
	return out
}

var attrCases = []string{
	`<a href="https://evil.example/a?b=1&amp;c=2">`,
	`<a HREF='x.example'>`,
	`<a href=x.example/>`,
	`<a href = "spaced.example" >`,
	`<a title="href=fake.example" href="real.example">`,
	`<a/href=slash.example>`,
	`<a href>`,
	`<a href="">`,
	`<a =odd href="x">`,
	`<a href="unterminated`,
	`<a href="a" href="b">`,
	"<a\thref=\"tab.example\"\nclass=x>",
	`<a data-x=1 href=https://u.example/p?q=1&amp;r=2 rel=nofollow>`,
	`<img src="http://pixel.example/t.gif" alt="alt.example" />`,
	`<a href="&#x68;ttp://ent.example">`,
	`<a href='mixed"quote.example'>`,
	`<a href="https://evil.test/dl?id=7&region=eu&copy=1&not&para;&times2&lt">`,
	`<a href="?a=1&amp;b=2&amp=3&ampx&#38;c&#x26;d&#0;&#xZZ;&;&">`,
	`<a href="&copyx; &semi; &copy &Aacute &NotEqualTilde; &notin &notit;">`,
	"<a href=\"x\r\ny\rz\x00\">",
}

func TestTagAttrsMatchesTheTokenizer(t *testing.T) {
	for _, doc := range attrCases {
		want, got := tokenizerAttrs(doc), ourAttrs(doc)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q:\n got %q\nwant %q", doc, got, want)
		}
	}
}

func FuzzTagAttrs(f *testing.F) {
	for _, doc := range attrCases {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		want, got := tokenizerAttrs(doc), ourAttrs(doc)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q:\n got %q\nwant %q", doc, got, want)
		}
	})
}

func TestHTMLTextDecodesReferences(t *testing.T) {
	got := htmlText(t, "<p>a &amp; b &lt;evil[.]example&gt; &#x31;98.51.100.1 caf&eacute;\r\nnext</p>")
	if want := "a & b <evil[.]example> 198.51.100.1 café\nnext"; !strings.Contains(got, want) {
		t.Errorf("got %q, want it to hold %q", got, want)
	}
}

// asciiLower lowers A-Z only, as the tokenizer does with names.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// oracleHTMLText is HTMLText as it was written on the tokenizer's own
// Text and TagAttr, which decode with x/net/html's entity table.
func oracleHTMLText(doc string) string {
	z := html.NewTokenizer(strings.NewReader(doc))
	var b []byte
	var hide hiding // what is left out is HTMLText's own rule
	for {
		switch z.Next() {
		case html.ErrorToken:
			return string(b)
		case html.TextToken:
			if !hide.hidden() {
				// NUL is dropped as a browser drops it (in title and raw
				// text the tokenizer made it U+FFFD already).
				b = append(b, bytes.ReplaceAll(z.Text(), []byte{0}, nil)...)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			hide.start(a)
			if !isInline(a) {
				b = append(b, '\n')
			}
			for hasAttr && a != atom.Link && a != atom.Base {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				if string(key) == "href" && !hide.hidden() {
					b = append(b, '\n')
					b = append(b, bytes.TrimSpace(val)...)
					b = append(b, '\n')
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			hide.end(a)
			if !isInline(a) {
				b = append(b, '\n')
			}
		}
	}
}

var docCases = []string{
	"<p>a &amp; b &lt;evil[.]example&gt; &#x31;98.51.100.1 caf&eacute;\r\nnext &copyx &notit; &region</p>",
	`<xmp>198.51.100&#46;1 &amp;</xmp><p>203.0.113&#46;5</p>`,
	"<iframe>a&amp;b\x00c</iframe><noscript>x&lt;y</noscript><noembed>&amp;</noembed><noframes>&amp;</noframes>",
	`<title>t &amp; 198.51.100.9</title><textarea>&lt;x&gt;</textarea><plaintext>&amp; to the end`,
	`<a href="https://evil.test/dl?id=7&region=eu&copy=1">link</a> <A HREF=x.example/>`,
	`<script>var a="&amp;"</script><style>p{}</style><template><a href="h.example">x</a></template>`,
	// the head is metadata, also without its end tag; link and base are
	// metadata wherever they are; NUL is dropped from text
	`<head><link rel=canonical href="https://canon.example/"><meta content="m.example"><title>t.example</title><body><p>ev` + "\x00" + `il.example</p><link rel=stylesheet href="https://css.example/">`,
	`<html><head><link rel=preconnect href="https://fonts.example"></head><body><a href="https://ok.example/x">x</a></body>`,
	// the page's nav, banner and footer are furniture; an article's are not
	`<header><a href="https://home.example/">h</a><nav><a href=n.example>n</a></nav>h.example</header><article><header>a.example</header><p>b.example</p><footer>c.example</footer></article><footer>f.example</footer>`,
	`<nav><nav>x.example</nav>y.example</nav><template><template>t.example</template>u.example</template><header>unclosed.example<main>m.example</main>`,
}

func TestHTMLTextMatchesTheTokenizer(t *testing.T) {
	for _, doc := range docCases {
		if got, want := htmlText(t, doc), oracleHTMLText(doc); got != want {
			t.Errorf("%q:\n got %q\nwant %q", doc, got, want)
		}
	}
}

func FuzzHTMLText(f *testing.F) {
	for _, doc := range append(docCases, attrCases...) {
		f.Add(doc)
	}
	// issue 39: NUL in a word of text, in a table, an attribute, after a CR
	f.Add("<p>evil-\x00nul.example</p><table>a\x00b.example<td>c\x00d.example</table>")
	f.Add("<a href='http://evil-\x00nul.example/x'>e\r\x00f.example</a><textarea>g\x00h.example</textarea>")
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := io.ReadAll(HTMLText(strings.NewReader(doc)))
		if err != nil {
			t.Skip()
		}
		if want := oracleHTMLText(doc); string(got) != want {
			t.Errorf("%q:\n got %q\nwant %q", doc, got, want)
		}
	})
}
