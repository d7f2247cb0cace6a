package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/internal/testenv"
	"github.com/tilookup/tilookup/pkg/api"
)

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTableBoundsManyKeys is issue 16 #3: objects that each bring their own
// key made the columns the union of all keys, so time and memory grew with
// keys × rows. Columns are capped now, and the rest is counted.
func TestTableBoundsManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	const n = 20000
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"k%d":%d}`, i, i)
	}
	b.WriteString("]")
	body := []byte(b.String())

	for _, width := range []int{0, 80} {
		var out bytes.Buffer
		start := time.Now()
		alloc := allocated(func() {
			if err := PrintEvents(Options{Out: &out, Width: width}, body); err != nil {
				t.Fatal(err)
			}
		})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("width %d: took %v", width, d)
		}
		if alloc > 64<<20 {
			t.Errorf("width %d: allocated %d MB for a %d KB body", width, alloc>>20, len(body)>>10)
		}
		if out.Len() > 1<<20 {
			t.Errorf("width %d: printed %d KB", width, out.Len()>>10)
		}
		if !bytes.Contains(out.Bytes(), []byte("more records")) {
			t.Errorf("width %d: no note of the records left out:\n%.2000s", width, out.Bytes())
		}
	}

	// CSV keeps every value, the columns past the cap in a "more" column.
	var out bytes.Buffer
	alloc := allocated(func() {
		if err := PrintEvents(Options{Format: CSV, Out: &out}, body); err != nil {
			t.Fatal(err)
		}
	})
	// At most a separator per capped column per row, plus the data: the
	// uncapped union would have been n × n separators (400 MB).
	if alloc > 64<<20 || out.Len() > n*(maxCSVColumns+2)+2*len(body) {
		t.Errorf("csv: allocated %d MB, printed %d KB", alloc>>20, out.Len()>>10)
	}
	if !bytes.Contains(out.Bytes(), []byte("k19999=19999")) {
		t.Error("csv lost the last key")
	}
}

// TestTableBoundsManyResults is issue 16 #4: a million empty results took
// 1.4 GB in table output. Rows are capped, so the table costs what it shows.
func TestTableBoundsManyResults(t *testing.T) {
	const n = 1_000_000
	resp := &api.SearchResponse{Results: make([]api.Result, n)}
	for _, multi := range []bool{false, true} {
		var out bytes.Buffer
		alloc := allocated(func() {
			p, _ := NewSearchPrinter(Options{Out: &out, Width: 80}, multi)
			if err := p.Add(Record{Query: "q", Resp: resp}); err != nil {
				t.Fatal(err)
			}
			p.Close()
		})
		if alloc > 16<<20 {
			t.Errorf("multi=%v: allocated %d MB for %d results", multi, alloc>>20, n)
		}
		if !multi && !bytes.Contains(out.Bytes(), []byte(fmt.Sprintf("… %d more results", n-maxRows))) {
			t.Errorf("no note of the results left out:\n%.500s", out.Bytes())
		}
	}
}

// TestTableBoundsPreview: --preview of a large answer (issue 16 #3, the
// search side) decodes only what it shows.
func TestTableBoundsPreview(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"query":"q","results":[`)
	for i := range 2000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"label":"r%d","count":1,"preview":[{"a%d":1},{"b%d":2}]}`, i, i, i)
	}
	b.WriteString("]}")
	raw := []byte(b.String())
	var resp api.SearchResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatal(err)
	}
	resp.Raw = raw
	var out bytes.Buffer
	alloc := allocated(func() {
		p, _ := NewSearchPrinter(Options{Out: &out, Preview: true, Width: 120}, false)
		if err := p.Add(Record{Query: "q", Resp: &resp}); err != nil {
			t.Fatal(err)
		}
	})
	// Under -race, sync.Pool drops some tables on purpose, and each new
	// one allocates its cache: the bound holds without it (raceEnabled).
	if alloc > 64<<20 && !raceEnabled {
		t.Errorf("allocated %d MB", alloc>>20)
	}
}

// TestHugeCount is issue 16 #5: a count of a million digits hung the
// summary table (big.Int parsing is quadratic). It now shows as a bound.
func TestHugeCount(t *testing.T) {
	huge := json.Number("1" + strings.Repeat("0", 1_000_000))
	resp := &api.SearchResponse{Results: []api.Result{{Count: huge}, {Count: "5"}}}
	for _, multi := range []bool{false, true} {
		var out bytes.Buffer
		start := time.Now()
		p, _ := NewSearchPrinter(Options{Out: &out}, multi)
		if err := p.Add(Record{Query: "q", Resp: resp}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("multi=%v: took %v", multi, d)
		}
		if out.Len() > maxCellRunes+4096 {
			t.Errorf("multi=%v: printed %d bytes", multi, out.Len())
		}
		if multi && !strings.Contains(out.String(), "≥1e1000000") {
			t.Errorf("total not shown as a bound:\n%s", out.String())
		}
	}
	if got := totalCount(slices.Values([]json.Number{"9007199254740993", "18446744073709551617"})); got != "18455751272964292610" {
		t.Errorf("exact total = %s", got)
	}
}

// TestRenderAllocsPerRecord: a streamed summary row costs a bounded number
// of allocations, however many rows came before.
func TestRenderAllocsPerRecord(t *testing.T) {
	p, _ := NewSearchPrinter(Options{Out: &bytes.Buffer{}, Width: 120}, true)
	r := Record{Query: "192.0.2.1", Resp: &api.SearchResponse{DetectedType: "ipv4", Results: make([]api.Result, 3)}}
	allocs := testing.AllocsPerRun(1000, func() { _ = p.Add(r) })
	if allocs > 30 {
		t.Errorf("%.0f allocations per summary row", allocs)
	}
}

// TestCSVManyResults: CSV of a million results (issue 16 #4 measured 460 MB)
// streams row by row with a few allocations each.
func TestCSVManyResults(t *testing.T) {
	const n = 1_000_000
	resp := &api.SearchResponse{Results: make([]api.Result, n)}
	var out bytes.Buffer
	alloc := allocated(func() {
		p, _ := NewSearchPrinter(Options{Format: CSV, Out: &out}, true)
		if err := p.Add(Record{Query: "q", Resp: resp}); err != nil {
			t.Fatal(err)
		}
		p.Close()
	})
	if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != n+1 {
		t.Errorf("%d lines", lines)
	}
	if alloc > uint64(out.Cap())+32<<20 && !raceEnabled {
		t.Errorf("allocated %d MB beyond the %d MB of output", (alloc-uint64(out.Cap()))>>20, out.Cap()>>20)
	}
}

// A preview that shows fewer records than the resource counts says how to
// see the rest, and says nothing when it shows them all.
func TestPreviewSaysHowToSeeMore(t *testing.T) {
	for _, tt := range []struct {
		count, url string
		want       string
	}{
		{"14", "https://ti.example/r?q=x", "\nOnly some records shown: --limit N asks for more, --web opens a detail page\n"},
		{"14", "", "\nOnly some records shown: --limit N asks for more\n"},
		{"2", "https://ti.example/r?q=x", ""},
	} {
		raw := fmt.Sprintf(`{"query":"q","results":[{"label":"Feed","count":%s,"detail_url":%q,"preview":[{"a":1},{"a":2}]}]}`, tt.count, tt.url)
		var resp api.SearchResponse
		if err := json.Unmarshal([]byte(raw), &resp); err != nil {
			t.Fatal(err)
		}
		resp.Raw = []byte(raw)
		var out bytes.Buffer
		p, _ := NewSearchPrinter(Options{Out: &out, Preview: true, Width: 80}, false)
		if err := p.Add(Record{Query: "q", Resp: &resp}); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if !strings.Contains(got, "(2 of "+tt.count+")") {
			t.Errorf("count %s: no title in %q", tt.count, got)
		}
		if tt.want != "" && !strings.Contains(got, tt.want) || tt.want == "" && strings.Contains(got, "--limit") {
			t.Errorf("count %s, url %q: got %q, want %q", tt.count, tt.url, got, tt.want)
		}
	}
}

// peakHeap returns the most heap in use (sampled) while f runs, beyond
// what was in use before.
func peakHeap(f func()) uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var top uint64
		for {
			var s runtime.MemStats
			runtime.ReadMemStats(&s)
			top = max(top, s.HeapAlloc)
			select {
			case <-done:
				peak <- top
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	top := <-peak
	if top < base {
		return 0
	}
	return top - base
}

// TestOneLargeAnswerEveryFormat is issue 28: one answer of 10M empty
// results (30 MB) cost 4.5 GB as a table and 4.6 GB as CSV, decoded whole
// to print 500 rows. Now an answer keeps api.KeptResults results and the
// formats that print every result (csv, the summary's total) walk them one
// at a time: decoding and printing 200k results stays within a few times the
// answer's size, whatever the format, and the counts are the whole answer's.
func TestOneLargeAnswerEveryFormat(t *testing.T) {
	testenv.Slow(t, "a large answer in every format")
	if raceEnabled {
		t.Skip("the race detector adds its own allocations")
	}
	// 200k results: decoded whole, they would take some 90 MB, far above
	// the bound of 15 MB (the 10M of the report would take 4.5 GB).
	const n = 200_000
	body := []byte(`{"query":"q","results":[` + strings.Repeat(`{"count":1},`, n-1) + `{"count":1}]}`)
	for _, tt := range []struct {
		name  string
		opts  Options
		multi bool
		raw   bool
		want  string
	}{
		{"table", Options{Width: 100}, false, false, fmt.Sprintf("… %d more results", n-maxRows)},
		{"preview", Options{Width: 100, Preview: true}, false, false, fmt.Sprintf("… %d more results", n-maxRows)},
		{"summary", Options{}, true, false, fmt.Sprintf("%d", n)},
		{"csv", Options{Format: CSV}, false, false, ""},
		{"json", Options{Format: JSON}, false, true, `{"count":1}]}`},
		{"ndjson", Options{Format: NDJSON}, false, true, `{"count":1}]}`},
	} {
		var out bytes.Buffer
		out.Grow(20 * n) // the output is not what is measured
		grown := peakHeap(func() {
			decode := api.DecodeSearch
			if tt.raw {
				decode = api.DecodeSearchRaw
			}
			resp, err := decode(body)
			if err != nil {
				t.Fatal(err)
			}
			tt.opts.Out = &out
			p, err := NewSearchPrinter(tt.opts, tt.multi)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Add(Record{Query: "q", Resp: resp}); err != nil {
				t.Fatal(err)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		})
		if limit := uint64(3*len(body)) + 8<<20; grown > limit {
			t.Errorf("%s: the heap grew by %d MB for a %d MB answer (bound %d MB)", tt.name, grown>>20, len(body)>>20, limit>>20)
		}
		got := out.String()
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s: output lacks %q:\n%.300s", tt.name, tt.want, got)
		}
		if tt.name == "summary" && !strings.Contains(got, fmt.Sprintf("%d\t%d", n, n)) {
			t.Errorf("summary: want %d results with a total count of %d:\n%s", n, n, got)
		}
		if tt.name == "csv" && strings.Count(got, "\n") != n+1 {
			t.Errorf("csv: %d lines, want %d", strings.Count(got, "\n"), n+1)
		}
	}
}
