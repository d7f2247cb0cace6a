package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output/format"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func TestMain(m *testing.M) {
	// Ambiguous-width characters ("—", "…") must measure the same on every
	// machine, or the goldens would depend on the locale.
	twwidth.SetEastAsian(false)
	os.Exit(m.Run())
}

// fakeErr is an error as the api package would return it.
type fakeErr struct {
	status int
	kind   failure.Kind
	msg    string
}

func (e *fakeErr) Error() string             { return e.msg }
func (e *fakeErr) HTTPStatus() int           { return e.status }
func (e *fakeErr) FailureKind() failure.Kind { return e.kind }

var (
	err503     = &fakeErr{503, failure.Server, "503 Service Unavailable: the service is failing; try again later"}
	errTimeout = failure.New(failure.Timeout, "request timed out after 30s")
	errEvil    = &fakeErr{400, failure.BadRequest, "400 Bad Request: \x1b]8;;https://evil.test/\x07bad q\x1b]8;;\x07 <&>"}
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b, "\n")
}

// decode reads a response the way the api package does: numbers as
// json.Number, Raw holding the exact bytes.
func decode(t *testing.T, raw []byte) *api.SearchResponse {
	t.Helper()
	var r api.SearchResponse
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	r.Raw = raw
	return &r
}

func rec(t *testing.T, input, fixture string) Record {
	t.Helper()
	return Record{Input: input, Query: input, Resp: decode(t, readFixture(t, fixture))}
}

func errRec(input string, err error) Record {
	return Record{Input: input, Query: input, Err: err}
}

