package triage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilookup/tilookup/internal/testenv"
	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// harness runs triage against a stub registry.
type harness struct {
	reg      *httpmock.Registry
	opts     *Options
	in       *bytes.Buffer
	out      *bytes.Buffer
	errOut   *bytes.Buffer
	settings map[string]string
}

func newHarness(t *testing.T, format output.Format) *harness {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	h := &harness{reg: &httpmock.Registry{}, in: in, out: out, errOut: errOut, settings: map[string]string{}}
	h.opts = &Options{
		IO: ios,
		Lookups: online.Lookups{
			Client: func(c int) (*api.Client, error) {
				return api.New(api.Options{
					BaseURL: "https://ti.test", Token: "tok", Retries: 0, Transport: h.reg,
					Sleep: func(context.Context, time.Duration) error { return nil },
				}, false)
			},
			Concurrency: 4,
		},
		Output:  func() (output.Options, error) { return output.Options{Format: format}, nil },
		Setting: func(k string) (string, error) { return h.settings[k], nil },
		Now:     func() time.Time { return time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC) },
		Input:   "auto",
	}
	return h
}

func (h *harness) run() error { return run(context.Background(), h.opts) }

// exitCode is the code cli.Main would exit with for err.
func exitCode(err error) int {
	var rep *failure.Reported
	var raised *failure.Raised
	switch {
	case errors.As(err, &rep):
		return rep.Code
	case errors.As(err, &raised):
		return raised.Code
	}
	return failure.ExitCode(err)
}

func answer(q string, labels ...string) string {
	var rs []string
	for i, l := range labels {
		rs = append(rs, fmt.Sprintf(`{"resource":"r%d","label":%q,"group":"g","matched_column":"c","matched_value":%q,"count":%d,"detail_url":"https://ti.test/r%d?q=%s"}`, i, l, q, i+2, i, q))
	}
	return fmt.Sprintf(`{"query":%q,"detected_type":"x","strategy":"exact","unsupported_reason":"","results":[%s]}`, q, strings.Join(rs, ","))
}

// stub answers value with the given resource labels (none: no match).
func (h *harness) stub(value string, labels ...string) *httpmock.Stub {
	return h.reg.Register(value, httpmock.Query("q", value), httpmock.JSON(answer(value, labels...)))
}

const sampleReport = `Incident: 44d88612fea8a8f36de82e1278abb02f called 203.0.113.66 and
login-update[.]example[.]net; internal 10.0.0.5 and 127.0.0.1, link 169.254.1.1.
Also 198.51.100.250 and again 203.0.113.66.
`

