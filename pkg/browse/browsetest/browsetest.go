// Package browsetest writes the large documents that browse's benchmarks
// open (go test -bench in pkg/browse, and bench/browse, which measures
// the peak RSS of a process that opens them), so both measure the same
// bytes.
package browsetest

import (
	"bufio"
	"fmt"
	"io"
)

// Pivot writes a pivot -o json document of n matched nodes and no edges:
// 100,000 of them are the memory target (27 MB).
func Pivot(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"nodes":[`)
	for i := range n {
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"id":"n%d","value":"host-%d.example.com","type":"domain","depth":1,"status":"matched","resources":[{"resource":"passive_dns","label":"Passive DNS","count":2,"detail_url":"https://ti.example.com/ti/resources/passive_dns?q=host-%d.example.com"}]}`, i, i, i)
	}
	fmt.Fprintf(bw, `],"edges":[],"summary":{"nodes":%d}}`, n)
	return bw.Flush()
}

// Triage writes a triage -o json document of n matched indicators, each
// with one preview record: 50,000 of them are the open-time
// target (under 1 s).
func Triage(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"indicators":[`)
	for i := range n {
		if i > 0 {
			bw.WriteByte(',')
		}
		v := fmt.Sprintf("host-%d.example.com", i)
		fmt.Fprintf(bw, `{"value":%q,"type":"domain","status":"matched","result":{"query":%q,"detected_type":"domain","results":[{"resource":"passive_dns","label":"Passive DNS","count":2,"preview":[{"domain":%q,"ip":"198.51.100.7","first_seen":"2024-01-01T00:00:00Z"}],"detail_url":"https://ti.example.com/ti/resources/passive_dns?q=%s"}]}}`, v, v, v, v)
	}
	bw.WriteString(`],"skipped":[]}`)
	return bw.Flush()
}
