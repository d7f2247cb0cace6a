package ioc

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
)

// pastedCases are values as an analyst copies them, with what search and
// detect make of them.
var pastedCases = []struct {
	in, value string
	t         Type
}{
	{"44d88612fea8a8f36de82e1278abb02f,", "44d88612fea8a8f36de82e1278abb02f", MD5},
	{`"203.0.113.66"`, "203.0.113.66", IPv4},
	{"'203.0.113.66',", "203.0.113.66", IPv4},
	{"CVE-2021-44228.", "CVE-2021-44228", CVE},
	{"'CVE-2021-44228.'", "CVE-2021-44228", CVE},
	{`"cve-2021-44228".`, "CVE-2021-44228", CVE},
	{"`evil.example.com`", "evil.example.com", Domain},
	{"“evil.example.com”", "evil.example.com", Domain},
	{"(evil.example.com)", "evil.example.com", Domain},
	{"(evil.example.com", "evil.example.com", Domain},
	{"evil.example.com);", "evil.example.com", Domain},
	{"[evil.example.com]", "evil.example.com", Domain},
	{"<https://evil.example.com/x>", "https://evil.example.com/x", URL},
	{"<user@example.com>", "user@example.com", Email},
	{"https://en.wikipedia.org/wiki/Foo_(bar)", "https://en.wikipedia.org/wiki/Foo_(bar)", URL},
	{"(https://en.wikipedia.org/wiki/Foo_(bar))", "https://en.wikipedia.org/wiki/Foo_(bar)", URL},
	{"https://evil.example.com/x.", "https://evil.example.com/x", URL},
	{"https://evil.example.com/x)", "https://evil.example.com/x", URL},
	{"login-update.example.net/", "login-update.example.net", Domain},
	{"203.0.113.66/", "203.0.113.66", IPv4},
	{"login-update.example.net/path", "login-update.example.net/path", URL},
	{"https://login-update.example.net/", "https://login-update.example.net/", URL},
	{"203.0.113[.]66:8080", "203.0.113.66", IPv4},
	{"evil[.]example[.]com:443", "evil.example.com", Domain},
	{"[2001:db8::1]:443", "2001:db8::1", IPv6},
	{"[2001:db8::1]", "2001:db8::1", IPv6},
	{"2001:db8::", "2001:db8::", IPv6},
	{"2001:db8::1.", "2001:db8::1", IPv6},
	{"198.51.100.7:8080/", "198.51.100.7", IPv4},
	{"invoice.pdf", "invoice.pdf", Unknown},
	{"update.zip", "update.zip", Unknown},
	{"update[.]zip", "update.zip", Domain},
	{"hxxps://update[.]zip/x", "https://update.zip/x", URL},
	{"\t44d88612fea8a8f36de82e1278abb02f\t", "44d88612fea8a8f36de82e1278abb02f", MD5},
	{"https://a.example/secure\tlogin", "https://a.example/secure\tlogin", Unknown},
	{"https://a.example/secure login", "https://a.example/secure login", URL},
	{"user [at] example [dot] com", "user@example.com", Email},
	{"https://snippet.host/uikosx/raw|", "https://snippet.host/uikosx/raw", URL},
	{"|evil.example.com|", "evil.example.com", Domain},
	// AsciiDoc's passthrough (ESET's IoC pages): the "++" pair goes, a '+'
	// inside or at the end of a URL nothing opened stays.
	{"`++http://get.adobe[.]com/flashplayer/download/update/x32++`", "http://get.adobe.com/flashplayer/download/update/x32", URL},
	{"++https://a.example/c++++", "https://a.example/c++", URL},
	{"++https://a.example/x.++", "https://a.example/x", URL},
	{"++evil.example.com++", "evil.example.com", Domain},
	{"++198.51.100.7++", "198.51.100.7", IPv4},
	{"https://a.example/c++", "https://a.example/c++", URL},
	{"https://a.example/?q=a+b", "https://a.example/?q=a+b", URL},
	{"APT28 infrastructure", "APT28 infrastructure", Unknown},
	{`""`, `""`, Unknown},
	{"...", "...", Unknown},
}

func TestPreparePasted(t *testing.T) {
	for _, tt := range pastedCases {
		wantPrepared(t, tt.in, tt.value, tt.t)
	}
}

func wantPrepared(t *testing.T, in, value string, typ Type) {
	t.Helper()
	v, got, err := Prepare(in, true)
	if err != nil || v != value || got != typ {
		t.Errorf("Prepare(%q) = %q, %s, %v; want %q, %s", in, v, got, err, value, typ)
	}
}

// TestPastedAgreesWithExtract pins the "one set of rules": an indicator
// pasted alone is what extract finds in the same text.
// missingColonCases are URLs typed without their scheme's colon: read as
// URLs only when the word is http(s) and the host a real one, pasted alone
// or in free text (TestExtractMissingColon).
var missingColonCases = []struct {
	in, value string
	t         Type
}{
	{"http//www.msap.services/2bKr8Z", "http://www.msap.services/2bKr8Z", URL},
	{"HTTPS//evil.example.com", "https://evil.example.com", URL},
	{"hxxps//evil[.]example[.]com/x", "https://evil.example.com/x", URL},
	{"http//203.0.113.66:8080/x", "http://203.0.113.66:8080/x", URL},
	{"http//intranet/x", "http//intranet/x", Unknown},
	{"http//a!b.example/x", "http//a!b.example/x", Unknown},
	{"ftp//files.example.com/x", "ftp//files.example.com/x", Unknown},
	{"path//evil.example.com/x", "path//evil.example.com/x", Unknown},
}