func TestSkippedValuesCostNoRequest(t *testing.T) {
	h := newHarness(t, output.NDJSON)
	h.in.WriteString(sampleReport)
	h.stub("44d88612fea8a8f36de82e1278abb02f", "Malware samples")
	h.stub("203.0.113.66", "IP reputation", "Passive DNS")
	h.stub("login-update.example.net")
	h.stub("198.51.100.250")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	h.reg.Verify(t)
	if n := h.reg.Requests(); n != 4 {
		t.Errorf("%d requests, want 4 (skipped values and repeats cost none)", n)
	}
	lines := strings.Split(strings.TrimSpace(h.out.String()), "\n")
	want := []string{
		`{"value":"44d88612fea8a8f36de82e1278abb02f","type":"md5","status":"matched","result":{"query":"44d88612fea8a8f36de82e1278abb02f"`,
		`{"value":"203.0.113.66","type":"ipv4","status":"matched",`,
		`{"value":"login-update.example.net","type":"domain","status":"no_match",`,
		`{"value":"198.51.100.250","type":"ipv4","status":"no_match",`,
		`{"value":"10.0.0.5","type":"ipv4","status":"skipped","reason":"private address"}`,
		`{"value":"127.0.0.1","type":"ipv4","status":"skipped","reason":"loopback address"}`,
		`{"value":"169.254.1.1","type":"ipv4","status":"skipped","reason":"link-local address"}`,
		`{"summary":{"total":7,"matched":2,"no_match":2,"unsupported":0,"failed":0,"skipped":3,"by_type":{"domain":1,"ipv4":5,"md5":1},"interrupted":false,"url_hosts":0,"skipped_by_reason":{"link-local address":1,"loopback address":1,"private address":1}}}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), h.out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
}

func TestNoSkipLooksEverythingUp(t *testing.T) {
	h := newHarness(t, output.NDJSON)
	h.in.WriteString("10.0.0.5 and 127.0.0.1")
	h.stub("10.0.0.5", "Internal")
	h.stub("127.0.0.1")
	h.opts.NoSkip = true
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	h.reg.Verify(t)
}

func TestJSONIsOneDocument(t *testing.T) {
	h := newHarness(t, output.JSON)
	h.in.WriteString(sampleReport + " CVE-2099-0001 and fail.example\n")
	h.stub("44d88612fea8a8f36de82e1278abb02f", "Malware samples")
	h.stub("203.0.113.66", "IP reputation")
	h.stub("login-update.example.net")
	h.stub("198.51.100.250")
	h.reg.Register("unsupported", httpmock.Query("q", "CVE-2099-0001"),
		httpmock.JSON(`{"query":"CVE-2099-0001","detected_type":"cve","unsupported_reason":"no CVE resource","results":[],"extra":{"n":12345678901234567890}}`))
	h.reg.Register("fail", httpmock.Query("q", "fail.example"), httpmock.Status(503, nil, "busy"))
	err := h.run()
	if exitCode(err) != failure.ExitService {
		t.Fatalf("err = %v (exit %d), want exit 6", err, exitCode(err))
	}
	var doc struct {
		Indicators []struct {
			Value  string          `json:"value"`
			Status string          `json:"status"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Status int    `json:"status"`
				Kind   string `json:"kind"`
			} `json:"error"`
		} `json:"indicators"`
		Skipped []struct{ Value, Type, Reason string } `json:"skipped"`
		Summary map[string]any                         `json:"summary"`
	}
	if err := json.Unmarshal(h.out.Bytes(), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, h.out)
	}
	statuses := map[string]string{}
	for _, ind := range doc.Indicators {
		statuses[ind.Value] = ind.Status
		if ind.Value == "CVE-2099-0001" && !bytes.Contains(ind.Result, []byte(`"extra":{"n":12345678901234567890}`)) {
			t.Errorf("the server's answer was changed: %s", ind.Result)
		}
		if ind.Value == "fail.example" && (ind.Error == nil || ind.Error.Status != 503 || ind.Error.Kind != "server" || ind.Result != nil) {
			t.Errorf("failed record: %+v", ind)
		}
	}
	want := map[string]string{"44d88612fea8a8f36de82e1278abb02f": "matched", "203.0.113.66": "matched",
		"login-update.example.net": "no_match", "198.51.100.250": "no_match", "CVE-2099-0001": "unsupported", "fail.example": "failed"}
	for v, s := range want {
		if statuses[v] != s {
			t.Errorf("%s: %q, want %q", v, statuses[v], s)
		}
	}
	if len(doc.Skipped) != 3 || doc.Skipped[0].Reason != "private address" {
		t.Errorf("skipped = %+v", doc.Skipped)
	}
	if doc.Summary["total"] != 9.0 || doc.Summary["failed"] != 1.0 || doc.Summary["unsupported"] != 1.0 {
		t.Errorf("summary = %v", doc.Summary)
	}
}

func TestExitCodesLikeGrep(t *testing.T) {
	for _, c := range []struct {
		name, text string
		labels     []string
		want       int
	}{
		{"a match", "see 198.51.100.7", []string{"IP reputation"}, 0},
		{"no match", "see 198.51.100.7", nil, 1},
		{"nothing to look up", "just words and 10.0.0.1", nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, output.NDJSON)
			h.in.WriteString(c.text)
			if strings.Contains(c.text, "198.51") {
				h.stub("198.51.100.7", c.labels...)
			}
			if got := exitCode(h.run()); got != c.want {
				t.Errorf("exit %d, want %d", got, c.want)
			}
		})
	}
}

