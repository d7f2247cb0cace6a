package enrich

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/triage"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fake answers a few known values the same way every time, and counts the
// requests for each value.
type fake struct {
	mu    sync.Mutex
	calls map[string]int
	delay func(value string) time.Duration
}

func (f *fake) Search(ctx context.Context, v string) (*api.SearchResponse, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[v]++
	f.mu.Unlock()
	if f.delay != nil {
		select {
		case <-time.After(f.delay(v)):
		case <-ctx.Done():
			return nil, failure.New(failure.Interrupted, "interrupted")
		}
	}
	switch {
	case v == "203.0.113.66":
		return &api.SearchResponse{Query: v, Results: []api.Result{
			{Resource: "passive_dns", Label: "Passive DNS", DetailURL: "https://ti.example/pdns?q=203.0.113.66"},
			{Resource: "ip_rep", Label: "IP reputation, v2", DetailURL: "https://ti.example/rep"},
		}}, nil
	case v == "44d88612fea8a8f36de82e1278abb02f":
		// A label a hostile service could send: guarded in CSV.
		return &api.SearchResponse{Query: v, Results: []api.Result{{Resource: "malware", Label: "=HYPERLINK(\"x\")", DetailURL: "@https://ti.example/m"}}}, nil
	case v == "unsupported.example":
		return &api.SearchResponse{Query: v, UnsupportedReason: "no resource searches this type"}, nil
	case v == "203.0.113.99":
		// Labels a hostile service could send to a terminal.
		return &api.SearchResponse{Query: v, Results: []api.Result{{Resource: "x", Label: "rep\u202eort\u009b31m\u200b", DetailURL: "https://ti.example/\x1b[2J"}}}, nil
	case v == "192.0.2.13":
		return nil, failure.New(failure.Server, "search: 503 Service Unavailable")
	case strings.HasPrefix(v, "slow"):
		return &api.SearchResponse{Query: v}, nil
	}
	return &api.SearchResponse{Query: v}, nil
}

type runOpts struct {
	format      Format
	names       []string
	toNDJSON    bool
	concurrency int
	maxHeld     int64
	searcher    lookup.Searcher
	ctx         context.Context
}

// enrichString runs the whole join over in, as the command does.
func enrichString(t *testing.T, in string, o runOpts) (string, *Sink, error) {
	t.Helper()
	src, layout, err := Open(strings.NewReader(in), o.format, o.names, &triage.Skipper{Noise: true})
	if err != nil {
		return "", nil, err
	}
	var out bytes.Buffer
	w := NewWriter(&out, layout, o.toNDJSON)
	w.Cell = output.Options{}.CSVCell
	sink := NewSink(w)
	if o.searcher == nil {
		o.searcher = lookup.Dedup(&fake{})
	}
	if o.ctx == nil {
		o.ctx = context.Background()
	}
	if err := w.Header(); err != nil {
		return "", nil, err
	}
	err = lookup.Run(o.ctx, src, o.searcher, lookup.Options{Concurrency: max(o.concurrency, 1), MaxHeld: o.maxHeld}, sink)
	return out.String(), sink, err
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name, in string
		o        runOpts
	}{
		{"csv", "export.csv", runOpts{}},
		{"csv_named", "export.csv", runOpts{names: []string{"dest_domain"}}},
		{"csv_to_ndjson", "export.csv", runOpts{toNDJSON: true}},
		{"tsv", "export.tsv", runOpts{}},
		{"ndjson", "export.ndjson", runOpts{}},
		{"ndjson_named", "export.ndjson", runOpts{names: []string{"src_ip", "dest"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tt.in))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []int{1, 8} { // the same bytes at any concurrency
				tt.o.concurrency = c
				got, _, err := enrichString(t, string(in), tt.o)
				if err != nil {
					t.Fatal(err)
				}
				golden := filepath.Join("testdata", tt.name+".golden")
				if *update && c == 1 {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if got != string(want) {
					t.Errorf("-c %d: output differs from %s (go test -update to rewrite it):\n%s", c, golden, got)
				}
			}
		})
	}
}

