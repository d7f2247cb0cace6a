// Command gen writes a large synthetic threat report for the extraction
// benchmark: prose with, on average, one indicator every few lines, some of
// them defanged, and the usual false friends (file names, versions).
//
//	go run ./bench/extract/gen -mb 50 > report.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

var words = []string{
	"the", "actor", "deployed", "a", "loader", "which", "then", "contacted", "its",
	"command", "and", "control", "server", "over", "HTTPS", "after", "persistence",
	"was", "established", "through", "scheduled", "task", "analysts", "observed",
	"lateral", "movement", "using", "stolen", "credentials", "from", "memory",
	"campaign", "targeting", "finance", "sector", "in", "Europe", "with", "phishing",
	"emails", "containing", "malicious", "attachments", "(see", "appendix)", "of",
	"report.", "invoice.pdf", "setup.exe", "version", "2.1.0", "e.g.", "payload,",
}

func main() {
	mb := flag.Int("mb", 50, "size of the output in MiB")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	r := rand.New(rand.NewPCG(1, 2))
	limit := *mb << 20
	n := 0
	for n < limit {
		line := sentence(r)
		if r.IntN(4) == 0 {
			line += " " + indicator(r) + "."
		}
		k, err := fmt.Fprintln(w, line)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		n += k
	}
}

func sentence(r *rand.Rand) string {
	b := make([]byte, 0, 160)
	for i, n := 0, 8+r.IntN(18); i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[r.IntN(len(words))]...)
	}
	return string(b)
}

func indicator(r *rand.Rand) string {
	switch r.IntN(9) {
	case 0:
		return fmt.Sprintf("%d.%d.%d.%d", 1+r.IntN(223), r.IntN(256), r.IntN(256), 1+r.IntN(254))
	case 1:
		return fmt.Sprintf("%d.%d.%d[.]%d", 1+r.IntN(223), r.IntN(256), r.IntN(256), 1+r.IntN(254))
	case 2:
		return fmt.Sprintf("hxxps://cdn%d[.]evil-example[.]com/gate.php?id=%d", r.IntN(5000), r.IntN(1e6))
	case 3:
		return fmt.Sprintf("https://update%d.example.net/dl/%x.bin", r.IntN(5000), r.Uint32())
	case 4:
		return fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
	case 5:
		return fmt.Sprintf("%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
	case 6:
		return fmt.Sprintf("billing%d[@]mail-example.org", r.IntN(5000))
	case 7:
		return fmt.Sprintf("CVE-20%02d-%d", 10+r.IntN(15), 1000+r.IntN(50000))
	default:
		return fmt.Sprintf("c2-%d.bad-example.ru", r.IntN(5000))
	}
}
