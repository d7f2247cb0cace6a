package triage

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
)

func TestNoiseReasons(t *testing.T) {
	s := &Skipper{Noise: true}
	for _, c := range []struct{ value, want string }{
		{"10.0.0.1", "private address"},
		{"172.16.5.4", "private address"},
		{"192.168.1.1", "private address"},
		{"fd00::1", "private address"},
		{"127.0.0.1", "loopback address"},
		{"::1", "loopback address"},
		{"169.254.169.254", "link-local address"},
		{"fe80::1", "link-local address"},
		{"100.64.0.1", "CGNAT address (shared address space)"},
		{"100.127.255.254", "CGNAT address (shared address space)"},
		{"224.0.0.251", "multicast address"},
		{"ff02::1", "multicast address"},
		{"240.1.2.3", "reserved address"},
		{"255.255.255.255", "reserved address"},
		{"0.0.0.0", "unspecified address"},
		{"::", "unspecified address"},
		{"::ffff:10.0.0.1", "private address"},
		{"http://10.0.0.1:8080/admin", "private address"},
		{"https://[fe80::1]/x", "link-local address"},
		// documentation ranges: the sandbox and many write-ups use them
		{"192.0.2.1", ""},
		{"198.51.100.7", ""},
		{"203.0.113.66", ""},
		{"2001:db8::1", ""},
		{"100.128.0.1", ""},
		{"8.8.8.8", ""},
		{"example.com", ""},
		{"44d88612fea8a8f36de82e1278abb02f", ""},
	} {
		if got := s.Reason(c.value, ioc.Detect(c.value)); got != c.want {
			t.Errorf("%s: %q, want %q", c.value, got, c.want)
		}
	}
	var none *Skipper
	if r := none.Reason("10.0.0.1", ioc.IPv4); r != "" {
		t.Errorf("nil skipper: %q", r)
	}
	if r := (&Skipper{}).Reason("10.0.0.1", ioc.IPv4); r != "" {
		t.Errorf("noise off: %q", r)
	}
}

func TestAllowlist(t *testing.T) {
	a, err := ReadAllowlist(strings.NewReader("\ufeff# ours\n203.0.113.0/24\n2001:db8::/32 # lab\n198.51.100.7\n*.corp.example\n.intra.example\nexample.org\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\nbilling[@]corp.example\n\n"), "allow.txt")
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() != 8 {
		t.Errorf("Len = %d, want 8", a.Len())
	}
	s := &Skipper{Allow: a}
	for _, c := range []struct{ value, want string }{
		{"203.0.113.66", "allowlist: 203.0.113.0/24"},
		{"2001:db8::bad", "allowlist: 2001:db8::/32"},
		{"198.51.100.7", "allowlist: 198.51.100.7"},
		{"198.51.100.8", ""},
		{"corp.example", "allowlist: *.corp.example"},
		{"a.b.corp.example", "allowlist: *.corp.example"},
		{"notcorp.example", ""},
		{"vpn.intra.example", "allowlist: .intra.example"},
		{"example.org", "allowlist: example.org"},
		{"www.example.org", "allowlist: example.org"},
		{"https://www.example.org/login", ""},
		{"https://www.example.org/", "allowlist: example.org"},
		{"https://www.example.org", "allowlist: example.org"},
		{"www.example.org/payload.zip", ""},
		{"https://www.example.org/?q=1", ""},
		{"http://203.0.113.9/x", "allowlist: 203.0.113.0/24"},
		{"someone@corp.example", "allowlist: *.corp.example"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "allowlist: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"example.com", ""},
	} {
		if got := s.Reason(c.value, ioc.Detect(c.value)); got != c.want {
			t.Errorf("%s: %q, want %q", c.value, got, c.want)
		}
	}
}

func TestAllowlistErrors(t *testing.T) {
	_, err := ReadAllowlist(strings.NewReader("192.0.2.0/24\n\nfree text here\n"), "a.txt")
	if err == nil || !strings.HasPrefix(err.Error(), "a.txt:3: ") || failure.ExitCode(err) != 2 {
		t.Errorf("err = %v", err)
	}
	_, err = LoadAllowlist(filepath.Join(t.TempDir(), "none.txt"))
	if err == nil || !strings.Contains(err.Error(), "none.txt: no such file or directory") || failure.ExitCode(err) != 2 {
		t.Errorf("missing file: %v", err)
	}
}

func TestWarninglists(t *testing.T) {
	w, err := LoadWarninglists("../../testdata/warninglists")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Names(), "|"); got != "EICAR test file hashes|List of known Microsoft domains|List of known IPv4 public DNS resolvers|List of known URL shorteners" {
		t.Errorf("names = %s", got)
	}
	if got := strings.Join(w.Ignored(), "|"); got != "Example regex list" {
		t.Errorf("ignored = %s", got)
	}
	s := &Skipper{Warn: w}
	for _, c := range []struct{ value, want string }{
		{"8.8.8.9", ""},
		{"microsoft.com", "warninglist: List of known Microsoft domains"},
		{"download.windowsupdate.com", "warninglist: List of known Microsoft domains"},
		{"https://login.live.com/x", ""},
		{"https://login.live.com/", "warninglist: List of known Microsoft domains"},
		{"microsoft.com.evil.example", ""},
		{"https://bit.ly/abc", "warninglist: List of known URL shorteners"},
		{"bit.ly", ""}, // a substring list for URLs does not apply to domains
		{"44d88612fea8a8f36de82e1278abb02f", "warninglist: EICAR test file hashes"},
		{"44D88612FEA8A8F36DE82E1278ABB02F", "warninglist: EICAR test file hashes"},
		{"a.internal", ""}, // regex lists are not evaluated
	} {
		if got := s.Reason(c.value, ioc.Detect(c.value)); got != c.want {
			t.Errorf("%s: %q, want %q", c.value, got, c.want)
		}
	}
	// A cidr list marks what its ranges hold and skips nothing: an
	// attacker's C2 sits in a datacenter range as often as not.
	const dns = "List of known IPv4 public DNS resolvers"
	for _, c := range []struct {
		value string
		marks []string
	}{
		{"8.8.8.8", []string{dns}},
		{"2001:4860:4860::8888", []string{dns}},
		{"http://8.8.8.8/x", []string{dns}},
		{"8.8.8.9", nil},
		{"microsoft.com", nil},
	} {
		v := s.Judge(c.value, ioc.Detect(c.value))
		if v.Skip != "" && len(c.marks) > 0 || !slices.Equal(v.Warninglists, c.marks) {
			t.Errorf("%s: %+v, want looked up and marked %q", c.value, v, c.marks)
		}
	}
	// The lists directory itself works as well as the checkout.
	if w2, err := LoadWarninglists("../../testdata/warninglists/lists"); err != nil || len(w2.Names()) != 4 {
		t.Errorf("lists dir: %v", err)
	}
}

func TestWarninglistsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadWarninglists(dir); err == nil || !strings.Contains(err.Error(), "expected lists/*/list.json") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := LoadWarninglists(filepath.Join(dir, "nope")); err == nil || failure.ExitCode(err) != 2 {
		t.Errorf("missing dir: %v", err)
	}
	bad := filepath.Join(dir, "lists", "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(bad, "list.json"), []byte(`{"name":"x","type":"glob","list":["a"]}`), 0o644)
	if _, err := LoadWarninglists(dir); err == nil || !strings.Contains(err.Error(), `unknown warning list type "glob"`) {
		t.Errorf("bad type: %v", err)
	}
	os.WriteFile(filepath.Join(bad, "list.json"), []byte(`{"name":`), 0o644)
	if _, err := LoadWarninglists(dir); err == nil || !strings.Contains(err.Error(), "is not a MISP warning list") {
		t.Errorf("bad JSON: %v", err)
	}
}

func htmlText(t *testing.T, doc string) string {
	t.Helper()
	b, err := io.ReadAll(HTMLText(strings.NewReader(doc)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHTMLTextKeepsTextAndHrefsOnly(t *testing.T) {
	got := htmlText(t, `<html><head><title>On 203.0.113.66</title>
<style>a { background: url(http://style.example/x.png) }</style>
<script>var ip = "198.51.100.99";</script><script src="https://cdn.example/x.js"></script></head>
<body><p>Sample <b>44d88612fea8a8f36de82e1278abb02f</b> &amp; <a href="https://evil.example/a?b=1&amp;c=2" title="t.example">link</a></p>
<img src="http://pixel.example/t.gif" alt="alt.example"><!-- 198.51.100.5 -->
<table><tr><td>one.example</td><td>two.example</td></tr></table>evil<span>.</span>example<br>x</body></html>`)
	for _, want := range []string{"44d88612fea8a8f36de82e1278abb02f &", "\nhttps://evil.example/a?b=1&c=2\n", "one.example\n", "evil.example\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, bad := range []string{"203.0.113.66", "198.51.100", "style.example", "cdn.example", "pixel.example", "alt.example", "t.example", "one.exampletwo"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q leaked into:\n%s", bad, got)
		}
	}
}

func TestHTMLTokenBound(t *testing.T) {
	doc := "<p>" + strings.Repeat("a", MaxHTMLToken+10)
	_, err := io.ReadAll(HTMLText(strings.NewReader(doc)))
	if !errors.Is(err, ErrHTMLToken) {
		t.Errorf("err = %v", err)
	}
	// A command's reader says what to do, as a mistake of the input's.
	_, err = io.ReadAll(OpenLazy(strings.NewReader(doc), "page.html", HTML, nil))
	if want := "cannot read the input: " + ErrHTMLToken.Error(); !errors.Is(err, ErrHTMLToken) || err.Error() != want || failure.KindOf(err) != failure.Input {
		t.Errorf("OpenLazy: %v (%s), want %q (%s)", err, failure.KindOf(err), want, failure.Input)
	}
}

func TestOpenSniffsHTML(t *testing.T) {
	page := "\n  <!DOCTYPE html><p>a.example</p><script>b.example</script>"
	for _, c := range []struct {
		name   string
		f      Format
		script bool
	}{
		{"page.dat", Auto, false}, {"-", Auto, false}, {"notes.txt", Text, true}, {"notes.txt", HTML, false},
	} {
		b, _ := io.ReadAll(Open(strings.NewReader(page), c.name, c.f, nil))
		if strings.Contains(string(b), "b.example") != c.script || !strings.Contains(string(b), "a.example") {
			t.Errorf("%s %s: %q", c.name, c.f, b)
		}
	}
	// A text that only mentions tags stays text, and so does a .txt name.
	b, _ := io.ReadAll(Open(strings.NewReader("see <b>x</b> and c.example"), "r.txt", Auto, nil))
	if string(b) != "see <b>x</b> and c.example" {
		t.Errorf("text read as %q", b)
	}
	// A name says HTML even when the start does not.
	b, _ = io.ReadAll(Open(strings.NewReader("hello <script>d.example</script>"), "r.HTM", Auto, nil))
	if strings.Contains(string(b), "d.example") {
		t.Errorf(".htm not read as HTML: %q", b)
	}
}

// An address block is never sent, whatever the skip rules (--no-skip is a
// nil Skipper), and neither is its network address: it is skipped whole.
func TestCIDRAlwaysSkipped(t *testing.T) {
	for _, s := range []*Skipper{nil, {}, {Noise: true}} {
		for _, v := range []string{"203.0.113.0/24", "10.0.0.0/8", "2001:db8::/32"} {
			typ := ioc.Detect(v)
			if typ != ioc.CIDR {
				t.Fatalf("Detect(%q) = %s", v, typ)
			}
			if got := s.Reason(v, typ); got != CIDRReason {
				t.Errorf("%+v: Reason(%q) = %q, want %q", s, v, got, CIDRReason)
			}
		}
	}
}

// The head is never read (issue 24): a <link> to a stylesheet, a canonical
// or a preconnect address is page furniture, not an indicator; the body's
// text and links are; a NUL inside a word is dropped, not a split.
func TestHTMLTextSkipsHead(t *testing.T) {
	got := htmlText(t, `<!DOCTYPE html><html><head><meta charset=utf-8>
<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Lato">
<link rel=canonical href="https://blog.example.com/post"><link rel=preconnect href="https://cdn.example.net">
<meta property="og:url" content="https://og.example.org/"><title>C2 at 198.51.100.9</title>
<body><p>C2: ev`+"\x00"+`il.example.com and <a href="https://dl.example.org/p.zip">the payload</a></p>
<link rel=stylesheet href="https://late.example/x.css"></body></html>`)
	for _, want := range []string{"evil.example.com", "\nhttps://dl.example.org/p.zip\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, bad := range []string{"googleapis", "blog.example.com", "cdn.example.net", "og.example.org", "198.51.100.9", "late.example"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q leaked into:\n%s", bad, got)
		}
	}
}

