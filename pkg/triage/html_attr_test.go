package triage

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
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
		out = append(out, asciiLower(string(k))+"="+string(unescape(v)))
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
		if strings.ContainsAny(doc, "&\x00\r") {
			t.Skip() // references and line ends are decoded by different tables
		}
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