// The user's cells come back exactly: the input is a prefix of each output
// record, line for line.
func TestCellsUnchanged(t *testing.T) {
	for _, name := range []string{"export.csv", "export.tsv", "export.ndjson"} {
		in, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := enrichString(t, string(in), runOpts{})
		if err != nil {
			t.Fatal(err)
		}
		f := Sniff(in)
		inRecs := readAll(t, string(in), f)
		outRecs := readAll(t, got, f)
		if len(inRecs) != len(outRecs) {
			t.Fatalf("%s: %d records in, %d out", name, len(inRecs), len(outRecs))
		}
		for i := range inRecs {
			raw := inRecs[i].Raw
			if f == NDJSON {
				if j := bytes.LastIndexByte(raw, '}'); j >= 0 {
					raw = raw[:j] // the closing brace comes after the added field
				}
			}
			if !bytes.HasPrefix(outRecs[i].Raw, raw) {
				t.Errorf("%s record %d: %q does not start with the input's %q", name, i, outRecs[i].Raw, raw)
			}
		}
	}
}

// Each distinct value is asked once, however often it repeats and however
// many lookups run at once; empty and skipped cells are never asked.
func TestRequestsDistinctValues(t *testing.T) {
	var b strings.Builder
	b.WriteString("n,ip,host\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "%d,203.0.113.%d,h%d.example.com\n", i, i%50, i%7)
		if i%10 == 0 {
			fmt.Fprintf(&b, "%d,,10.0.0.1\n", i)
		}
	}
	f := &fake{delay: func(string) time.Duration { return time.Millisecond }}
	out, sink, err := enrichString(t, b.String(), runOpts{concurrency: 8, searcher: lookup.Dedup(f)})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n != 3301 {
		t.Errorf("%d lines out, want 3301", n)
	}
	if len(f.calls) != 57 {
		t.Errorf("%d distinct values asked, want 50 + 7", len(f.calls))
	}
	for v, n := range f.calls {
		if n != 1 {
			t.Errorf("%s asked %d times", v, n)
		}
	}
	if f.calls["10.0.0.1"] != 0 || f.calls[""] != 0 {
		t.Error("an empty or skipped cell was asked")
	}
	// Cells counted for the exit code: looked-up ones only.
	if sink.Tally.NoMatch != 6000 || sink.Tally.Total() != 6000 || sink.Tally.Code(true) != failure.ExitNoMatch {
		t.Errorf("tally %+v, code %d; want 6000 no match, exit 1", sink.Tally, sink.Tally.Code(true))
	}
}

// Values repeated far apart, beyond what Dedup remembers, are still asked
// once each.
func TestRequestsDistinctFarApart(t *testing.T) {
	var b strings.Builder
	b.WriteString("ip\n")
	for range 3 {
		for i := range 5000 {
			fmt.Fprintf(&b, "198.51.%d.%d\n", i/250, i%250)
		}
	}
	f := &fake{}
	out, _, err := enrichString(t, b.String(), runOpts{concurrency: 4, searcher: lookup.Dedup(Remember(f, DefaultRemember))})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, ",no_match,"); n != 15000 {
		t.Errorf("%d rows answered, want 15000", n)
	}
	if len(f.calls) != 5000 {
		t.Errorf("%d distinct values asked, want 5000", len(f.calls))
	}
	for v, n := range f.calls {
		if n != 1 {
			t.Fatalf("%s asked %d times", v, n)
		}
	}
}