// A vendor's page (issue 38): its menu, banner and footer are the vendor's
// own links, not the report's indicators; the article's own header and
// footer, and the report's text, are read.
func TestHTMLTextSkipsFurniture(t *testing.T) {
	got := htmlText(t, `<!DOCTYPE html><html><head><title>Report</title></head><body>
<header class=site><a href="https://www.vendor.example/"><img alt=logo></a>
<nav><ul><li><a href="https://www.vendor.example/products">Products</a><li><a href="https://status.vendor.example/">Status</a></ul></nav>
Call us: sales@vendor.example</header>
<nav aria-label=breadcrumb><a href="https://www.vendor.example/blog">Blog</a></nav>
<main><article><header><h1>Campaign on c2.evil.example.com</h1></header>
<p>Beacons to 203.0.113.66 and <a href="https://dl.evil.example.org/p.zip">the payload</a>.</p>
<section><header>Appendix: 198.51.100.23</header></section>
<footer>Hash 44d88612fea8a8f36de82e1278abb02f</footer></article>
<aside><footer>related.example.net</footer></aside></main>
<footer><p>&copy; Vendor <a href="https://www.vendor.example/privacy">privacy</a> 198.51.100.250</p>
<nav><a href="https://twitter.example/vendor">follow</a></nav></footer>
<p>after.example.com</p></body></html>`)
	for _, want := range []string{"c2.evil.example.com", "203.0.113.66", "\nhttps://dl.evil.example.org/p.zip\n",
		"198.51.100.23", "44d88612fea8a8f36de82e1278abb02f", "related.example.net", "after.example.com"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, bad := range []string{"vendor.example", "198.51.100.250", "twitter.example"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q leaked into:\n%s", bad, got)
		}
	}
}

// The type table says which types are never searched: those are skipped
// even with --no-skip (a nil Skipper), and only those.
func TestUnsearchedTypesAreSkipped(t *testing.T) {
	var none *Skipper
	for _, r := range ioc.Types() {
		got := none.Reason(r.Example, r.Type)
		if (r.Strategy == "none") != (got == CIDRReason) {
			t.Errorf("%s (strategy %s): %q", r.Type, r.Strategy, got)
		}
	}
}
