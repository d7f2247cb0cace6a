package ioc

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
)

func TestRefang(t *testing.T) {
	tests := []struct{ in, want string }{
		// schemes
		{"hxxp://example.com", "http://example.com"},
		{"hxxps://example.com", "https://example.com"},
		{"hXXp://example.com", "http://example.com"},
		{"HXXPS://example.com", "https://example.com"},
		{"hXxPs://example.com", "https://example.com"},
		{"h**p://example.com", "http://example.com"},
		{"h__ps://example.com", "https://example.com"},
		{"hxtp://example.com", "http://example.com"},
		{"htxps://example.com", "https://example.com"},
		{"fxp://files.example.com", "ftp://files.example.com"},
		{"FXP://files.example.com", "ftp://files.example.com"},
		{"fxps://files.example.com", "ftps://files.example.com"},
		{"sfxp://files.example.com", "sftp://files.example.com"},
		{"hxxp[:]//example.com", "http://example.com"},
		{"hxxps[://]example.com", "https://example.com"},
		{"hxxps[:/]example.com", "https://example.com"},
		{"http[:]//example.com", "http://example.com"},
		{"https:\\\\example.com\\a\\b.php", "https://example.com/a/b.php"},
		{"hxxp:\\\\198.51.100.7\\x", "http://198.51.100.7/x"},
		{"http:__example.com", "http://example.com"},
		{"hxxps://evil[.]example[.]com/x", "https://evil.example.com/x"},
		// dots
		{"example[.]com", "example.com"},
		{"example(.)com", "example.com"},
		{"example{.}com", "example.com"},
		{"example[dot]com", "example.com"},
		{"example(dot)com", "example.com"},
		{"example{dot}com", "example.com"},
		{"example[DOT]com", "example.com"},
		{"example[ . ]com", "example.com"},
		{"example[.)com", "example.com"},
		{"example [.] com", "example.com"},
		{"example [dot] com", "example.com"},
		{"example\\.com", "example.com"},
		{"example[.com", "example.com"},
		{"example.]com", "example.com"},
		{"example . com", "example.com"},
		{"evil . example . com", "evil.example.com"},
		{"example。com", "example.com"},
		{"example．com", "example.com"},
		{"example｡com", "example.com"},
		{"198.51.100[.]7", "198.51.100.7"},
		{"198[.]51[.]100[.]7", "198.51.100.7"},
		{"198(.)51(.)100(.)7", "198.51.100.7"},
		{"1[,]2[,]3[,]4", "1.2.3.4"},
		// at
		{"user[@]example.com", "user@example.com"},
		{"user(@)example.com", "user@example.com"},
		{"user{@}example.com", "user@example.com"},
		{"user[at]example.com", "user@example.com"},
		{"user(at)example.com", "user@example.com"},
		{"user[AT]example[DOT]com", "user@example.com"},
		{"user [at] example [dot] com", "user@example.com"},
		{"first.last [@] example.org", "first.last@example.org"},
		// colon and slash
		{"example.com[:]8080", "example.com:8080"},
		{"http://example.com[/]path", "http://example.com/path"},
		{"http://example.com(/)path", "http://example.com/path"},
		{"hxxp[:]//example[.]com[/]a[.]php", "http://example.com/a.php"},
		// nested and mixed
		{"[[.]]", "."},
		{"hxxps[:]//user[@]evil[.]example[.]com:8443/login", "https://user@evil.example.com:8443/login"},
		// never defanged: unchanged
		{"", ""},
		{"example.com", "example.com"},
		{"https://example.com/a?b=c#d", "https://example.com/a?b=c#d"},
		{"http://[2001:db8::1]:8080/", "http://[2001:db8::1]:8080/"},
		{"[2001:db8::1]", "[2001:db8::1]"},
		{"a[:]", "a[:]"},
		{"x = a[:]", "x = a[:]"},
		{"meet me (at) noon", "meet me (at) noon"},
		{"and (/) or", "and (/) or"},
		{"done . Then we left", "done . Then we left"},
		{"version 2 . 0", "version 2 . 0"},
		{"C:\\Windows\\System32", "C:\\Windows\\System32"},
		{"http", "http"},
		{"hxxp", "hxxp"},
		{"The (.NET) runtime", "The (.NET) runtime"},
		{"list[0]", "list[0]"},
		{"東京。今日", "東京。今日"},
		{"mailto:user@example.com", "mailto:user@example.com"},
		{"50 per cent (approx.)", "50 per cent (approx.)"},
		{"(see above).", "(see above)."},
		{"shhttp://x", "shhttp://x"},
	}
	for _, tt := range tests {
		if got := Refang(tt.in); got != tt.want {
			t.Errorf("Refang(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Refang(tt.want); tt.in != tt.want && Refang(Refang(tt.in)) != Refang(tt.in) {
			t.Errorf("Refang not idempotent on %q: %q", tt.in, got)
		}
	}
}

func TestRefangDoesNotAllocateWhenUnchanged(t *testing.T) {
	for _, s := range []string{"https://www.example.com/path?q=1", "example.com", "44d88612fea8a8f36de82e1278abb02f", "(see above)"} {
		if n := testing.AllocsPerRun(100, func() { Refang(s) }); n != 0 {
			t.Errorf("Refang(%q) allocates %v times", s, n)
		}
	}
}

func TestDetect(t *testing.T) {
	h32 := strings.Repeat("a1", 16)
	tests := []struct {
		in   string
		want Type
	}{
		// a pasted URL with a scheme keeps spaces in its path and query
		{"https://login-update.example.net/secure login/verify.php?acct=42&ref=mail%20link#step 2", URL},
		{"https://a.example/x y", URL},
		{"https://a b.example/x", Unknown},
		{"https://a.example/x\ty", Unknown},
		{"a.example/x y", Unknown},
		// hashes
		{h32, MD5},
		{strings.ToUpper(h32), MD5},
		{strings.Repeat("0", 40), SHA1},
		{strings.Repeat("f", 64), SHA256},
		{strings.Repeat("AbCdEf", 10) + "0123", SHA256},
		{strings.Repeat("9", 128), SHA512},
		{strings.Repeat("a", 31), Unknown},
		{strings.Repeat("a", 33), Unknown},
		{strings.Repeat("a", 63), Unknown},
		{strings.Repeat("a", 65), Unknown},
		{strings.Repeat("a", 127), Unknown},
		{strings.Repeat("a", 129), Unknown},
		{strings.Repeat("g", 32), Unknown},
		{strings.Repeat("a", 31) + "g", Unknown},
		// ipv4
		{"198.51.100.7", IPv4},
		{"0.0.0.0", IPv4},
		{"255.255.255.255", IPv4},
		{"10.0.0.1", IPv4},
		{"999.1.1.1", Unknown},
		{"256.1.1.1", Unknown},
		{"1.2.3", Unknown},
		{"1.2.3.4.5", Unknown},
		{"01.2.3.4", Unknown},
		{"010.001.002.003", Unknown},
		{"1.2.3.", Unknown},
		{".1.2.3", Unknown},
		{"1..2.3", Unknown},
		{"1.2.3.4a", Unknown},
		{"1234.1.1.1", Unknown},
		// ipv6
		{"2001:db8::1", IPv6},
		{"2001:DB8::1", IPv6},
		{"2001:0db8:0000:0000:0000:0000:0000:0001", IPv6},
		{"::1", IPv6},
		{"::", IPv6},
		{"fe80::1%eth0", IPv6},
		{"::ffff:192.0.2.1", IPv6},
		{"[2001:db8::1]", IPv6},
		{"2001:db8::g", Unknown},
		{"2001:db8:::1", Unknown},
		{"1:2:3:4:5:6:7:8:9", Unknown},
		{"[2001:db8::1", Unknown},
		{"00:11:22:33:44:55", Unknown},
		{"12:30:45", Unknown},
		// domain
		{"example.com", Domain},
		{"EXAMPLE.COM", Domain},
		{"example.com.", Domain},
		{"sub.evil-example.co.uk", Domain},
		{"bücher.example", Domain},
		{"xn--bcher-kva.example", Domain},
		{"例え.テスト", Domain},
		{"_dmarc.example.com", Domain},
		{"a.io", Domain},
		{"example.xn--p1ai", Domain},
		{"invoice.pdf", Domain},
		{"localhost", Unknown},
		{"example", Unknown},
		{"example.c", Unknown},
		{"example.123", Unknown},
		{"example.c0m", Unknown},
		{"-example.com", Unknown},
		{"example-.com", Unknown},
		{"exa mple.com", Unknown},
		{"example..com", Unknown},
		{"example.com..", Unknown},
		{".example.com", Unknown},
		{"example.co_m", Unknown},
		{strings.Repeat("a", 64) + ".com", Unknown},
		{strings.Repeat("a", 63) + ".com", Domain},
		{strings.Repeat("abcdefghi.", 26) + "com", Unknown},
		// url
		{"http://example.com", URL},
		{"https://example.com/", URL},
		{"HTTPS://EXAMPLE.COM/Path?Q=1#F", URL},
		{"http://example.com:8080/x", URL},
		{"http://user:pass@example.com/", URL},
		{"http://[2001:db8::1]:8080/", URL},
		{"http://[2001:db8::1]/", URL},
		{"http://198.51.100.7/a.exe", URL},
		{"http://intranet/", URL},
		{"ftp://files.example.org/pub", URL},
		{"tcp://198.51.100.7:4444", URL},
		{"example.com/path", URL},
		{"example.com/", URL},
		{"example.com:8080", URL},
		{"198.51.100.7:8080", URL},
		{"198.51.100.7/gate.php", URL},
		{"[2001:db8::1]:443", URL},
		{"example.com/a@b.com", URL},
		{"http://", Unknown},
		{"http:///path", Unknown},
		{"http://example.com:99999/", Unknown},
		{"http://example.com:/", Unknown},
		{"http://exa mple.com/", Unknown},
		{"http://999.1.1.1/", Unknown},
		{"http://[2001:db8::g]/", Unknown},
		{"h://example.com", Unknown},
		{"localhost/x", Unknown},
		{"/usr/bin/x", Unknown},
		{"example.com:abc", Unknown},
		// cve
		{"CVE-2021-44228", CVE},
		{"cve-2021-44228", CVE},
		{"Cve-1999-0001", CVE},
		{"CVE-2024-1234567", CVE},
		{"CVE-99-1", Unknown},
		{"CVE-2021-123", Unknown},
		{"CVE-21-44228", Unknown},
		{"CVE-2021-44228a", Unknown},
		{"CVE_2021_44228", Unknown},
		{"CAN-2021-44228", Unknown},
		// email
		{"user@example.com", Email},
		{"first.last+tag@sub.example.co.uk", Email},
		{"USER@EXAMPLE.COM", Email},
		{"user@bücher.example", Email},
		{"user@localhost", Unknown},
		{"@example.com", Unknown},
		{"user@", Unknown},
		{"a@b@example.com", Unknown},
		{".user@example.com", Unknown},
		{"us..er@example.com", Unknown},
		{"user@example.com.", Unknown},
		{strings.Repeat("a", 65) + "@example.com", Unknown},
		// unknown
		{"", Unknown},
		{"hello", Unknown},
		{"hello world", Unknown},
		{"1.2.3", Unknown},
		{"C:\\Windows\\evil.exe", Unknown},
	}
	for _, tt := range tests {
		if got := Detect(tt.in); got != tt.want {
			t.Errorf("Detect(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestDetectDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"44d88612fea8a8f36de82e1278abb02f", "198.51.100.7", "2001:db8::1", "evil.example.com", "https://evil.example.com/x", "user@example.com", "CVE-2021-44228", "nothing at all"} {
		if n := testing.AllocsPerRun(100, func() { Detect(s) }); n != 0 {
			t.Errorf("Detect(%q) allocates %v times", s, n)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		in   string
		t    Type
		want string
	}{
		{"44D88612FEA8A8F36DE82E1278ABB02F", MD5, "44d88612fea8a8f36de82e1278abb02f"},
		{"DA39A3EE5E6B4B0D3255BFEF95601890AFD80709", SHA1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{strings.Repeat("E3", 32), SHA256, strings.Repeat("e3", 32)},
		{strings.Repeat("Ab", 64), SHA512, strings.Repeat("ab", 64)},
		{"cve-2021-44228", CVE, "CVE-2021-44228"},
		{"Cve-2021-44228", CVE, "CVE-2021-44228"},
		{"CVE-2021-44228", CVE, "CVE-2021-44228"},
		{"Example.COM", Domain, "example.com"},
		{"example.com.", Domain, "example.com"},
		{"BÜCHER.example", Domain, "bücher.example"},
		{"XN--BCHER-KVA.EXAMPLE", Domain, "xn--bcher-kva.example"},
		{"198.51.100.7", IPv4, "198.51.100.7"},
		{"2001:DB8:0:0:0:0:0:1", IPv6, "2001:db8::1"},
		{"[2001:db8::1]", IPv6, "2001:db8::1"},
		{"fe80::1%eth0", IPv6, "fe80::1"},
		{"::FFFF:192.0.2.1", IPv6, "::ffff:192.0.2.1"},
		{"0:0:0:0:0:0:0:1", IPv6, "::1"},
		{"User.Name@Example.COM", Email, "User.Name@example.com"},
		{"HTTPS://Evil.Example.COM/Path/A.PHP?Q=Yes#Frag", URL, "https://evil.example.com/Path/A.PHP?Q=Yes#Frag"},
		{"http://User:Pass@EXAMPLE.com:8080/X", URL, "http://User:Pass@example.com:8080/X"},
		{"http://[2001:DB8:0::1]:8080/x", URL, "http://[2001:db8::1]:8080/x"},
		{"Example.com/Path", URL, "example.com/Path"},
		{"http://example.com", URL, "http://example.com"},
		{"Whatever", Unknown, "Whatever"},
		{"not a hash", MD5, "not a hash"},
		{"not-an-ip", IPv6, "not-an-ip"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in, tt.t); got != tt.want {
			t.Errorf("Normalize(%q, %s) = %q, want %q", tt.in, tt.t, got, tt.want)
		}
	}
}

func TestPrepare(t *testing.T) {
	tests := []struct {
		in     string
		refang bool
		value  string
		t      Type
	}{
		{"  hxxps://evil[.]example[.]com/x  ", true, "https://evil.example.com/x", URL},
		{"hxxps://evil[.]example[.]com/x", false, "hxxps://evil[.]example[.]com/x", Unknown},
		{"198.51.100[.]7", true, "198.51.100.7", IPv4},
		{"user[@]Example.com", true, "user@example.com", Email},
		{"\t44D88612FEA8A8F36DE82E1278ABB02F\n", true, "44d88612fea8a8f36de82e1278abb02f", MD5},
		{"cve-2021-44228", true, "CVE-2021-44228", CVE},
		{"[2001:db8::1]", true, "2001:db8::1", IPv6},
		{"EVIL[.]example[.]COM.", true, "evil.example.com", Domain},
		{"something else", true, "something else", Unknown},
	}
	for _, tt := range tests {
		v, typ, err := Prepare(tt.in, tt.refang)
		if err != nil || v != tt.value || typ != tt.t {
			t.Errorf("Prepare(%q, %v) = %q, %s, %v; want %q, %s", tt.in, tt.refang, v, typ, err, tt.value, tt.t)
		}
	}
	for _, in := range []string{"", "   ", "a\x1bb", strings.Repeat("a", MaxLen+1), "\xff"} {
		if _, typ, err := Prepare(in, true); err == nil || typ != Unknown {
			t.Errorf("Prepare(%q) = %s, %v; want an error", in, typ, err)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct{ in, err string }{
		{"example.com", ""},
		{"  example.com  ", ""},
		{"bücher.example", ""},
		{strings.Repeat("a", MaxLen), ""},
		{" " + strings.Repeat("a", MaxLen) + " ", ""},
		{"", "empty value"},
		{"   ", "empty value"},
		{"\t\n", "empty value"},
		{"\u00a0", "empty value"},
		{"exam\x1bple", "value contains control character U+001B at byte 4"},
		{"  a\x00b", "value contains control character U+0000 at byte 3"},
		{"a\tb", ""},
		{"a\vb", "value contains control character U+000B at byte 1"},
		{"a\nb", "value contains control character U+000A at byte 1"},
		{"a\x7fb", "value contains control character U+007F at byte 1"},
		{"a\u0085b", "value contains control character U+0085 at byte 1"},
		{"a\u009bb", "value contains control character U+009B at byte 1"},
		{"ab\xff", "value is not valid UTF-8 (byte 0xFF at byte 2)"},
		{"\xc3", "value is not valid UTF-8 (byte 0xC3 at byte 0)"},
		{strings.Repeat("a", 9000), "value is 9000 bytes, more than the 4096 allowed"},
		{strings.Repeat("a", MaxLen+1), "value is 4097 bytes, more than the 4096 allowed"},
	}
	for _, tt := range tests {
		err := Validate(tt.in)
		if tt.err == "" {
			if err != nil {
				t.Errorf("Validate(%.20q) = %v, want nil", tt.in, err)
			}
			continue
		}
		var fe *failure.Error
		if !errors.As(err, &fe) || fe.Kind != failure.Input || fe.Error() != tt.err {
			t.Errorf("Validate(%.20q) = %#v, want input error %q", tt.in, err, tt.err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("Validate(%.20q): message spans lines", tt.in)
		}
	}
}

func TestDefang(t *testing.T) {
	tests := []struct {
		in   string
		t    Type
		want string
	}{
		{"https://evil.example.com/x.php", URL, "hxxps[:]//evil[.]example[.]com/x.php"},
		{"http://198.51.100.7:8080/", URL, "hxxp[:]//198[.]51[.]100[.]7:8080/"},
		{"ftp://files.example.org/a", URL, "fxp[:]//files[.]example[.]org/a"},
		{"ftps://files.example.org/a", URL, "fxps[:]//files[.]example[.]org/a"},
		{"sftp://files.example.org/a", URL, "sfxp[:]//files[.]example[.]org/a"},
		{"tcp://198.51.100.7:4444", URL, "tcp[:]//198[.]51[.]100[.]7:4444"},
		{"http://user@example.com/", URL, "hxxp[:]//user[@]example[.]com/"},
		{"http://[2001:db8::1]:8080/", URL, "hxxp[:]//[2001:db8::1]:8080/"},
		{"example.com/path", URL, "example[.]com/path"},
		{"evil.example.com", Domain, "evil[.]example[.]com"},
		{"198.51.100.7", IPv4, "198[.]51[.]100[.]7"},
		{"user@mail.example.com", Email, "user[@]mail[.]example[.]com"},
		{"first.last@example.com", Email, "first.last[@]example[.]com"},
		{"2001:db8::1", IPv6, "2001[:]db8[:]:1"},
		{"2001:db8:bad:c0de::66", IPv6, "2001[:]db8[:]bad[:]c0de[:]:66"},
		{"::ffff:198.51.100.7", IPv6, "::ffff[:]198[.]51[.]100[.]7"},
		{"fe80::1:2", IPv6, "fe80[:]:1[:]2"},
		{"44d88612fea8a8f36de82e1278abb02f", MD5, "44d88612fea8a8f36de82e1278abb02f"},
		{"CVE-2021-44228", CVE, "CVE-2021-44228"},
		{"whatever", Unknown, "whatever"},
	}
	for _, tt := range tests {
		got := Defang(tt.in, tt.t)
		if got != tt.want {
			t.Errorf("Defang(%q, %s) = %q, want %q", tt.in, tt.t, got, tt.want)
		}
		if back := Refang(got); back != tt.in {
			t.Errorf("Refang(Defang(%q)) = %q", tt.in, back)
		}
		if v, typ, err := Prepare(got, true); err != nil || v != tt.in || (tt.t != Unknown && typ != tt.t) {
			t.Errorf("Prepare(%q) = %q, %s, %v; want %q, %s", got, v, typ, err, tt.in, tt.t)
		}
	}
}

func TestParseTypes(t *testing.T) {
	tests := []struct {
		in   string
		want []Type
		err  string
	}{
		{"ipv4", []Type{IPv4}, ""},
		{"ipv4,domain,sha256", []Type{IPv4, Domain, SHA256}, ""},
		{" IPv4 , Domain ", []Type{IPv4, Domain}, ""},
		{"hash", []Type{MD5, SHA1, SHA256, SHA512}, ""},
		{"ip", []Type{IPv4, IPv6}, ""},
		{"ip,ipv4,url", []Type{IPv4, IPv6, URL}, ""},
		{"url,url", []Type{URL}, ""},
		{"all", AllTypes, ""},
		{"cve,email,", []Type{CVE, Email}, ""},
		{"md5,sha1,sha512,ipv6", []Type{MD5, SHA1, SHA512, IPv6}, ""},
		{"foo", nil, `unknown indicator type "foo"; valid types: md5, sha1, sha256, sha512, ipv4, ipv6, domain, url, cve, email, cidr, hash, ip, all`},
		{"ipv4,unknown", nil, `unknown indicator type "unknown"`},
		{"", nil, "no indicator type given"},
		{" , ", nil, "no indicator type given"},
	}
	for _, tt := range tests {
		got, err := ParseTypes(tt.in)
		if tt.err != "" {
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Kind != failure.Usage || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("ParseTypes(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseTypes(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestAllTypes(t *testing.T) {
	want := []Type{MD5, SHA1, SHA256, SHA512, IPv4, IPv6, Domain, URL, CVE, Email, CIDR}
	if !slices.Equal(AllTypes, want) {
		t.Errorf("AllTypes = %v", AllTypes)
	}
}

func TestPrepareDropsInvisibleCharacters(t *testing.T) {
	for _, in := range []string{"\ufeff44d88612fea8a8f36de82e1278abb02f", "44d88612fea8a8f36de8\u200b2e1278abb02f", "44d88612\u2060fea8a8f36de82e1278abb02f\u200d"} {
		v, typ, err := Prepare(in, true)
		if err != nil || typ != MD5 || v != "44d88612fea8a8f36de82e1278abb02f" {
			t.Errorf("Prepare(%q) = %q, %s, %v", in, v, typ, err)
		}
	}
	if _, typ, _ := Prepare("44d88612\u200bfea8a8f36de82e1278abb02f", false); typ != Unknown {
		t.Errorf("--no-refang kept the value exactly? type %s", typ)
	}
}