// interruptAfterFirst runs triage over report one value at a time: the
// first (a1.example) matches, and the second request is where Ctrl-C
// comes (the context is cancelled while it waits).
func interruptAfterFirst(t *testing.T, format output.Format, report string) (*harness, error) {
	t.Helper()
	h := newHarness(t, format)
	h.in.WriteString(report)
	h.opts.Concurrency = 1
	ctx, cancel := context.WithCancel(context.Background())
	h.stub("a1.example", "Feed")
	h.reg.Register("slow", httpmock.Any(), func(r *http.Request) (*http.Response, error) {
		cancel()
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	return h, run(ctx, h.opts)
}

func TestInterruptKeepsWhatFinished(t *testing.T) {
	h, err := interruptAfterFirst(t, output.JSON, "a1.example a2.example a3.example a4.example\n")
	if exitCode(err) != failure.ExitInterrupted {
		t.Fatalf("err = %v, want exit 130", err)
	}
	var doc struct {
		Indicators []struct{ Value string } `json:"indicators"`
		Summary    struct{ Matched int }    `json:"summary"`
	}
	if err := json.Unmarshal(h.out.Bytes(), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, h.out)
	}
	if len(doc.Indicators) != 1 || doc.Indicators[0].Value != "a1.example" || doc.Summary.Matched != 1 {
		t.Errorf("kept %+v", doc)
	}
}

func TestTable(t *testing.T) {
	h := newHarness(t, output.Table)
	h.in.WriteString(sampleReport + " CVE-2099-0001\n")
	h.stub("44d88612fea8a8f36de82e1278abb02f", "Malware samples")
	h.stub("203.0.113.66", "IP reputation", "Passive DNS")
	h.stub("login-update.example.net")
	h.stub("198.51.100.250")
	h.reg.Register("cve", httpmock.Query("q", "CVE-2099-0001"),
		httpmock.JSON(`{"query":"CVE-2099-0001","unsupported_reason":"no CVE \u001b[31mresource","results":[]}`))
	h.opts.ShowSkipped = true
	h.opts.Defang = true
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	want := `8 indicators: 2 matched, 2 no match, 1 unsupported, 0 failed, 3 skipped

Matched (2)
  44d88612fea8a8f36de82e1278abb02f  md5   Malware samples 2
  203[.]0[.]113[.]66                ipv4  IP reputation 2, Passive DNS 3

No match (2)
  login-update[.]example[.]net  domain
  198[.]51[.]100[.]250          ipv4

Unsupported (1)
  CVE-2099-0001  cve  ` + sanitize.String("no CVE \x1b[31mresource") + `

Skipped (3)
  10[.]0[.]0[.]5     ipv4  private address
  127[.]0[.]0[.]1    ipv4  loopback address
  169[.]254[.]1[.]1  ipv4  link-local address
`
	if got := h.out.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestCSV(t *testing.T) {
	h := newHarness(t, output.CSV)
	h.in.WriteString("203.0.113.66 and =cmd.example and 10.0.0.1")
	h.stub("203.0.113.66", "IP reputation", "Passive DNS")
	h.stub("cmd.example")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	want := `value,type,status,resource,label,group,matched_column,matched_value,count,detail_url,reason,error,from_url
203.0.113.66,ipv4,matched,r0,IP reputation,g,c,203.0.113.66,2,https://ti.test/r0?q=203.0.113.66,,,
203.0.113.66,ipv4,matched,r1,Passive DNS,g,c,203.0.113.66,3,https://ti.test/r1?q=203.0.113.66,,,
cmd.example,domain,no_match,,,,,,,,,,
10.0.0.1,ipv4,skipped,,,,,,,,private address,,
`
	if got := h.out.String(); got != want {
		t.Errorf("csv:\n%s\nwant:\n%s", got, want)
	}
}

// A label from the service that a spreadsheet would run is neutralised,
// unless --csv-raw; on a terminal a control character never passes.
func TestCSVCellPolicy(t *testing.T) {
	for _, tc := range []struct {
		raw, tty bool
		want     string
	}{
		{false, false, `,"'=HYPERLINK(""http://x.test"")` + "\u0085\","},
		{true, false, `,"=HYPERLINK(""http://x.test"")` + "\u0085\","},
		{false, true, `,"'=HYPERLINK(""http://x.test"")`},
	} {
		h := newHarness(t, output.CSV)
		h.opts.CSVRaw = tc.raw
		h.opts.Output = func() (output.Options, error) { return output.Options{Format: output.CSV, TTY: tc.tty}, nil }
		h.in.WriteString("203.0.113.66")
		h.stub("203.0.113.66", "=HYPERLINK(\"http://x.test\")\u0085")
		if err := h.run(); err != nil {
			t.Fatal(err)
		}
		got := h.out.String()
		if !strings.Contains(got, tc.want) || tc.tty && strings.Contains(got, "\u0085") {
			t.Errorf("raw %v tty %v: %q, want %q in it", tc.raw, tc.tty, got, tc.want)
		}
	}
}

func TestAllowlistAndWarninglistsFromSettings(t *testing.T) {
	h := newHarness(t, output.NDJSON)
	dir := t.TempDir()
	allow := filepath.Join(dir, "allow.txt")
	os.WriteFile(allow, []byte("203.0.113.0/24\n"), 0o644)
	h.settings["allowlist"] = allow
	h.settings["warninglists"] = "../../../testdata/warninglists"
	h.in.WriteString("203.0.113.66 8.8.8.8 198.51.100.1 44d88612fea8a8f36de82e1278abb02f")
	// A cidr list (public resolvers) marks the address and looks it up;
	// a string list (EICAR) skips the hash.
	h.stub("8.8.8.8")
	h.stub("198.51.100.1")
	if exitCode(h.run()) != 1 {
		t.Fatal("want exit 1")
	}
	h.reg.Verify(t)
	for _, w := range []string{
		`"reason":"allowlist: 203.0.113.0/24"`,
		`{"value":"8.8.8.8","type":"ipv4","warninglists":["List of known IPv4 public DNS resolvers"],"status":"no_match"`,
		`{"value":"44d88612fea8a8f36de82e1278abb02f","type":"md5","status":"skipped","reason":"warninglist: EICAR test file hashes"}`,
		`"skipped_by_reason":{"allowlist: 203.0.113.0/24":1,"warninglist: EICAR test file hashes":1}`,
	} {
		if !strings.Contains(h.out.String(), w) {
			t.Errorf("missing %s in\n%s", w, h.out)
		}
	}

	h.settings["allowlist"] = filepath.Join(dir, "none.txt")
	if err := h.run(); exitCode(err) != 2 || h.reg.Requests() != 2 {
		t.Errorf("missing allow-list: %v, %d requests", err, h.reg.Requests())
	}
}

func TestInputErrorsBeforeAnyRequest(t *testing.T) {
	h := newHarness(t, output.NDJSON)
	h.opts.Files = []string{filepath.Join(t.TempDir(), "none.txt")}
	err := h.run()
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "cannot read") || h.reg.Requests() != 0 {
		t.Errorf("err = %v", err)
	}
	h.opts.Files = []string{t.TempDir()}
	if err := h.run(); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	h.opts.Files = nil
	h.opts.IO.SetTTY(true, false, false)
	if err := h.run(); exitCode(err) != 2 || !strings.Contains(err.Error(), "pipe a report") {
		t.Errorf("terminal stdin: %v", err)
	}
}

func TestNewCmdFillsOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *Options
	cmd := NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--input", "html", "-c", "8", "--rate", "5", "--no-skip", "--show-skipped", "--defang", "--csv-raw", "--limit", "3", "a.html", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Input != "html" || got.Concurrency != 8 || got.Rate != 5 || !got.NoSkip || !got.ShowSkipped || !got.Defang || !got.CSVRaw ||
		got.Limit != 3 || strings.Join(got.Files, " ") != "a.html -" {
		t.Errorf("options = %+v", got)
	}
	for _, args := range [][]string{{"--input", "pdf"}, {"-c", "0"}, {"-c", "65"}, {"--rate", "-1"}, {"--limit", "-2"}} {
		cmd := NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(context.Context, *Options) error { t.Error("ran with", args); return nil })
		cmd.SetArgs(args)
		cmd.SetErr(io.Discard)
		cmd.SetOut(io.Discard)
		if err := cmd.Execute(); exitCode(err) != 2 {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// A report of 100k lines (30 MB) goes through with memory bounded by the
// extraction blocks and the lookups in flight, not by the document.
func TestLongReportFlatMemory(t *testing.T) {
	testenv.Slow(t, "measures memory over a long report")
	if testing.Short() {
		t.Skip("long report")
	}
	const lines, distinct = 100_000, 500
	h := newHarness(t, output.NDJSON)
	h.opts.IO.In = &reportReader{lines: lines, distinct: distinct}
	h.reg.Register("any", httpmock.Any(), func(r *http.Request) (*http.Response, error) {
		return httpmock.JSON(answer(r.URL.Query().Get("q"), "Feed"))(r)
	})
	var counted countingWriter
	h.opts.IO.Out = &counted

	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
		}
	}()
	err := h.run()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if counted.lines != distinct+lines/100+1 {
		t.Errorf("%d output lines, want %d", counted.lines, distinct+lines/100+1)
	}
	grew := int64(peak.Load()) - int64(base)
	t.Logf("document %d MB, heap grew by at most %.1f MB", (&reportReader{lines: lines, distinct: distinct}).size()>>20, float64(grew)/(1<<20))
	if grew > 16<<20 {
		t.Errorf("heap grew by %d MB for a %d-line report: the document is being held", grew>>20, lines)
	}
}

