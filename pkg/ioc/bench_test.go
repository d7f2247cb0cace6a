package ioc

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchText builds a few MB of report-like prose with an indicator on about
// one line in four, defanged or not, and the usual false friends.
func benchText(size int) []byte {
	r := rand.New(rand.NewPCG(7, 8))
	words := strings.Fields(`the actor deployed a loader which then contacted its command and
		control server over HTTPS after persistence was established through a scheduled task;
		analysts observed lateral movement using stolen credentials (see appendix) e.g.
		invoice.pdf setup.exe version 2.1.0 payload, report.`)
	var b strings.Builder
	for b.Len() < size {
		for i, n := 0, 8+r.IntN(18); i < n; i++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		switch r.IntN(16) {
		case 0:
			fmt.Fprintf(&b, "%d.%d.%d[.]%d", 1+r.IntN(223), r.IntN(256), r.IntN(256), 1+r.IntN(254))
		case 1:
			fmt.Fprintf(&b, "hxxps://cdn%d[.]evil-example[.]com/gate.php?id=%d", r.IntN(5000), r.IntN(1e6))
		case 2:
			fmt.Fprintf(&b, "%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
		case 3:
			fmt.Fprintf(&b, "billing%d@mail-example.org", r.IntN(5000))
		}
		b.WriteString(".\n")
	}
	return []byte(b.String())
}

func BenchmarkExtract(b *testing.B) {
	text := benchText(4 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := ExtractReader(bytes.NewReader(text), nil, func(Indicator) error { n++; return nil })
		if err != nil || n == 0 {
			b.Fatal(err, n)
		}
	}
}

func BenchmarkRefangUnchanged(b *testing.B) {
	s := "https://www.example.com/path/to/page?query=1"
	b.ReportAllocs()
	for b.Loop() {
		if Refang(s) != s {
			b.Fatal("changed")
		}
	}
}

func BenchmarkDetect(b *testing.B) {
	inputs := []string{"44d88612fea8a8f36de82e1278abb02f", "198.51.100.7", "2001:db8::1", "evil.example.com", "https://evil.example.com/x", "user@example.com", "CVE-2021-44228"}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range inputs {
			if Detect(s) == Unknown {
				b.Fatal(s)
			}
		}
	}
}

var _ = io.EOF