// A failing value fails its own cells, never a row: every row is written,
// the others' cells are answered, and the exit code is the failure's.
func TestErrorsPerCell(t *testing.T) {
	in := "ip,host\n192.0.2.13,a.example.com\n203.0.113.66,b.example.com\n192.0.2.13,\n"
	out, sink, err := enrichString(t, in, runOpts{concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := "ip,host,tl_ip_status,tl_ip_count,tl_ip_resources,tl_ip_url,tl_host_status,tl_host_count,tl_host_resources,tl_host_url\n" +
		"192.0.2.13,a.example.com,error,,,,no_match,0,,\n" +
		"203.0.113.66,b.example.com,matched,2,\"Passive DNS;IP reputation, v2\",https://ti.example/pdns?q=203.0.113.66,no_match,0,,\n" +
		"192.0.2.13,,error,,,,,,,\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if sink.Failed != 2 || !strings.HasPrefix(sink.FirstErr, "192.0.2.13: search: 503") {
		t.Errorf("Failed %d, FirstErr %q", sink.Failed, sink.FirstErr)
	}
	if code := sink.Tally.Code(true); code != failure.ExitService {
		t.Errorf("exit code %d, want %d", code, failure.ExitService)
	}
}

// Once the service cannot be reached, or refuses the token, no more
// requests go out, and every row is still written.
func TestStops(t *testing.T) {
	tests := []struct {
		name string
		kind failure.Kind
		wrap func(lookup.Searcher) lookup.Searcher
	}{
		// An unreachable service stops the same way, after a few values
		// in a row (lookup's tests and testdata/script/enrich.txtar).
		{"refused token", failure.Auth, lookup.StopSending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			s := tt.wrap(lookup.SearcherFunc(func(context.Context, string) (*api.SearchResponse, error) {
				calls.Add(1)
				return nil, failure.New(tt.kind, "down")
			}))
			var b strings.Builder
			b.WriteString("ip\n")
			for i := range 500 {
				fmt.Fprintf(&b, "203.0.113.%d\n", i%250)
			}
			out, sink, err := enrichString(t, b.String(), runOpts{searcher: lookup.Dedup(s)})
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(out, ",error,"); n != 500 {
				t.Errorf("%d rows with status error, want 500", n)
			}
			if calls.Load() != 1 {
				t.Errorf("%d requests, want 1", calls.Load())
			}
			if code := sink.Tally.Code(true); code != tt.kind.ExitCode() {
				t.Errorf("exit code %d, want %d", code, tt.kind.ExitCode())
			}
		})
	}
}