// reportReader generates a long report line by line: prose, one of a few
// hundred domains, and every hundredth line a private address of its own.
type reportReader struct {
	lines, distinct, n int
	rest               []byte
}

const filler = "The actor reused infrastructure seen in earlier waves of the campaign, per the vendor write-up (see appendix) and our logs; "

func (r *reportReader) line(i int) string {
	s := fmt.Sprintf("%d. %s contact with host%d.example.com was observed", i, filler+filler, i%r.distinct)
	if i%100 == 0 {
		s += fmt.Sprintf(" from 10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	}
	return s + ".\n"
}

func (r *reportReader) size() int {
	n := 0
	for i := range r.lines {
		n += len(r.line(i))
	}
	return n
}

func (r *reportReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		if r.n == r.lines {
			return 0, io.EOF
		}
		r.rest = []byte(r.line(r.n))
		r.n++
	}
	k := copy(p, r.rest)
	r.rest = r.rest[k:]
	return k, nil
}

type countingWriter struct{ lines int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte("\n"))
	return len(p), nil
}

func TestDocuments(t *testing.T) {
	h := newHarness(t, output.MD)
	h.in.WriteString("203.0.113.66 and 10.0.0.1")
	h.stub("203.0.113.66", "IP reputation")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Triage of stdin\n", "| `203[.]0[.]113[.]66` | ipv4 | [IP reputation](https://ti.test/r0?q=203.0.113.66) |", "- `10[.]0[.]0[.]1` (ipv4): private address"} {
		if !strings.Contains(h.out.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, h.out)
		}
	}

	h = newHarness(t, output.STIX)
	h.in.WriteString("203.0.113.66")
	h.stub("203.0.113.66", "IP reputation")
	h.opts.TLP = "red"
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	var bundle struct {
		Type    string           `json:"type"`
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(h.out.Bytes(), &bundle); err != nil || bundle.Type != "bundle" {
		t.Fatalf("not a bundle (%v):\n%s", err, h.out)
	}
	if !strings.Contains(h.out.String(), `[ipv4-addr:value = '203.0.113.66']`) || !strings.Contains(h.out.String(), "TLP:RED") {
		t.Errorf("bundle:\n%s", h.out)
	}

	h = newHarness(t, output.JSON)
	h.opts.TLP = "red"
	h.in.WriteString("203.0.113.66")
	if err := h.run(); exitCode(err) != 2 || h.reg.Requests() != 0 {
		t.Errorf("--tlp with json: %v", err)
	}
}