// evilRec is the injection fixture, with invalid UTF-8 added after decoding
// (a JSON decoder would have replaced it already).
func evilRec(t *testing.T) Record {
	r := rec(t, "evil.test", "evil")
	r.Resp.Results[0].MatchedValue += "\xff\xfe"
	r.Resp.Results[0].Preview[0]["bad\xc3key"] = "v\xed\xa0\x80"
	r.Resp.UnsupportedReason = "\x1bPq#0;2\x1b\\dcs \xc2"
	return r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/output -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func printSearch(t *testing.T, opts Options, multi bool, recs ...Record) []byte {
	t.Helper()
	var b bytes.Buffer
	opts.Out = &b
	p, err := NewSearchPrinter(opts, multi)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := p.Add(r); err != nil {
			t.Fatalf("Add(%q): %v", r.Input, err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func printEvents(t *testing.T, opts Options, fixture string) []byte {
	t.Helper()
	var b bytes.Buffer
	opts.Out = &b
	if err := PrintEvents(opts, readFixture(t, fixture)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sgr is the only escape output may contain: our own colours.
var sgr = strings.NewReplacer(styleBold, "", styleDim, "", styleRed, "", styleReset, "")

// assertTerminalSafe fails if out holds anything a terminal would interpret,
// once our own colour codes are taken out.
func assertTerminalSafe(t *testing.T, out []byte) {
	t.Helper()
	s := sgr.Replace(string(out))
	if !utf8.ValidString(s) {
		t.Errorf("output is not valid UTF-8: %q", s)
	}
	for i := 0; i < len(s); i++ {
		// A tab is ours, between the cells of a piped bulk table; the
		// sanitizer turns a tab in data into a space.
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Errorf("output has control byte %#x at %d: %q", c, i, s)
		}
	}
	for _, r := range s {
		if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f {
			t.Errorf("output has rune %U: %q", r, s)
		}
	}
}

// assertNoLeak fails if the payloads of the fixtures' escape sequences show
// in any form.
func assertNoLeak(t *testing.T, out []byte) {
	t.Helper()
	s := string(out)
	for _, leak := range []string{"cm0gLXJmIC8K", "evil.test/", "]8;;", "]52;"} {
		if strings.Contains(s, leak) {
			t.Errorf("output still holds %q from an escape sequence: %q", leak, s)
		}
	}
}

func defang(s string) string {
	s = strings.ReplaceAll(s, "http", "hxxp")
	return strings.ReplaceAll(s, ".", "[.]")
}

func TestTableGolden(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		multi bool
		recs  func(t *testing.T) []Record
	}{
		{"table_single", Options{}, false, func(t *testing.T) []Record { return []Record{rec(t, "192.0.2.1", "basic")} }},
		{"table_preview", Options{Preview: true}, false, func(t *testing.T) []Record { return []Record{rec(t, "192.0.2.1", "basic")} }},
		{"table_preview_color", Options{Preview: true, Color: true, TTY: true}, false, func(t *testing.T) []Record { return []Record{rec(t, "192.0.2.1", "basic")} }},
		{"table_defang", Options{Defang: defang}, false, func(t *testing.T) []Record { return []Record{rec(t, "192.0.2.1", "basic")} }},
		{"table_nomatch", Options{}, false, func(t *testing.T) []Record { return []Record{rec(t, "198.51.100.7", "nomatch")} }},
		{"table_unsupported", Options{}, false, func(t *testing.T) []Record { return []Record{rec(t, "hello world", "unsupported")} }},
		{"table_bignum_preview", Options{Preview: true}, false, func(t *testing.T) []Record { return []Record{rec(t, "44d88612fea8a8f36de82e1278abb02f", "bignum")} }},
		{"table_error", Options{}, false, func(t *testing.T) []Record { return []Record{errRec("192.0.2.9", err503)} }},
		{"table_error_color", Options{Color: true}, false, func(t *testing.T) []Record { return []Record{errRec("192.0.2.9", err503)} }},
		{"table_multi", Options{}, true, multiRecs},
		{"table_multi_color", Options{Color: true}, true, multiRecs},
		{"table_multi_defang", Options{Defang: defang}, true, multiRecs},
		{"table_evil", Options{Preview: true}, false, func(t *testing.T) []Record { return []Record{evilRec(t)} }},
		{"table_evil_color", Options{Preview: true, Color: true}, false, func(t *testing.T) []Record { return []Record{evilRec(t)} }},
		{"table_evil_multi", Options{Color: true}, true, func(t *testing.T) []Record {
			return []Record{evilRec(t), errRec("x\x1b[2Jy", errEvil)}
		}},
		{"table_evil_error", Options{}, false, func(t *testing.T) []Record { return []Record{errRec("x\x1b[2Jy", errEvil)} }},
	}
	eicar := func(t *testing.T) []Record {
		return []Record{rec(t, "44d88612fea8a8f36de82e1278abb02f", "eicar")}
	}
	for _, w := range []int{80, 120, 200} {
		ws := fmt.Sprintf("_w%d", w)
		tests = append(tests,
			struct {
				name  string
				opts  Options
				multi bool
				recs  func(t *testing.T) []Record
			}{"table_eicar" + ws, Options{Width: w}, false, eicar},
			struct {
				name  string
				opts  Options
				multi bool
				recs  func(t *testing.T) []Record
			}{"table_eicar_preview" + ws, Options{Width: w, Preview: true}, false, eicar},
			struct {
				name  string
				opts  Options
				multi bool
				recs  func(t *testing.T) []Record
			}{"table_multi" + ws, Options{Width: w}, true, multiRecs},
			struct {
				name  string
				opts  Options
				multi bool
				recs  func(t *testing.T) []Record
			}{"table_bignum_preview" + ws, Options{Width: w, Preview: true}, false, func(t *testing.T) []Record {
				return []Record{rec(t, "44d88612fea8a8f36de82e1278abb02f", "bignum")}
			}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := printSearch(t, tt.opts, tt.multi, tt.recs(t)...)
			golden(t, tt.name, out)
			assertFits(t, out, tt.opts.Width)
			if tt.multi && tt.opts.Width == 0 {
				// Piped, the summary table is tab-separated: every
				// line has its five cells, whatever the data held.
				for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
					if n := strings.Count(line, "\t"); n != len(summaryColumns)-1 {
						t.Errorf("%d tabs in %q", n, line)
					}
				}
			}
			assertTerminalSafe(t, out)
			assertNoLeak(t, out)
			if !tt.opts.Color && bytes.Contains(out, []byte("\x1b")) {
				t.Errorf("colour codes without Color: %q", out)
			}
		})
	}
}

// assertFits fails when a line of out is wider than width (0: no limit).
func assertFits(t *testing.T, out []byte, width int) {
	t.Helper()
	if width == 0 {
		return
	}
	for _, line := range strings.Split(sgr.Replace(string(out)), "\n") {
		if w := twwidth.Width(line); w > width {
			t.Errorf("line is %d columns wide, more than %d: %q", w, width, line)
		}
	}
}

func multiRecs(t *testing.T) []Record {
	return []Record{
		rec(t, "192.0.2.1", "basic"),
		rec(t, "198.51.100.7", "nomatch"),
		errRec("192.0.2.9", err503),
		rec(t, "hello world", "unsupported"),
		rec(t, "44d88612fea8a8f36de82e1278abb02f", "bignum"),
		errRec("2001:db8::1", errTimeout),
		errRec("tab\there.example", &fakeErr{msg: "a\ttab in the message", kind: failure.Input}),
	}
}

func TestJSONGolden(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		multi bool
		recs  func(t *testing.T) []Record
	}{
		{"json_tty", Options{Format: JSON, TTY: true}, false, func(t *testing.T) []Record { return []Record{rec(t, "192.0.2.1", "basic")} }},
		{"json_piped", Options{Format: JSON}, false, func(t *testing.T) []Record { return []Record{rec(t, "192.0.2.1", "basic")} }},
		{"json_error_piped", Options{Format: JSON}, false, func(t *testing.T) []Record { return []Record{errRec("192.0.2.9", err503)} }},
		{"json_array_tty", Options{Format: JSON, TTY: true}, true, multiRecs},
		{"json_array_piped", Options{Format: JSON}, true, multiRecs},
		{"json_array_empty", Options{Format: JSON}, true, func(t *testing.T) []Record { return nil }},
		{"json_evil_tty", Options{Format: JSON, TTY: true}, true, func(t *testing.T) []Record {
			return []Record{rec(t, "evil.test", "evil"), errRec("x\x1b[2Jy", errEvil)}
		}},
		{"ndjson", Options{Format: NDJSON}, true, multiRecs},
		{"csv", Options{Format: CSV}, true, multiRecs},
		{"csv_defang", Options{Format: CSV, Defang: defang}, true, func(t *testing.T) []Record { return []Record{rec(t, "192.0.2.1", "basic")} }},
		{"csv_inject", Options{Format: CSV}, true, func(t *testing.T) []Record {
			return []Record{rec(t, "=1+1", "inject"), errRec("@x", &fakeErr{400, failure.BadRequest, "=bad"})}
		}},
		{"csv_inject_raw", Options{Format: CSV, CSVRaw: true}, true, func(t *testing.T) []Record { return []Record{rec(t, "=1+1", "inject")} }},
		{"csv_empty", Options{Format: CSV}, true, func(t *testing.T) []Record { return nil }},
		{"csv_evil_tty", Options{Format: CSV, TTY: true}, true, func(t *testing.T) []Record {
			return []Record{evilRec(t), errRec("x\x1b[2Jy", errEvil)}
		}},
		{"csv_evil_piped", Options{Format: CSV, CSVRaw: true}, true, func(t *testing.T) []Record {
			return []Record{rec(t, "evil.test", "evil")}
		}},
		{"jq_count", Options{JQ: ".results[].count"}, false, func(t *testing.T) []Record {
			return []Record{rec(t, "44d88612fea8a8f36de82e1278abb02f", "bignum")}
		}},
		{"jq_multi", Options{Format: JSON, JQ: `.query, (.error.status // .results[0].label), {q: .query, n: (.results // [] | length)}`}, true, multiRecs},
		{"jq_multi_tty", Options{Format: JSON, TTY: true, JQ: `.results[0].preview[0] // .error, .results[0].label // .query`}, true, func(t *testing.T) []Record {
			return []Record{rec(t, "192.0.2.1", "basic"), rec(t, "evil.test", "evil"), errRec("192.0.2.9", err503)}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := printSearch(t, tt.opts, tt.multi, tt.recs(t)...)
			golden(t, tt.name, out)
			if tt.opts.TTY {
				assertNoTerminalControls(t, out)
			}
		})
	}
}

// assertNoTerminalControls is the check for JSON on a terminal, where the
// escape sequences stay as \u escapes (visible text) rather than being removed,
// and for CSV on a terminal, which keeps TAB and LF inside quoted cells.
func assertNoTerminalControls(t *testing.T, out []byte) {
	t.Helper()
	s := string(out)
	if !utf8.ValidString(s) {
		t.Errorf("output is not valid UTF-8")
	}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f {
			t.Errorf("output has %U: %q", r, s)
		}
	}
}

func TestEventsGolden(t *testing.T) {
	formats := []struct {
		name string
		opts Options
	}{
		{"table", Options{Format: Table}},
		{"table_color", Options{Format: Table, Color: true}},
		{"json_tty", Options{Format: JSON, TTY: true}},
		{"json_piped", Options{Format: JSON}},
		{"ndjson", Options{Format: NDJSON}},
		{"csv", Options{Format: CSV}},
		{"csv_tty", Options{Format: CSV, TTY: true}},
		{"jq", Options{Format: Table, JQ: `.. | objects | select(has("id")) | .id`}},
	}
	for _, w := range []int{80, 120, 200} {
		formats = append(formats, struct {
			name string
			opts Options
		}{fmt.Sprintf("table_w%d", w), Options{Format: Table, Width: w}})
	}
	for _, fixture := range []string{"events_object", "events_array", "events_scalar", "events_demo"} {
		for _, f := range formats {
			name := fixture + "_" + f.name
			t.Run(name, func(t *testing.T) {
				out := printEvents(t, f.opts, fixture)
				golden(t, name, out)
				assertFits(t, out, f.opts.Width)
				if f.opts.Format == Table && f.opts.JQ == "" {
					assertTerminalSafe(t, out)
					assertNoLeak(t, out)
				}
				if f.opts.TTY {
					assertNoTerminalControls(t, out)
				}
			})
		}
	}
}

func TestEventsMalformed(t *testing.T) {
	for _, f := range format.Names() {
		var b bytes.Buffer
		err := PrintEvents(Options{Format: Format(f), Out: &b}, []byte(`{"a":`))
		if failure.KindOf(err) != failure.Decode {
			t.Errorf("%s: err = %v (kind %q), want a decode error", f, err, failure.KindOf(err))
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %q for a malformed body", f, b.String())
		}
	}
}

// TestExactNumbers: a count beyond 2^53, odd number spellings and unknown
// fields come out byte for byte.
func TestExactNumbers(t *testing.T) {
	raw := readFixture(t, "bignum")
	r := rec(t, "44d88612fea8a8f36de82e1278abb02f", "bignum")
	if got := printSearch(t, Options{Format: JSON}, false, r); string(got) != string(raw)+"\n" {
		t.Errorf("json:\n got %s\nwant %s", got, raw)
	}
	if got := printSearch(t, Options{Format: NDJSON}, true, r, r); string(got) != string(raw)+"\n"+string(raw)+"\n" {
		t.Errorf("ndjson:\n got %s", got)
	}
	if got := printSearch(t, Options{Format: JSON}, true, r); string(got) != "[\n"+string(raw)+"\n]\n" {
		t.Errorf("json array:\n got %s", got)
	}
	tty := printSearch(t, Options{Format: JSON, TTY: true}, false, r)
	var compact bytes.Buffer
	if err := json.Compact(&compact, tty); err != nil || compact.String() != string(raw) {
		t.Errorf("json on a terminal does not compact back to the input: %v\n%s", err, tty)
	}
	for expr, want := range map[string]string{
		".count":                        "null\n",
		".results[0].count":             "9007199254740993\n",
		".ratio, .big":                  "1.10\n[1e400,-0.0]\n",
		".results[0].preview[0].id":     "18446744073709551617\n",
		".results[0].count + 1 | . - 1": "9007199254740993\n",
		".server_version":               "2.4.1\n",
	} {
		if got := printSearch(t, Options{JQ: expr}, false, r); string(got) != want {
			t.Errorf("--jq %s = %q, want %q", expr, got, want)
		}
	}
	single := printSearch(t, Options{JQ: ".results[0].count"}, false, r)
	if string(single) != "9007199254740993\n" {
		t.Errorf("--jq .results[0].count = %q", single)
	}
}

func TestErrorRecords(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{err503, `{"query":"q","error":{"status":503,"kind":"server","message":"503 Service Unavailable: the service is failing; try again later"}}`},
		{errTimeout, `{"query":"q","error":{"kind":"timeout","message":"request timed out after 30s"}}`},
		{errors.New("plain <b>"), `{"query":"q","error":{"kind":"usage","message":"plain <b>"}}`},
		{fmtWrap(err503), `{"query":"q","error":{"status":503,"kind":"server","message":"search: 503 Service Unavailable: the service is failing; try again later"}}`},
	}
	for _, tt := range tests {
		got := printSearch(t, Options{Format: NDJSON}, true, errRec("q", tt.err))
		if string(got) != tt.want+"\n" {
			t.Errorf("ndjson error record:\n got %s\nwant %s", got, tt.want)
		}
		got = printSearch(t, Options{Format: JSON}, false, errRec("q", tt.err))
		if string(got) != tt.want+"\n" {
			t.Errorf("json error record:\n got %s\nwant %s", got, tt.want)
		}
	}
	// With nothing sent (input rejected locally), the input line is the query.
	got := printSearch(t, Options{Format: NDJSON}, true, Record{Input: "bad\x01", Err: failure.New(failure.Input, "control character")})
	if want := `{"query":"bad\u0001","error":{"kind":"input","message":"control character"}}` + "\n"; string(got) != want {
		t.Errorf("got %s want %s", got, want)
	}
}

