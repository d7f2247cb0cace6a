package ioc

import (
	"fmt"
	"testing"
)

func TestPlay(t *testing.T) {
	for _, s := range []string{"http:\\\\evil.com\\x\\y.php z\\w", "hxxp:\\\\1.2.3.4\\a"} {
		r := Refang(s)
		fmt.Printf("%q -> %q  %s %q\n", s, r, Detect(r), Normalize(r, Detect(r)))
	}
	txt := `Contact user[@]evil-corp.com or visit hxxps://evil[.]example[.]com/path?x=1. The dropper setup.exe (md5 44D88612FEA8A8F36DE82E1278ABB02F) beacons to 198.51.100[.]7:8080 and [2001:db8::1]:443.
See [report](https://blog.example.org/a_(b)) and <https://x.example.net/>. Version 1.2.3.4 shipped; cve-2021-44228, CVE-99-1. invoice.pdf update[.]zip evil.zip example.com/path 10.0.0.0/8 fe80::1%eth0 obj.name() ip=203.0.113.9,port=1
[https://a.example.com](https://a.example.com) <a href="http://b.example.com/x?y=1&z=2">b</a> e.g. i.e. U.S. Node.js README.md sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855 x3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 mailto:bob@example.co.uk time 12:30:45 MAC 00:11:22:33:44:55 bücher.example xn--bcher-kva.example EVIL.COM. (evil2.com), "evil3.org"`
	for _, in := range Extract([]byte(txt)) {
		fmt.Printf("%s\t%s\n", in.Type, in.Value)
	}
}