func TestInterruptedTableSaysItIsIncomplete(t *testing.T) {
	for _, interrupt := range []bool{false, true} {
		h := newHarness(t, output.Table)
		h.in.WriteString("a1.example a2.example\n")
		h.opts.Concurrency = 1
		ctx, cancel := context.WithCancel(context.Background())
		h.stub("a1.example", "Feed")
		h.reg.Register("a2", httpmock.Query("q", "a2.example"), func(r *http.Request) (*http.Response, error) {
			if !interrupt {
				return httpmock.JSON(`{"query":"a2.example","results":[]}`)(r)
			}
			cancel()
			<-r.Context().Done()
			return nil, r.Context().Err()
		})
		err := run(ctx, h.opts)
		cancel()
		if got := strings.Contains(h.out.String(), "Incomplete: the run was interrupted"); got != interrupt || (exitCode(err) == failure.ExitInterrupted) != interrupt {
			t.Errorf("interrupted %v: exit %d, table:\n%s", interrupt, exitCode(err), h.out.String())
		}
	}
}

func TestTableSaysOneIndicator(t *testing.T) {
	h := newHarness(t, output.Table)
	h.in.WriteString("only 203.0.113.66 here\n")
	h.stub("203.0.113.66", "IP reputation")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if got := h.out.String(); !strings.HasPrefix(got, "1 indicator: 1 matched,") {
		t.Errorf("table starts %q", got)
	}
}

