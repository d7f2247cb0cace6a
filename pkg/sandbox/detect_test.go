package sandbox

import (
	"testing"

	"github.com/tilookup/tilookup/pkg/ioc"
)

func TestDetectAndNormalize(t *testing.T) {
	tests := []struct {
		in, typ, norm string
	}{
		{eicarMD5, string(ioc.MD5), eicarMD5},
		{"44D88612FEA8A8F36DE82E1278ABB02F", string(ioc.MD5), eicarMD5},
		{eicarSHA1, string(ioc.SHA1), eicarSHA1},
		{eicarSHA256, string(ioc.SHA256), eicarSHA256},
		{eicarSHA512, string(ioc.SHA512), eicarSHA512},
		{"44d88612fea8a8f36de82e1278abb02", typeUnknown, ""},  // 31 hex digits
		{"44d88612fea8a8f36de82e1278abb02g", typeUnknown, ""}, // not hex
		{"192.0.2.1", string(ioc.IPv4), "192.0.2.1"},
		{" 192.0.2.1\t", string(ioc.IPv4), "192.0.2.1"},
		{"192.0.2.01", typeUnknown, ""}, // leading zero: octal in some parsers
		{"192.0.2.256", typeUnknown, ""},
		{"2001:DB8:0:0:0:0:0:1", string(ioc.IPv6), "2001:db8::1"},
		{"::ffff:192.0.2.1", string(ioc.IPv6), "::ffff:192.0.2.1"},
		{"fe80::1%eth0", string(ioc.IPv6), "fe80::1"}, // the zone is local to the host that wrote it
		{"Example.COM", string(ioc.Domain), "example.com"},
		{"login-update.example.net.", string(ioc.Domain), "login-update.example.net"},
		{"xn--bcher-kva.example", string(ioc.Domain), "xn--bcher-kva.example"},
		{"localhost", typeUnknown, ""},
		{"-bad.example.com", typeUnknown, ""},
		{"a..example.com", typeUnknown, ""},
		{"example.123", typeUnknown, ""},
		{"HTTPS://Login.Example.NET/Path?Q=A B#Frag", string(ioc.URL), "https://login.example.net/Path?Q=A B#Frag"},
		{"http://[2001:db8::23]:8080/x", string(ioc.URL), "http://[2001:db8::23]:8080/x"},
		{"http://198.51.100.23:8080/login.php", string(ioc.URL), "http://198.51.100.23:8080/login.php"},
		{"ftp://user@files.example.org", string(ioc.URL), "ftp://user@files.example.org"},
		{"javascript://example.com/", string(ioc.URL), "javascript://example.com/"},
		{"http://", typeUnknown, ""},
		{"http://exa mple.com/", typeUnknown, ""},
		{"cve-2021-44228", string(ioc.CVE), "CVE-2021-44228"},
		{"CVE-2023-123456", string(ioc.CVE), "CVE-2023-123456"},
		{"CVE-2023-123", typeUnknown, ""},
		{"CVE-23-1234", typeUnknown, ""},
		{"Billing@Invoice-Portal.Example.com", string(ioc.Email), "billing@invoice-portal.example.com"},
		{"a..b@example.com", typeUnknown, ""},
		{"a@b@example.com", typeUnknown, ""},
		{"@example.com", typeUnknown, ""},
		{"", typeUnknown, ""},
		{"   ", typeUnknown, ""},
		{"example.com\x1b[31m", typeUnknown, ""},
		{"example.com\u009b", typeUnknown, ""},
		{"just words", typeUnknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			typ := detectType(tt.in)
			if typ != tt.typ {
				t.Fatalf("detectType(%q) = %s, want %s", tt.in, typ, tt.typ)
			}
			if typ == typeUnknown {
				if s := strategyFor(typ); s != "none" {
					t.Errorf("strategy for unknown = %q", s)
				}
				return
			}
			if got := normalize(tt.in, typ); got != tt.norm {
				t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.norm)
			}
			if strategyFor(typ) == "none" {
				t.Errorf("no strategy for %s", typ)
			}
		})
	}
}

// Normalizing twice must change nothing, or a stored value and a query
// could normalize apart.
func FuzzNormalizeIdempotent(f *testing.F) {
	for _, s := range []string{eicarMD5, hotIPv6, hotURL, hotEmail, "CVE-2021-44228", "Example.COM."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ := detectType(s)
		if typ == typeUnknown {
			return
		}
		n := normalize(s, typ)
		if typ2 := detectType(n); typ2 != typ {
			t.Fatalf("normalize(%q) = %q changes type %s to %s", s, n, typ, typ2)
		}
		if n2 := normalize(n, typ); n2 != n {
			t.Fatalf("normalize not idempotent: %q -> %q -> %q", s, n, n2)
		}
	})
}
