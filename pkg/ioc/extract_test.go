package ioc

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/extract/*.want from the current output")

// TestExtractDocuments compares the extraction of each realistic document
// in testdata/extract with its .want file (lines "type<TAB>value").
func TestExtractDocuments(t *testing.T) {
	docs, err := filepath.Glob("testdata/extract/*.txt")
	if err != nil || len(docs) < 15 {
		t.Fatalf("want at least 15 documents, found %d (%v)", len(docs), err)
	}
	for _, doc := range docs {
		name := strings.TrimSuffix(filepath.Base(doc), ".txt")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(doc)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			for _, in := range extractAll(text) {
				got.WriteString(string(in.Type) + "\t" + in.Value + "\n")
			}
			wantFile := strings.TrimSuffix(doc, ".txt") + ".want"
			if *update {
				if err := os.WriteFile(wantFile, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("extraction differs from %s\n--- got\n%s--- want\n%s", wantFile, got.String(), want)
			}
		})
	}
}

func TestExtractInvariants(t *testing.T) {
	docs, _ := filepath.Glob("testdata/extract/*.txt")
	for _, doc := range docs {
		text, _ := os.ReadFile(doc)
		all := extractAll(text)
		checkExtracted(t, all)

		var streamed []Indicator
		err := ExtractReader(bytes.NewReader(text), nil, func(in Indicator) error {
			streamed = append(streamed, in)
			return nil
		})
		if err != nil || !slices.Equal(streamed, all) {
			t.Errorf("%s: ExtractReader differs from extractText: %v", doc, err)
		}

		var ips []Indicator
		_ = ExtractReader(bytes.NewReader(text), []Type{IPv4, IPv6}, func(in Indicator) error {
			ips = append(ips, in)
			return nil
		})
		want := slices.DeleteFunc(slices.Clone(all), func(in Indicator) bool { return in.Type != IPv4 && in.Type != IPv6 })
		if !slices.Equal(ips, want) {
			t.Errorf("%s: filtered extraction = %v, want %v", doc, ips, want)
		}
	}
}

// extractAll is the extraction of text on one goroutine, a line at a time:
// the reference that ExtractReader's blocks and workers must agree with.
func extractAll(text []byte) []Indicator {
	var out []Indicator
	_ = extractText(text, func(in Indicator) error {
		out = append(out, in)
		return nil
	})
	return out
}

// checkExtracted holds for any extraction: values are unique, non-empty and
// Detect to the type they are reported with, and are already normalized.
func checkExtracted(t *testing.T, all []Indicator) {
	t.Helper()
	seen := map[string]bool{}
	for _, in := range all {
		if in.Value == "" || seen[in.Value] {
			t.Errorf("empty or repeated value %q", in.Value)
		}
		seen[in.Value] = true
		if got := Detect(in.Value); got != in.Type {
			t.Errorf("extracted %s %q, but Detect says %s", in.Type, in.Value, got)
		}
		if n := Normalize(in.Value, in.Type); n != in.Value {
			t.Errorf("extracted %q is not normalized (%q)", in.Value, n)
		}
	}
}

func TestExtractCases(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", ""},
		{"nothing to see here.", ""},
		{"go to example.com.", "domain example.com"},
		{"(example.com)", "domain example.com"},
		{"example.com, example.org; example.net!", "domain example.com|domain example.org|domain example.net"},
		{"EXAMPLE.com and example.COM", "domain example.com"},
		{"mail user@example.com now", "email user@example.com"},
		{"https://example.com/x and example.com", "url https://example.com/x|domain example.com"},
		{"[a](https://example.com/a)", "url https://example.com/a"},
		{"<https://example.com/b>", "url https://example.com/b"},
		{`<a href="https://example.com/c">x</a>`, "url https://example.com/c"},
		{"see https://en.wikipedia.org/wiki/Foo_(bar).", "url https://en.wikipedia.org/wiki/Foo_(bar)"},
		{"(https://example.com/d)", "url https://example.com/d"},
		// AsciiDoc's url[text] (ESET's IOC files): a '[' no ']' closes
		// in the word starts link text; one that closes stays.
		{"campaign https://www.recordedfuture.com/reddelta/[documented by Recorded Future].", "url https://www.recordedfuture.com/reddelta/"},
		{"https://example.com/wiki/A_[b] and https://example.com/x[", "url https://example.com/wiki/A_[b]|url https://example.com/x"},
		// AsciiDoc's passthrough: the "++" that closes the one before the
		// URL goes; a URL nothing opened keeps its "++".
		{"|`++http://get.adobe[.]com/flashplayer/download/update/x32++` |", "url http://get.adobe.com/flashplayer/download/update/x32"},
		{"++hxxp//evil[.]example/x++ and https://a.example/c++", "url http://evil.example/x|url https://a.example/c++"},
		// Detection names in a report's file table: no domain, unless
		// defanged; what else is there is still found.
		{"|`69AB6B9906F8DCE03B43BEBB7A07189A69DC507B` |N/A |Win32/Korplug.TC |Decrypted Korplug", "sha1 69ab6b9906f8dce03b43bebb7a07189a69dc507b"},
		{"HTML/Phishing.Agent.CC Trojan:Win32/Emotet.PK MSIL/Agent.BC", ""},
		{"c2/evil[.]com and ids/198.51.100.7", "domain evil.com|ipv4 198.51.100.7"},
		{"evil.com/x.tc", "url evil.com/x.tc"},
		{"https://example.com/e?a=1,b", "url https://example.com/e?a=1"},
		{"invoice.pdf setup.exe payload.dll script.js", ""},
		{"update.zip update[.]zip", "domain update.zip"},
		{"version 1.2.3.4 and 5.6.7.8", "ipv4 5.6.7.8"},
		{"v1.2.3.4", ""},
		{"Version: 1.2.3.4", ""},
		{"10.0.0.0/8", "cidr 10.0.0.0/8"},
		{"198.51.100.7:8080", "ipv4 198.51.100.7"},
		{"example.com:443", "domain example.com"},
		{"198.51.100.7/gate.php", "url 198.51.100.7/gate.php"},
		{"open login-update.example.net/ and 198.51.100.7:8080/.", "domain login-update.example.net|ipv4 198.51.100.7"},
		{"example.com/path?q=1#f", "url example.com/path?q=1#f"},
		{"CVE-2021-44228.", "cve CVE-2021-44228"},
		{"cve-2021-44228 CVE-2021-44228", "cve CVE-2021-44228"},
		{strings.Repeat("a", 30) + "1", ""},
		{strings.Repeat("a", 30) + "1 " + strings.Repeat("b1", 16), "md5 " + strings.Repeat("b1", 16)},
		{strings.Repeat("a1", 16) + "a", ""},
		{"::ffff:192.0.2.1 ::1", "ipv6 ::ffff:192.0.2.1"},
		{`<a href="http://x.example.com/?a=1&amp;b=2">`, "url http://x.example.com/?a=1&b=2"},
		{"z" + strings.Repeat("a1", 16), ""},
		{"md5=" + strings.Repeat("A1", 16), "md5 " + strings.Repeat("a1", 16)},
		{"2001:db8::1 [2001:db8::2]", "ipv6 2001:db8::1|ipv6 2001:db8::2"},
		{"std::string Foo::Bar", ""},
		{"user@example.com/path", "email user@example.com"},
		// A refused address (masked, or with a local part no address has)
		// gives nothing: not its domain, not the tail of its local part.
		{"t****.h******@yahoo.com k*********.r*******@outlook.com", ""},
		{"****@yahoo.com a*b@yahoo.com a..b@yahoo.com -@yahoo.com !@yahoo.com Grüße@example.com", ""},
		// RFC 5322's atext in a local part is the address's, whole; quotes
		// and a key before '=' around it are not.
		{"o'brien@example.com us!er@example.org a#b@example.net", "email o'brien@example.com|email us!er@example.org|email a#b@example.net"},
		// A table's cells, a path, inline code: what parts words is no
		// local part's (an AsciiDoc table of certificates gave 10|admin@).
		{"|05/02/2002 17:36:10|admin@solidloop.org valid|", "email admin@solidloop.org"},
		{"sales/support@example.com {{x}}{y@example.net code`z@example.org", "email support@example.com|email y@example.net|email z@example.org"},
		{"'user@example.com' `u2@example.com` smtp.mailfrom=u3@example.com", "email user@example.com|email u2@example.com|email u3@example.com"},
		// A host glued to a word by a byte no host holds is none.
		{"a@ya*hoo.com ya!hoo.com x'evil.example.com a^b.example.com x*1.2.3.4", ""},
		{"*.example.com #evil.example.net evil.example.org's", "domain example.com|domain evil.example.net|domain evil.example.org"},
		{"mailto:a@example.com email=b@example.com (c@example.com) @d.example", "email a@example.com|email b@example.com|email c@example.com|domain d.example"},
		{"root@198.51.100.7 .!@..1.1.1.1!@#-", "ipv4 198.51.100.7|ipv4 1.1.1.1"},
		{"evil.com\nevil.com", "domain evil.com"},
		{"“quoted.example.com”", "domain quoted.example.com"},
		{"hxxp://evil[.]example[.]com/x\r\n", "url http://evil.example.com/x"},
	}
	for _, tt := range tests {
		var got []string
		for _, in := range extractAll([]byte(tt.text)) {
			got = append(got, string(in.Type)+" "+in.Value)
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("Extract(%q) = %q, want %q", tt.text, g, tt.want)
		}
	}
}

func TestExtractReaderStopsOnError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := ExtractReader(strings.NewReader("a.example.com b.example.com c.example.com"), nil, func(Indicator) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("ExtractReader = %v after %d calls, want stop after 1", err, n)
	}
}

func TestExtractReaderLongLine(t *testing.T) {
	// A line longer than maxLine is cut at white space, not lost.
	var b strings.Builder
	for b.Len() < 3*maxLine {
		b.WriteString("filler words without anything ")
	}
	b.WriteString("tail.example.com")
	var got []Indicator
	err := ExtractReader(strings.NewReader(b.String()), nil, func(in Indicator) error {
		got = append(got, in)
		return nil
	})
	if err != nil || len(got) != 1 || got[0].Value != "tail.example.com" {
		t.Errorf("got %v, %v", got, err)
	}
}

// TestShortSettled holds shortSettled to labelWord: a short label token it
// settles is one that labelWord finds nothing in. The words are random
// short runs of letters, digits, '.', '-' and '_', with TLDs, file
// extensions and addresses among them.
func TestShortSettled(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "b", "x", "co", "g", "e", "com", "net", "ru", "pdf", "exe", "zip", "xn--p1ai",
		"onion", "io", "1", "2", "10", "255", "0", "01", ".", ".", ".", "-", "_", "Z", "AbC", "q9"}
	e := newExtractor(nil)
	isKnownTLD("com") // the tables built, as in a run
	settled := 0
	for range 200000 {
		var b []byte
		for n := 1 + r.IntN(9); n > 0; n-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		if len(b) >= e.minWord {
			continue
		}
		if !shortSettled(b) {
			continue
		}
		settled++
		e.l, e.marks, e.found, e.vals = b, e.marks[:0], e.found[:0], e.vals[:0]
		e.labelWord(0, len(b), sPunct|sJoin)
		if len(e.found) > 0 {
			t.Fatalf("shortSettled(%q) is true, but labelWord finds %q", b, e.vals)
		}
	}
	if settled == 0 {
		t.Fatal("no word was settled")
	}
}