// At a terminal the table goes through the pager, started only once the
// lookups are done; piped, never.
func TestTablePagesAtATerminal(t *testing.T) {
	for _, tty := range []bool{true, false} {
		h := newHarness(t, output.Table)
		h.opts.Output = func() (output.Options, error) { return output.Options{Format: output.Table, TTY: tty}, nil }
		h.in.WriteString("only 203.0.113.66 here\n")
		h.stub("203.0.113.66", "IP reputation")
		started, stopped := 0, 0
		h.opts.StartPager = func() func() {
			started++
			if h.reg.Requests() == 0 {
				t.Error("the pager started before the lookups")
			}
			return func() { stopped++ }
		}
		if err := h.run(); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1, false: 0}[tty]; started != want || stopped != want {
			t.Errorf("tty %v: pager started %d, stopped %d times, want %d", tty, started, stopped, want)
		}
	}
}

// Quitting the pager before the end of a long table is no error: the
// reader has seen enough (it was "cannot write the output: pager closed").
func TestTableQuitPagerEarly(t *testing.T) {
	h := newHarness(t, output.Table)
	h.opts.Output = func() (output.Options, error) { return output.Options{Format: output.Table, TTY: true}, nil }
	h.in.WriteString("only 203.0.113.66 here\n")
	h.stub("203.0.113.66", "IP reputation")
	h.opts.StartPager = func() func() {
		h.opts.IO.Out = quitPager{}
		return func() {}
	}
	if err := h.run(); err != nil {
		t.Fatalf("%v (exit %d)", err, failure.ExitCode(err))
	}
}

type quitPager struct{}

