package ioc

import (
	"slices"
	"strings"
	"testing"
)

// TestExtractDefangRules pins the defangs read since issue 24 and the values
// that must never come out of them: a defang read so that a different real
// value appears, or a piece of a refused value reported on its own.
func TestExtractDefangRules(t *testing.T) {
	tests := []struct{ text, want string }{
		// [-] is a hyphen: never the domain after it.
		{"foo[-]bar.com", "domain foo-bar.com"},
		{"diota[-]ar.com/.well-known/x.pdf", "url diota-ar.com/.well-known/x.pdf"},
		{"- [-] done", ""},
		// Masked schemes.
		{"xxxx://example.com/test.php", "url http://example.com/test.php"},
		{"XxXxS://example.com/", "url https://example.com/"},
		{"xxxxx://example.com/a", "url https://example.com/a"},
		// Bracketed schemes.
		{"[http]://example.com/a", "url http://example.com/a"},
		{"(hxxps)://example.com/a", "url https://example.com/a"},
		{"https]://example.com", "url https://example.com"},
		// JSON's \/ and Markdown's \[.\].
		{`"u":"https:\/\/evil.example.com\/x.php"`, "url https://evil.example.com/x.php"},
		{`https://example.com\/test.php`, "url https://example.com/test.php"},
		{`hxxps://evil\[.\]example\[.\]com/x`, "url https://evil.example.com/x"},
		{`https://example\(.\)com/test\.html`, "url https://example.com/test.html"},
		// <.> and brackets that do not pair up around a dot.
		{"foo 1<.>1<.>1<.>1 bar.", "ipv4 1.1.1.1"},
		{"http://evil<.>example<.>com/x", "url http://evil.example.com/x"},
		{"a <.> b", ""},
		{"foo].[com www[.[example[.[com", "domain foo.com|domain www.example.com"},
		{"foo}.{com foo{.{com", "domain foo.com"},
		{"f(x).(y)", ""},
		// [:] inside an IPv6 address.
		{"2001:db8:bad:c0de[:]:66", "ipv6 2001:db8:bad:c0de::66"},
		{"2001[:]db8[:]bad[:]c0de[:]:66", "ipv6 2001:db8:bad:c0de::66"},
		{"x = a[:]", ""},
		// CVE written with a space; a leading service label.
		{"cve 2014-1001 and CVE 2999-1003.", "cve CVE-2014-1001|cve CVE-2999-1003"},
		{"xcve 2014-1001 cve 2014-10", ""},
		{"_jabber._tcp.gmail.com", "domain _jabber._tcp.gmail.com"},
		{"_evil.example.com_", "domain evil.example.com"},
		// A percent-encoded separator ends a host; its hex is no label.
		{"freasdfuewriter.com%2F", "domain freasdfuewriter.com"},
		{"%2Fhost.com", "domain host.com"},
		{"example.com/a%20b", "url example.com/a%20b"},
		// Pieces of a refused value are no indicators.
		{"tcp://a.a/test.com", ""},
		{"http://192,168,0,1", ""},
		{"--~Chttp://host.example.com/", ""},
		{"http://ok.example.com/,https://b.example.com/", "url http://ok.example.com/|url https://b.example.com/"},
		// An address block is a cidr, never a URL nor its network address.
		{"203.0.113.0/24.", "cidr 203.0.113.0/24"},
		{"block 203.0.113.0/24, 2001:DB8::/32.", "cidr 203.0.113.0/24|cidr 2001:db8::/32"},
		{"10.0.0.0/33 10.0.0.0/08 2001:db8::/129", ""},
		{"203.0.113.7/gate.php", "url 203.0.113.7/gate.php"},
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

func TestRefangDefangRules(t *testing.T) {
	tests := []struct{ in, want string }{
		{"foo[-]bar.com", "foo-bar.com"},
		{"xxxx://example.com", "http://example.com"},
		{"xxxxs://example.com", "https://example.com"},
		{"[https]://example.com", "https://example.com"},
		{`https:\/\/a.example\/b`, "https://a.example/b"},
		{`evil\[.\]example\[.\]com`, "evil.example.com"},
		{"1<.>1<.>1<.>1", "1.1.1.1"},
		{"foo].[com", "foo.com"},
		{"c0de[:]:66", "c0de::66"},
		// left alone
		{"a <.> b", "a <.> b"},
		{"[-] x", "[-] x"},
		{"x[:]", "x[:]"},
		{"a[http]://x", "a[http]://x"},
		{`a \/ b`, `a \/ b`},
	}
	for _, tt := range tests {
		if got := Refang(tt.in); got != tt.want {
			t.Errorf("Refang(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDetectCIDR(t *testing.T) {
	tests := []struct {
		in   string
		want Type
		norm string
	}{
		{"203.0.113.0/24", CIDR, "203.0.113.0/24"},
		{"10.0.0.1/8", CIDR, "10.0.0.1/8"},
		{"0.0.0.0/0", CIDR, "0.0.0.0/0"},
		{"2001:DB8:0::/32", CIDR, "2001:db8::/32"},
		{"203.0.113.0/33", URL, "203.0.113.0/33"},
		{"203.0.113.0/024", URL, "203.0.113.0/024"},
		{"2001:db8::/129", Unknown, "2001:db8::/129"},
	}
	for _, tt := range tests {
		got := Detect(tt.in)
		if got != tt.want {
			t.Errorf("Detect(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if n := Normalize(tt.in, got); n != tt.norm {
			t.Errorf("Normalize(%q, %s) = %q, want %q", tt.in, got, n, tt.norm)
		}
	}
	if d := Defang("203.0.113.0/24", CIDR); Refang(d) != "203.0.113.0/24" || d == "203.0.113.0/24" {
		t.Errorf("Defang(cidr) = %q", d)
	}
}

func TestURLHost(t *testing.T) {
	for _, c := range []struct {
		url, host string
		typ       Type
	}{
		{"https://EVIL.example.com/x", "evil.example.com", Domain},
		{"http://198.51.100.7:8080/gate.php", "198.51.100.7", IPv4},
		{"http://[2001:DB8::1]/x", "2001:db8::1", IPv6},
		{"evil.example.com/x.php", "evil.example.com", Domain},
		{"198.51.100.7/gate.php", "198.51.100.7", IPv4},
		{"http://intranet/x", "", Unknown},
		{"https://user@Evil.example.net:443/", "evil.example.net", Domain},
	} {
		h, typ := URLHost(c.url)
		if h != c.host || typ != c.typ {
			t.Errorf("URLHost(%q) = %q, %s; want %q, %s", c.url, h, typ, c.host, c.typ)
		}
	}
}

// With URLHosts, each URL's host follows it, marked with the URL, once:
// a host already reported gives nothing, and a later mention of one taken
// from a URL is a repeat.
func TestExtractURLHosts(t *testing.T) {
	text := "see https://evil.example.com/x and evil.example.com,\n" +
		"http://198.51.100.7:8080/a then example.org and https://example.org/p http://intranet/x"
	text = strings.ReplaceAll(text, "\\n", "\n")
	want := []Indicator{
		{Value: "https://evil.example.com/x", Type: URL},
		{Value: "evil.example.com", Type: Domain, FromURL: "https://evil.example.com/x"},
		{Value: "http://198.51.100.7:8080/a", Type: URL},
		{Value: "198.51.100.7", Type: IPv4, FromURL: "http://198.51.100.7:8080/a"},
		{Value: "example.org", Type: Domain},
		{Value: "https://example.org/p", Type: URL},
		{Value: "http://intranet/x", Type: URL},
	}
	var got []Indicator
	err := Extract(strings.NewReader(text), ExtractOptions{URLHosts: true}, func(in Indicator) error {
		got = append(got, in)
		return nil
	})
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Extract = %v, %v\nwant %v", got, err, want)
	}
	got = nil
	_ = ExtractReader(strings.NewReader(text), nil, func(in Indicator) error {
		got = append(got, in)
		return nil
	})
	if len(got) != 6 {
		t.Errorf("without URLHosts: %v", got)
	}
}

// Invisible format characters inside a word are dropped before extraction,
// as detect drops them from a value (issue 28: "ev\u200bil1.example" gave
// il1.example); next to a space they separate nothing and stay.
func TestExtractDropsInvisibleInWords(t *testing.T) {
	tests := []struct{ text, want string }{
		{"ev\u200bil1.example", "domain evil1.example"},
		{"ma\u00adlware.example.com", "domain malware.example.com"},
		{"198.51\u2060.100.7", "ipv4 198.51.100.7"},
		{"44d88612fea8a8f3\u200c6de82e1278abb02f", "md5 44d88612fea8a8f36de82e1278abb02f"},
		{"hxxps://evil\u200d[.]example.com/\ufeffx", "url https://evil.example.com/x"},
		{"a.example\u200b b.example", "domain a.example|domain b.example"},
		{"x\u200b\u00ad\u2060y.example.com", "domain xy.example.com"},
	}
	for _, tt := range tests {
		var got []string
		for _, in := range extractAll([]byte(tt.text)) {
			got = append(got, string(in.Type)+" "+in.Value)
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("Extract(%q) = %q, want %q", tt.text, g, tt.want)
		}
		if v, _, err := Prepare(strings.ReplaceAll(tt.text, " ", ""), true); err == nil && strings.ContainsAny(v, invisibles) {
			t.Errorf("Prepare(%q) kept an invisible character: %q", tt.text, v)
		}
	}
}