// A slow value holds back the rows after it only up to the ordering
// budget: the source is not read further while it waits.
func TestSlowValueBounded(t *testing.T) {
	release := make(chan struct{})
	s := lookup.SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		if v == "slow.example.com" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return &api.SearchResponse{Query: v}, nil
	})
	row := "x.example.com," + strings.Repeat("p", 1000) + "\n"
	var b strings.Builder
	b.WriteString("host,pad\nslow.example.com,p\n")
	for range 10000 {
		b.WriteString(row)
	}
	in := &countingReader{r: strings.NewReader(b.String())}
	src, layout, err := Open(in, Auto, []string{"host"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sink := NewSink(NewWriter(&out, layout, false))
	done := make(chan error)
	go func() {
		done <- lookup.Run(context.Background(), src, s, lookup.Options{Concurrency: 4, MaxHeld: 256 << 10}, sink)
	}()
	time.Sleep(200 * time.Millisecond)
	if n := in.n.Load(); n > 1<<20 {
		t.Errorf("%d bytes read while the first value waits; the budget is 256 KiB", n)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 10001 {
		t.Errorf("%d lines out, want 10001", n)
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// Ctrl-C: what was written is whole records, in order, and the run says
// it was interrupted.
func TestInterruptWholeRows(t *testing.T) {
	var b strings.Builder
	b.WriteString("ip,note\n")
	for i := range 2000 {
		fmt.Fprintf(&b, "203.0.%d.%d,\"a, b\nc\"\n", i/250, i%250)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int64
	s := lookup.SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		if calls.Add(1) == 300 {
			cancel()
		}
		return &api.SearchResponse{Query: v}, nil
	})
	out, _, err := enrichString(t, b.String(), runOpts{searcher: s, ctx: ctx, concurrency: 4})
	if failure.KindOf(err) != failure.Interrupted {
		t.Fatalf("err = %v, want interrupted", err)
	}
	recs := readAll(t, out, CSV)
	// How many rows are out when the cancel lands depends on the
	// scheduler (under load, none may be): what is out must be whole.
	if len(recs) < 1 || len(recs) > 2001 {
		t.Fatalf("%d records", len(recs))
	}
	for i, rec := range recs[1:] {
		cells := Cells(rec.Raw, CSV)
		if len(cells) != 6 || cells[0] != fmt.Sprintf("203.0.%d.%d", i/250, i%250) || cells[2] != NoMatch || rec.End != "\n" {
			t.Fatalf("record %d is not whole: %q", i+1, rec.Raw)
		}
	}
}

// A row longer than 1 MiB goes through whole.
func TestLongRow(t *testing.T) {
	long := strings.Repeat("a,\"b\"\n", 400<<10) // 2.4 MiB
	in := "note,ip\n\"" + strings.ReplaceAll(long, `"`, `""`) + "\",203.0.113.66\nshort,198.51.100.250\n"
	out, _, err := enrichString(t, in, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, out, CSV)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	cells := Cells(recs[1].Raw, CSV)
	if cells[0] != long || cells[1] != "203.0.113.66" || cells[2] != Matched {
		t.Errorf("the long row came out wrong: %d cells, status %q", len(cells), cells[2])
	}
}

// On a terminal, everything written is cleaned of what a terminal would
// act on or hide (escape sequences, U+202E, U+200B, U+009B), the input's
// bytes, its keys and the service's labels alike, by pkg/sanitize; NDJSON
// stays JSON. A file or a pipe gets the input's bytes unchanged.
func TestTerminalCleaned(t *testing.T) {
	const hostile = "\x1b]0;pwned\x07\u202e\u200b\u009b31m"
	tests := []struct {
		name, in string
		toNDJSON bool
	}{
		{"csv", "ip\u200b,log\n203.0.113.66,\"a" + hostile + "b\"\n203.0.113.99,x\n", false},
		{"csv to ndjson", "ip\u200b,log\n203.0.113.66,\"a" + hostile + "b\"\n203.0.113.99,x\n", true},
		{"ndjson", `{"ip\u200b":"203.0.113.66","log":"a\u001b]0;pwned\u0007\u202e"}` + "\n" + `{"ip\u200b":"203.0.113.99","raw":"\u009b"}` + "\n", false},
	}
	for _, tt := range tests {
		for _, tty := range []bool{false, true} {
			src, layout, err := Open(strings.NewReader(tt.in), Auto, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			w := NewWriter(&out, layout, tt.toNDJSON)
			w.Terminal = tty
			if err := w.Header(); err != nil {
				t.Fatal(err)
			}
			if err := lookup.Run(context.Background(), src, lookup.Dedup(&fake{}), lookup.Options{Concurrency: 1}, NewSink(w)); err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if tty {
				if i := strings.IndexFunc(got, func(r rune) bool { return r != '\n' && r != '\r' && sanitize.IsUnsafe(r) }); i >= 0 {
					t.Errorf("%s: %q reaches the terminal:\n%q", tt.name, []rune(got[i:])[0], got)
				}
			} else if tt.name == "csv" && !strings.HasPrefix(got, tt.in[:strings.IndexByte(tt.in, '\n')]) {
				t.Errorf("%s: the header changed for a file:\n%q", tt.name, got)
			}
			if layout.Format == NDJSON || tt.toNDJSON {
				for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
					if !json.Valid([]byte(l)) {
						t.Errorf("%s, tty %v: not JSON: %q", tt.name, tty, l)
					}
				}
			}
		}
	}
}

// A quote that opens a cell and never closes makes the rest of the input
// one record: it is a bad row, named by its line and written back
// unchanged, never taken silently as one long cell.
func TestUnclosedQuoteBadRow(t *testing.T) {
	rest := "198.51.100.250,\"never closed\n203.0.113.66,x\n"
	in := "ip,note\n203.0.113.66,ok\n" + rest
	out, sink, err := enrichString(t, in, runOpts{names: []string{"ip"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.BadRows) != 1 || !strings.Contains(sink.BadRows[0].Error(), "line 3: ") {
		t.Fatalf("bad rows %v, want one naming line 3", sink.BadRows)
	}
	if failure.ExitCode(sink.Tally.Err(nil, true)) != failure.ExitUsage {
		t.Errorf("exit %d, want 2", failure.ExitCode(sink.Tally.Err(nil, true)))
	}
	if !strings.HasSuffix(out, rest) || !strings.Contains(out, "203.0.113.66,ok,"+Matched) {
		t.Errorf("output:\n%s", out)
	}
	// In the header, it leaves no record to enrich: an error.
	if _, _, err := Open(strings.NewReader("ip,\"note\n1,2\n"), CSV, []string{"ip"}, nil); err == nil || !strings.Contains(err.Error(), "line 1: ") {
		t.Errorf("header: err = %v", err)
	}
}

// A ragged record never puts a cell under another column's name: a short
// one is padded to the header, so that the added cells stay under theirs;
// a long one is a bad row, named by its line and written back unchanged.
func TestRaggedRows(t *testing.T) {
	for _, f := range []Format{CSV, TSV} {
		d := string(Delimiter(f))
		row := func(cells ...string) string { return strings.Join(cells, d) + "\n" }
		header := row("n", "ip", "note")
		long := row("2", "203.0.113.66", "x", "extra")
		in := header + row("1", "203.0.113.66") + long + row("3", "198.51.100.250", "y")
		out, sink, err := enrichString(t, in, runOpts{format: f, names: []string{"ip"}})
		if err != nil {
			t.Fatal(err)
		}
		recs := readAll(t, out, f)
		if len(recs) != 4 {
			t.Fatalf("%v: %d records, want 4:\n%s", f, len(recs), out)
		}
		width := len(Cells(recs[0].Raw, f))
		for i, want := range map[int]string{1: Matched, 3: NoMatch} {
			if cells := Cells(recs[i].Raw, f); len(cells) != width || cells[3] != want {
				t.Errorf("%v: record %d: %q, want %d cells and %s under tl_ip_status", f, i, cells, width, want)
			}
		}
		if string(recs[2].Raw)+"\n" != long {
			t.Errorf("%v: the long row changed: %q", f, recs[2].Raw)
		}
		if len(sink.BadRows) != 1 || !strings.Contains(sink.BadRows[0].Error(), "line 3: 4 cells, the header has 3") {
			t.Errorf("%v: bad rows %v, want line 3 named", f, sink.BadRows)
		}
	}
}

// Written as NDJSON objects, a bad CSV record is still one object (its
// cells under their positions past the header, no looked-up field): the
// output stays NDJSON.
func TestBadRowsToNDJSON(t *testing.T) {
	in := "n,ip\n1,203.0.113.66,extra\n2,\"never closed\n3,x\n"
	out, sink, err := enrichString(t, in, runOpts{names: []string{"ip"}, toNDJSON: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.BadRows) != 2 {
		t.Errorf("bad rows %v, want 2", sink.BadRows)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("not JSON: %q", l)
		}
	}
	if len(lines) != 2 || !strings.Contains(lines[0], `"_3":"extra"`) {
		t.Errorf("output:\n%s", out)
	}
}

// A dotted --column reads nested objects, as an Elastic export writes them;
// a member whose own name has the dot wins.
func TestDottedField(t *testing.T) {
	in := `{"destination":{"ip":"203.0.113.66","port":443}}` + "\n" +
		`{"destination.ip":"203.0.113.66","destination":{"ip":"198.51.100.250"}}` + "\n" +
		`{"destination":{"ip":"198.51.100.250"}}` + "\n" +
		`{"destination":"203.0.113.66"}` + "\n"
	out, _, err := enrichString(t, in, runOpts{names: []string{"destination.ip"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`"tilookup":{"destination.ip":{"status":"matched"`,
		`"tilookup":{"destination.ip":{"status":"matched"`,
		`"tilookup":{"destination.ip":{"status":"no_match"`,
		`"tilookup":{}}`,
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %s\nwant %s", i+1, lines[i], w)
		}
	}
}