func (quitPager) Write([]byte) (int, error) { return 0, iostreams.ErrClosedPager }

// The table fits the terminal and keeps its columns aligned, URL host
// rows too (issue 38): at 80 and 200 columns no line is wider, and each
// section's TYPE starts at one column; piped, nothing is cut.
func TestTableFitsAndAligns(t *testing.T) {
	long := "https://files.example.net/payloads/2026/11/loader-stage-two-of-the-campaign.bin"
	report := "44d88612fea8a8f36de82e1278abb02f and " + long + " and 198.51.100.250 and 10.0.0.5\n"
	for _, width := range []int{0, 80, 200} {
		h := newHarness(t, output.Table)
		h.opts.IO.SetTTY(false, width > 0, false)
		h.opts.IO.SetTerminalWidth(width)
		h.opts.Output = func() (output.Options, error) { return output.Options{Format: output.Table, TTY: width > 0}, nil }
		h.opts.ShowSkipped = true
		h.in.WriteString(report)
		h.stub("44d88612fea8a8f36de82e1278abb02f", "Malware samples", "Sandbox detonations", "Community IOC feed", "Phishing e-mail campaigns")
		h.stub(long)
		h.stub("files.example.net")
		h.stub("198.51.100.250")
		if err := h.run(); err != nil {
			t.Fatal(err)
		}
		out := h.out.String()
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if width > 0 && len([]rune(line)) > width {
				t.Errorf("width %d: a line of %d columns: %q", width, len([]rune(line)), line)
			}
		}
		if width == 0 && !strings.Contains(out, "host of "+long) {
			t.Errorf("piped: the URL was cut:\n%s", out)
		}
		// In each section, the types start at one column.
		for _, section := range strings.Split(out, "\n\n") {
			at := -1
			for _, line := range strings.Split(section, "\n") {
				i := typeColumn(line)
				if i < 0 {
					continue
				}
				if at >= 0 && i != at {
					t.Errorf("width %d: TYPE at column %d, then %d:\n%s", width, at, i, section)
				}
				at = i
			}
		}
	}
}

// typeColumn is where a row's type starts, -1 for a line that is no row.
func typeColumn(line string) int {
	for _, typ := range []string{"  md5", "  url", "  domain", "  ipv4"} {
		if i := strings.Index(line, typ); i > 0 && strings.HasPrefix(line, "  ") {
			return len([]rune(line[:i]))
		}
	}
	return -1
}

// A refused token: the table says once that nothing more was sent and
// why, not one long 401 line per indicator.
func TestRefusedTokenIsOneLine(t *testing.T) {
	h := newHarness(t, output.Table)
	for i := range 23 {
		fmt.Fprintf(h.in, "seen at host%d.example.com\n", i)
	}
	h.reg.Register("401", httpmock.Any(), httpmock.Status(401, nil, `{"message":"bad token"}`))
	err := h.run()
	if exitCode(err) != failure.ExitAuth {
		t.Fatalf("err = %v (exit %d), want exit 4", err, exitCode(err))
	}
	out := h.out.String()
	if n := strings.Count(out, "nothing more was sent: the service refused the token"); n != 1 {
		t.Fatalf("%d lines say that nothing more was sent:\n%s", n, out)
	}
	if strings.Contains(out, "401") || !strings.Contains(out, "Failed (23)") || !strings.Contains(out, "host22.example.com") {
		t.Fatalf("want the 23 values listed under one line, no 401 line each:\n%s", out)
	}
}