type wrapped struct{ err error }

func (w wrapped) Error() string { return "search: " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func fmtWrap(err error) error { return wrapped{err} }

func TestJQErrors(t *testing.T) {
	_, err := NewSearchPrinter(Options{Out: &bytes.Buffer{}, JQ: ".results[ | foo"}, false)
	if err == nil || failure.KindOf(err) != failure.Usage || strings.Contains(err.Error(), "\n") {
		t.Fatalf("invalid --jq: err = %v", err)
	}
	if _, err := NewSearchPrinter(Options{Out: &bytes.Buffer{}, JQ: "nosuchfunc(1)"}, false); err == nil {
		t.Fatal("unknown function accepted")
	}
	var b bytes.Buffer
	p, err := NewSearchPrinter(Options{Out: &b, JQ: `.query, (.results[0].count + "x"), "never"`}, true)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Add(rec(t, "192.0.2.1", "basic"))
	if err == nil || strings.Contains(err.Error(), "\n") || failure.KindOf(err) != failure.Usage {
		t.Fatalf("runtime error: %v", err)
	}
	if b.String() != "192.0.2.1\n" {
		t.Errorf("output before the error = %q", b.String())
	}
	b.Reset()
	if err := p.Add(rec(t, "192.0.2.1", "basic")); err == nil {
		t.Error("second record: no error")
	}
	p2, _ := NewSearchPrinter(Options{Out: &b, JQ: `1, halt, 2`}, false)
	b.Reset()
	if err := p2.Add(rec(t, "192.0.2.1", "basic")); err != nil || b.String() != "1\n" {
		t.Errorf("halt: %v %q", err, b.String())
	}
	if err := PrintEvents(Options{Out: &b, JQ: "]["}, []byte("{}")); failure.KindOf(err) != failure.Usage {
		t.Errorf("events invalid jq: %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"table", "json", "ndjson", "csv", " JSON "} {
		if _, err := ParseFormat(s); err != nil {
			t.Errorf("ParseFormat(%q): %v", s, err)
		}
	}
	_, err := ParseFormat("xml")
	if err == nil || failure.KindOf(err) != failure.Usage {
		t.Fatalf("ParseFormat(xml) = %v", err)
	}
	for _, f := range format.Names() {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("message %q does not list %s", err, f)
		}
	}
	if _, err := NewSearchPrinter(Options{Format: "xml", Out: &bytes.Buffer{}}, false); err == nil {
		t.Error("NewSearchPrinter accepted format xml")
	}
}

// recordingWriter remembers each Write, to check that output streams.
type recordingWriter struct {
	bytes.Buffer
	writes int
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

func TestStreaming(t *testing.T) {
	r := rec(t, "192.0.2.1", "basic")
	for _, f := range []Format{JSON, NDJSON, CSV, Table} {
		var w recordingWriter
		bw := bufio.NewWriterSize(&w, 1<<20)
		p, err := NewSearchPrinter(Options{Format: f, Out: bw}, f != Table)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 3; i++ {
			if err := p.Add(r); err != nil {
				t.Fatal(err)
			}
			// Add leaves flushing to the caller: a fast stream is one
			// write per buffer, not per record.
			if w.writes != i-1 {
				t.Fatalf("%s: Add %d flushed the bufio.Writer (%d writes)", f, i, w.writes)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(w.Bytes(), []byte("192.0.2.1")) || w.writes != i {
				t.Fatalf("%s: record %d not flushed through the bufio.Writer (%d writes)", f, i, w.writes)
			}
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}

}

// TestSummaryStreamsAligned: rows written one at a time, with the stream
// flushed between them (answers coming slowly), line up with the header,
// whatever the length of the values, at every width.
func TestSummaryStreamsAligned(t *testing.T) {
	values := []string{"192.0.2.1", strings.Repeat("ab", 64), "example.com", strings.Repeat("c", 40), "x"}
	for _, width := range []int{80, 120, 200} {
		var w recordingWriter
		p, _ := NewSearchPrinter(Options{Out: &w, Width: width}, true)
		for i, v := range values {
			if err := p.Add(Record{Query: v, Resp: &api.SearchResponse{DetectedType: "sha512"}}); err != nil {
				t.Fatal(err)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			if w.writes != i+1 {
				t.Fatalf("row %d not written as it came (%d writes)", i, w.writes)
			}
		}
		p.Close()
		lines := strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n")
		if len(lines) != len(values)+1 {
			t.Fatalf("%d lines", len(lines))
		}
		col := strings.Index(lines[0], "TYPE")
		for _, line := range lines {
			if tw := twwidth.Width(line); tw > width {
				t.Errorf("width %d: line is %d wide: %q", width, tw, line)
			}
			if i := strings.Index(line, "TYPE"); i < 0 && twwidth.Width(line[:strings.Index(line, "sha512")]) != col {
				t.Errorf("width %d: TYPE column not at %d: %q", width, col, line)
			}
		}
	}
}

func TestTableCellsNotReformatted(t *testing.T) {
	// Keys are not title-cased or split, and piped (no width) nothing is cut
	// or wrapped.
	resp := &api.SearchResponse{Results: []api.Result{{
		Label: "x", MatchedValue: strings.Repeat("v ", 100), Preview: []map[string]any{{"matched_column": "a_b", "camelCase": strings.Repeat("w ", 60)}},
	}}}
	out := printSearch(t, Options{Preview: true}, false, Record{Query: "q", Resp: resp})
	for _, want := range []string{"matched_column", "camelCase", strings.Repeat("w ", 59) + "w", strings.Repeat("v ", 99) + "v"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("trailing space in %q", line)
		}
	}
}

func benchRecords(b *testing.B, opts Options, multi bool) {
	raw, err := os.ReadFile(filepath.Join("testdata", "basic.json"))
	if err != nil {
		b.Fatal(err)
	}
	var resp api.SearchResponse
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil {
		b.Fatal(err)
	}
	resp.Raw = bytes.TrimSpace(raw)
	r := Record{Input: "192.0.2.1", Query: "192.0.2.1", Resp: &resp}
	opts.Out = io.Discard
	p, err := NewSearchPrinter(opts, multi)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Add(r); err != nil {
			b.Fatal(err)
		}
	}
	if err := p.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkSummaryTable(b *testing.B) { benchRecords(b, Options{}, true) }
func BenchmarkSingleTable(b *testing.B)  { benchRecords(b, Options{Preview: true}, false) }
func BenchmarkNDJSON(b *testing.B)       { benchRecords(b, Options{Format: NDJSON}, true) }
func BenchmarkJSONArrayTTY(b *testing.B) { benchRecords(b, Options{Format: JSON, TTY: true}, true) }
func BenchmarkCSV(b *testing.B)          { benchRecords(b, Options{Format: CSV}, true) }
func BenchmarkJQ(b *testing.B)           { benchRecords(b, Options{JQ: ".results[].label"}, true) }

func TestResponseWithoutRaw(t *testing.T) {
	resp := &api.SearchResponse{Query: "q", DetectedType: "domain", Results: []api.Result{{Label: "L", Count: "7"}}}
	got := printSearch(t, Options{Format: JSON}, false, Record{Query: "q", Resp: resp}, Record{Query: "r"})
	want := `{"query":"q","detected_type":"domain","strategy":"","unsupported_reason":"","results":[{"resource":"","label":"L","group":"","matched_column":"","matched_value":"","count":7,"preview":null,"detail_url":""}]}` + "\n{}\n"
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// FuzzTableSafe: whatever the server sends, table output holds nothing a
// terminal would interpret.
func FuzzTableSafe(f *testing.F) {
	f.Add("\x1b]8;;http://x\x07y", "\u009b2J", "\x1bP\xff", "\u202e")
	f.Fuzz(func(t *testing.T, label, value, key, reason string) {
		resp := &api.SearchResponse{DetectedType: key, UnsupportedReason: reason, Results: []api.Result{{
			Label: label, MatchedValue: value, Count: json.Number(value), DetailURL: reason,
			Preview: []map[string]any{{key: value, label: []any{value, map[string]any{key: label}}}},
		}}}
		r := Record{Input: value, Query: label, Resp: resp}
		for _, multi := range []bool{false, true} {
			out := printSearch(t, Options{Preview: true, Color: multi}, multi, r, Record{Query: key, Err: errors.New(value)})
			assertTerminalSafe(t, out)
		}
	})
}

func printEventsRaw(t *testing.T, opts Options, raw string) []byte {
	t.Helper()
	var b bytes.Buffer
	opts.Out = &b
	if err := PrintEvents(opts, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestEmptyShapes(t *testing.T) {
	resp := &api.SearchResponse{Results: []api.Result{{Label: "x", Preview: []map[string]any{{}, {}}}}}
	out := printSearch(t, Options{Preview: true}, false, Record{Query: "q", Resp: resp})
	if bytes.Contains(out, []byte("Preview")) {
		t.Errorf("preview of empty records printed:\n%s", out)
	}
	for _, tt := range []struct {
		opts      Options
		raw, want string
	}{
		{Options{}, `[{},{}]`, "[\n  {},\n  {}\n]\n"},
		{Options{}, `{"a":[{}]}`, "a:  [{}]\n"},
		{Options{}, `{}`, "{}\n"},
		{Options{}, `[]`, "[]\n"},
		{Options{}, `"s\u001b]52;c;AAAA\u0007"`, "\"s␛\"\n"},
		{Options{}, `[1.10, 9007199254740993]`, "[\n  1.10,\n  9007199254740993\n]\n"},
		{Options{Format: CSV}, `[{},{}]`, "value\n{}\n{}\n"},
		{Options{Format: CSV}, `{}`, "value\n{}\n"},
		{Options{Format: CSV}, `-3`, "value\n'-3\n"},
	} {
		if got := printEventsRaw(t, tt.opts, tt.raw); string(got) != tt.want {
			t.Errorf("%s %s: got %q, want %q", tt.opts.Format, tt.raw, got, tt.want)
		}
	}
}

// TestEveryFormatPrintsOrRefuses: for each registered format, the search
// printer and the events printer either print or return an error, never
// nil, nil or silent nothing (a row added without its printer).
func TestEveryFormatPrintsOrRefuses(t *testing.T) {
	for _, name := range format.Names() {
		f := Format(name)
		p, err := NewSearchPrinter(Options{Format: f, Out: io.Discard}, true)
		if p == nil && err == nil {
			t.Errorf("NewSearchPrinter(%s) = nil, nil", f)
		}
		if r, _ := format.Lookup(name); r.Streams() != (err == nil) {
			t.Errorf("NewSearchPrinter(%s): err = %v; a printer is wanted exactly for streaming formats", f, err)
		}
		var b bytes.Buffer
		err = PrintEvents(Options{Format: f, Out: &b}, []byte(`{"a":1}`))
		if (err == nil) == (b.Len() == 0) {
			t.Errorf("PrintEvents(%s): err = %v, wrote %d bytes; want output or an error", f, err, b.Len())
		}
	}
}
