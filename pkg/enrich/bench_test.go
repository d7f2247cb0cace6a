package enrich

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/lookup"
)

// wideCSV is a CSV of cols columns and rows records: one column of
// addresses among numbers.
func wideCSV(cols, rows int) []byte {
	var b bytes.Buffer
	for c := range cols {
		if c > 0 {
			b.WriteByte(',')
		}
		b.WriteString("c" + strconv.Itoa(c))
	}
	b.WriteByte('\n')
	for r := range rows {
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			if c == 1 {
				b.WriteString("203.0.113." + strconv.Itoa(r%250))
			} else {
				b.WriteString(strconv.Itoa(c % 10))
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkWideCSV runs the whole join over a CSV of 100,000 columns,
// columns detected, and reports the bytes allocated per byte of input
// (alloc/in): a wide export must not cost many times its size.
func BenchmarkWideCSV(b *testing.B) {
	in := wideCSV(100_000, 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		src, layout, err := Open(bytes.NewReader(in), Auto, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		w := NewWriter(io.Discard, layout, false)
		if err := w.Header(); err != nil {
			b.Fatal(err)
		}
		sink := NewSink(w)
		if err := lookup.Run(context.Background(), src, lookup.Dedup(&fake{}), lookup.Options{Concurrency: 1}, sink); err != nil {
			b.Fatal(err)
		}
		if len(sink.BadRows) > 0 || !strings.Contains(layout.Columns[0].Name, "c1") {
			b.Fatalf("bad rows %v, columns %v", sink.BadRows, layout.Columns)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(in)), "alloc/in")
}