// An answer keeps its first api.KeptResults results (issue 28): the triage
// table keeps the whole answer's count and says how many resources it
// does not list.
func TestTableSaysHowManyMoreResources(t *testing.T) {
	body := `{"results":[` + strings.Repeat(`{"label":"Feed","count":2},`, api.KeptResults+2) + `{"label":"Feed","count":2}]}`
	resp, err := api.DecodeSearch([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	lean := trimmed(resp)
	if lean.ResultCount() != api.KeptResults+3 || lean.Raw != nil {
		t.Fatalf("trimmed: count %d, %d raw bytes", lean.ResultCount(), len(lean.Raw))
	}
	got := resources(report.Indicator{Value: "x", Resp: lean})
	if strings.Count(got, "Feed 2") != api.KeptResults || !strings.HasSuffix(got, ", … 3 more") {
		t.Errorf("resources: %d listed, ends %q", strings.Count(got, "Feed 2"), got[len(got)-30:])
	}
}

// Triage looks up each URL's host too (issue 38): the help says so, in
// the words the table uses for such a value, and the run does it.
func TestHelpSaysEachURLHostIsLookedUp(t *testing.T) {
	h := newHarness(t, output.JSON)
	h.in.WriteString("payload at hxxps://drop[.]example/x/y\n")
	h.stub("https://drop.example/x/y")
	h.stub("drop.example", "Feed")
	if err := h.run(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.out.String(), `"value":"drop.example","type":"domain","from_url":"https://drop.example/x/y"`) {
		t.Fatalf("the URL's host was not looked up:\n%s", h.out)
	}
	ios, _, _, _ := iostreams.Test()
	long := strings.Join(strings.Fields(NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, nil).Long), " ")
	for _, want := range []string{"Each URL's host is looked up too", report.TypeLabel("domain", "u"), "from_url"} {
		if !strings.Contains(long, want) {
			t.Errorf("triage --help does not say %q", want)
		}
	}
}

// Ctrl-C says how far the run got, "N of M", whatever the format (issue
// 38: -o md said only "interrupted").
func TestInterruptedSaysNOfM(t *testing.T) {
	for _, format := range []output.Format{output.MD, output.JSON, output.Table} {
		h, err := interruptAfterFirst(t, format, "a1.example a2.example a3.example a4.example 10.0.0.1\n")
		if exitCode(err) != failure.ExitInterrupted {
			t.Fatalf("%s: err = %v, want exit 130", format, err)
		}
		want := "interrupted: 1 of 4 indicators looked up (1 matched, 0 no match, 0 unsupported, 0 failed); the report covers those only. To finish, run the same command again: with the cache on (--cache 24h), answers it already received are not asked again\n"
		if got := h.errOut.String(); got != want {
			t.Errorf("%s: stderr\n got %q\nwant %q", format, got, want)
		}
	}
}

// -i without a terminal is a usage error before the run, so before any
// lookup, and nothing goes to stdout.
func TestInteractiveNeedsATerminal(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	ran := false
	cmd := NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(context.Context, *Options) error { ran = true; return nil })
	cmd.SetArgs([]string{"--sandbox", "-i", "report.txt"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if failure.ExitCode(err) != failure.ExitUsage || ran || out.Len() != 0 {
		t.Fatalf("exit %d (%v), ran %v, stdout %q", failure.ExitCode(err), err, ran, out)
	}
}

// The URL hosts are among the indicators counted, looked up or skipped:
// the note is on the total, not on "skipped"; on a narrow terminal the
// counts go to the next line whole.
func TestSummaryCountsURLHostsInTheTotal(t *testing.T) {
	sum := report.Summary{Total: 3, NoMatch: 3, Skipped: 1, URLHosts: 2}
	for width, want := range map[int]string{
		0:  "4 indicators (2 of them URL hosts): 0 matched, 3 no match, 0 unsupported, 0 failed, 1 skipped\n",
		40: "4 indicators (2 of them URL hosts):\n0 matched, 3 no match, 0 unsupported, 0 failed, 1 skipped\n",
	} {
		tt := &tableText{width: width}
		tt.render(&report.Report{}, sum, false)
		if got, _, _ := strings.Cut(tt.b.String(), "skipped\n"); got+"skipped\n" != want {
			t.Errorf("width %d: %q, want %q", width, tt.b.String(), want)
		}
	}
}