func TestPrepareMissingColon(t *testing.T) {
	for _, tt := range missingColonCases {
		wantPrepared(t, tt.in, tt.value, tt.t)
		// --no-refang takes the value as given: no repair either.
		if v, _, _ := Prepare(tt.in, false); v != tt.in {
			t.Errorf("Prepare(%q, no refang) = %q, want it as given", tt.in, v)
		}
	}
}

// TestExtractMissingColon: extract reads a scheme that lost its colon by
// the pasted value's rule, wherever the word stands in a sentence, and
// makes no URL of what that rule refuses, nor of prose that merely
// mentions a scheme (a schemeless URL after the "//" is another rule's).
func TestExtractMissingColon(t *testing.T) {
	for _, tt := range missingColonCases {
		for _, text := range []string{tt.in, "seen at " + tt.in + ". Then", "(" + tt.in + ")", "- " + tt.in + ","} {
			var urls []string // with a scheme: what the rule may make
			for _, in := range extractAll([]byte(text)) {
				if in.Type == URL && strings.Contains(in.Value, "://") {
					urls = append(urls, in.Value)
				}
			}
			want := []string(nil)
			if tt.t == URL {
				want = []string{tt.value}
			}
			if !slices.Equal(urls, want) {
				t.Errorf("extract %q: URLs %q, want %q", text, urls, want)
			}
		}
	}
	for _, text := range []string{"see http// now", "http//", "hxxp// example.com", "http///a.example/x", "a http//:8080/x"} {
		for _, in := range extractAll([]byte(text)) {
			if in.Type == URL {
				t.Errorf("extract %q: URL %q invented", text, in.Value)
			}
		}
	}
}

func TestPastedAgreesWithExtract(t *testing.T) {
	for _, tt := range pastedCases {
		if strings.ContainsAny(tt.in, " \t") {
			continue // extraction cuts at white space by design
		}
		got := extractAll([]byte(tt.in))
		switch {
		case tt.t == Unknown && len(got) != 0:
			t.Errorf("extract(%q) = %v, but Prepare finds no indicator", tt.in, got)
		case tt.t != Unknown && (len(got) != 1 || got[0] != Indicator{Value: tt.value, Type: tt.t}):
			t.Errorf("extract(%q) = %v, but Prepare gives %s %q", tt.in, got, tt.t, tt.value)
		}
	}
}

func TestPrepareSeveralIndicators(t *testing.T) {
	tests := []struct{ in, msg string }{
		{"203.0.113.66 198.51.100.1", "the value holds several indicators (203.0.113.66, 198.51.100.1); give each as its own value, or pipe the text to 'tilookup extract'"},
		{"203.0.113.66\t198.51.100.1", "the value holds several indicators (203.0.113.66, 198.51.100.1); give each as its own value, or pipe the text to 'tilookup extract'"},
		{"203.0.113.66\n198.51.100.1\n", "the value holds several indicators (203.0.113.66, 198.51.100.1); give each as its own value, or pipe the text to 'tilookup extract'"},
		{"a.example.com, b.example.com c.example.com d.example.com", "the value holds several indicators (a.example.com, b.example.com, c.example.com, …); give each as its own value, or pipe the text to 'tilookup extract'"},
		{"hxxp://a[.]example/x hxxp://b[.]example/y", "the value holds several indicators (http://a.example/x, http://b.example/y); give each as its own value, or pipe the text to 'tilookup extract'"},
		{"1.2.3.4,5.6.7.8", "the value holds several indicators (1.2.3.4, 5.6.7.8); give each as its own value, or pipe the text to 'tilookup extract'"},
		{"evil[.]example;bad[.]example", "the value holds several indicators (evil.example, bad.example); give each as its own value, or pipe the text to 'tilookup extract'"},
	}
	for _, tt := range tests {
		for _, refang := range []bool{true, false} {
			v, typ, err := Prepare(tt.in, refang)
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Kind != failure.Input || err.Error() != tt.msg || v != "" || typ != Unknown {
				t.Errorf("Prepare(%q, %v) = %q, %s, %v; want input error %q", tt.in, refang, v, typ, err, tt.msg)
			}
		}
	}
	// A URL whose path or query holds a comma is one value.
	for _, in := range []string{"https://a.example/x?ids=1,2", "https://a.example/p;q=1,2"} {
		if v, typ, err := Prepare(in, true); err != nil || typ != URL || v != in {
			t.Errorf("Prepare(%q) = %q, %s, %v; want the URL", in, v, typ, err)
		}
	}
	// One indicator and words, or one on a line of its own, is no such error.
	if _, _, err := Prepare("a.example.com\nnotes", true); err == nil || !strings.Contains(err.Error(), "control character") {
		t.Errorf("one indicator over two lines: %v, want the control character error", err)
	}
}

// TestPrepareCleanValuesDoNotAllocate guards bulk search, which prepares
// every line: a value that needs no change costs no allocation.
func TestPrepareCleanValuesDoNotAllocate(t *testing.T) {
	for _, v := range []string{"44d88612fea8a8f36de82e1278abb02f", "203.0.113.66", "login-update.example.net", "https://verify-check.example/login", "CVE-2021-44228"} {
		if n := testing.AllocsPerRun(100, func() { _, _, _ = Prepare(v, true) }); n != 0 {
			t.Errorf("Prepare(%q): %v allocations", v, n)
		}
	}
}

func BenchmarkPrepare(b *testing.B) {
	inputs := []string{"44d88612fea8a8f36de82e1278abb02f", "203.0.113[.]66:8080", "\"login-update.example.net/\"", "https://verify-check.example/login", "CVE-2021-44228."}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range inputs {
			if _, _, err := Prepare(s, true); err != nil {
				b.Fatal(err)
			}
		}
	}
}
