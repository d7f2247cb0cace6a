package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
)

// harness runs search against a stub registry, writing NDJSON.
type harness struct {
	reg    *httpmock.Registry
	opts   *Options
	out    *bytes.Buffer
	errOut *bytes.Buffer
	// sleep replaces the client's waits between tries.
	sleep func(ctx context.Context, d time.Duration) error
}

func newHarness(t *testing.T, args ...string) *harness {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	h := &harness{reg: &httpmock.Registry{}, out: out, errOut: errOut}
	h.sleep = func(ctx context.Context, d time.Duration) error { return nil }
	h.opts = &Options{
		IO: ios,
		Lookups: online.Lookups{
			Client: func(c int) (*api.Client, error) {
				return api.New(api.Options{
					BaseURL: "https://ti.test", Token: "tok", Retries: 2, Transport: h.reg,
					Sleep: func(ctx context.Context, d time.Duration) error { return h.sleep(ctx, d) },
				}, false)
			},
			Concurrency: 4,
		},
		Output: func(jq string) (output.Options, error) {
			return output.Options{Format: output.NDJSON, JQ: jq}, nil
		},
		Args: args,
	}
	return h
}

func (h *harness) run(t *testing.T) error {
	t.Helper()
	return run(context.Background(), h.opts)
}

// queries are the "query" fields of the NDJSON records, in order.
func (h *harness) queries() []string {
	var qs []string
	for _, line := range strings.Split(strings.TrimSpace(h.out.String()), "\n") {
		if i := strings.Index(line, `"query":"`); i >= 0 {
			rest := line[i+len(`"query":"`):]
			qs = append(qs, rest[:strings.IndexByte(rest, '"')])
		}
	}
	return qs
}

func answer(q string, matches int) string {
	var rs []string
	for i := range matches {
		rs = append(rs, fmt.Sprintf(`{"resource":"r%d","label":"R%d","count":1}`, i, i))
	}
	return fmt.Sprintf(`{"query":%q,"detected_type":"domain","results":[%s]}`, q, strings.Join(rs, ","))
}

func TestIdenticalValuesAreAskedOnce(t *testing.T) {
	h := newHarness(t, "a.example", "b.example", "a.example", "A.EXAMPLE", "a.example")
	a := h.reg.Register("a", httpmock.Query("q", "a.example"), httpmock.Delay(5*time.Millisecond, httpmock.JSON(answer("a.example", 1))))
	b := h.reg.Register("b", httpmock.Query("q", "b.example"), httpmock.JSON(answer("b.example", 0)))
	if err := h.run(t); err != nil {
		t.Fatal(err)
	}
	h.reg.Verify(t)
	if a.Calls() != 1 || b.Calls() != 1 {
		t.Fatalf("a asked %d times, b %d times; want once each (A.EXAMPLE normalises to a.example)", a.Calls(), b.Calls())
	}
	if got := strings.Join(h.queries(), " "); got != "a.example b.example a.example a.example a.example" {
		t.Fatalf("records: %s", got)
	}
}

func TestOutputKeepsInputOrder(t *testing.T) {
	var args []string
	for i := range 60 {
		args = append(args, fmt.Sprintf("h%d.example", i))
	}
	h := newHarness(t, args...)
	h.opts.Concurrency = 8
	for i, v := range args {
		// Later values answer sooner: only the ordering puts them back.
		h.reg.Register(v, httpmock.Query("q", v), httpmock.Delay(time.Duration(60-i)*200*time.Microsecond, httpmock.JSON(answer(v, i%2))))
	}
	if err := h.run(t); err != nil {
		t.Fatal(err)
	}
	h.reg.Verify(t)
	if got, want := strings.Join(h.queries(), ","), strings.Join(args, ","); got != want {
		t.Fatalf("order:\n got %s\nwant %s", got, want)
	}
}

func TestConcurrencyBoundsRequestsInFlight(t *testing.T) {
	var args []string
	for i := range 40 {
		args = append(args, fmt.Sprintf("h%d.example", i))
	}
	for _, c := range []int{1, 3} {
		h := newHarness(t, args...)
		h.opts.Concurrency = c
		h.reg.Register("all", httpmock.Any(), httpmock.Delay(2*time.Millisecond, httpmock.JSON(answer("x", 1))))
		if err := h.run(t); err != nil {
			t.Fatal(err)
		}
		if got := h.reg.MaxInFlight(); got > c || (c > 1 && got < 2) {
			t.Errorf("-c %d: %d requests in flight at most", c, got)
		}
		if h.reg.Requests() != 40 {
			t.Errorf("-c %d: %d requests for 40 values", c, h.reg.Requests())
		}
	}
}

func TestRateSpacesRequests(t *testing.T) {
	h := newHarness(t, "a.example", "b.example", "c.example", "d.example", "e.example")
	h.opts.Rate = 20 // one request every 50 ms
	h.opts.Concurrency = 5
	h.reg.Register("all", httpmock.Any(), httpmock.JSON(answer("x", 1)))
	if err := h.run(t); err != nil {
		t.Fatal(err)
	}
	starts := h.reg.Starts()
	if len(starts) != 5 {
		t.Fatalf("%d requests", len(starts))
	}
	// A burst of 1: five requests span at least four intervals.
	if span := starts[4].Sub(starts[0]); span < 180*time.Millisecond {
		t.Fatalf("5 requests at --rate 20 spanned %v, want at least 200ms", span)
	}
}

func TestRateBelowDeadlineIsAUsageError(t *testing.T) {
	h := newHarness(t, "a.example", "b.example")
	h.opts.Rate = 1e-7
	err := h.run(t)
	if failure.ExitCode(err) != failure.ExitUsage || h.reg.Requests() != 0 {
		t.Fatalf("err %v after %d requests", err, h.reg.Requests())
	}
}

// A 503 with Retry-After delays only the value that got it; a 429 slows
// every request of the client.
func TestRetryAfterWaitsPerValueExcept429(t *testing.T) {
	for _, tc := range []struct {
		status     int
		othersWait bool
	}{{503, false}, {429, true}} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			h := newHarness(t, "slow.example", "b.example", "c.example")
			h.opts.Concurrency = 1 // so b and c go after slow's first try
			var mu sync.Mutex
			var sleeps []time.Duration
			h.sleep = func(ctx context.Context, d time.Duration) error {
				mu.Lock()
				sleeps = append(sleeps, d)
				mu.Unlock()
				return nil
			}
			refused := h.reg.Register("slow", httpmock.Query("q", "slow.example"), httpmock.Sequence(
				httpmock.Status(tc.status, map[string]string{"Retry-After": "7"}, `{"message":"busy"}`),
				httpmock.JSON(answer("slow.example", 1))))
			h.reg.Register("others", httpmock.Any(), httpmock.JSON(answer("x", 1)))
			if err := h.run(t); err != nil {
				t.Fatal(err)
			}
			h.reg.Verify(t)
			if refused.Calls() != 2 {
				t.Fatalf("the refused value was tried %d times, want 2", refused.Calls())
			}
			waits := 0
			for _, d := range sleeps {
				if d == 7*time.Second || d > 5*time.Second {
					waits++
				}
			}
			// The refused value waits its Retry-After; with a shared pause
			// the other values wait for it too (at -c 1 each value's try
			// runs after the pause began).
			if tc.othersWait && waits < 2 {
				t.Fatalf("429: other values did not wait for the shared pause: %v", sleeps)
			}
			if !tc.othersWait && waits != 1 {
				t.Fatalf("503: %d waits (%v), want only the refused value's", waits, sleeps)
			}
		})
	}
}

// -e is like grep: 0 when any value matched, 1 when none did, and an error
// wins over both.
func TestExitStatusIsGrepLike(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers map[string]int // matches per value; -1 = 404
		code    int
	}{
		{"one of two matched", map[string]int{"a.example": 2, "b.example": 0}, 0},
		{"none matched", map[string]int{"a.example": 0, "b.example": 0}, 1},
		{"an error wins", map[string]int{"a.example": 2, "b.example": -1}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "a.example", "b.example")
			h.opts.ExitStatus = true
			for v, n := range tc.answers {
				if n < 0 {
					h.reg.Register(v, httpmock.Query("q", v), httpmock.Status(404, nil, `{"message":"gone"}`))
					continue
				}
				h.reg.Register(v, httpmock.Query("q", v), httpmock.JSON(answer(v, n)))
			}
			err := h.run(t)
			if got := exitCode(err); got != tc.code {
				t.Fatalf("exit %d (%v), want %d", got, err, tc.code)
			}
		})
	}
}

func TestSingleValueErrorsComeBackAsErrors(t *testing.T) {
	h := newHarness(t, "a.example")
	h.reg.Register("a", httpmock.Any(), httpmock.Status(401, nil, `{"message":"bad token"}`))
	err := h.run(t)
	if failure.KindOf(err) != failure.Auth || h.out.Len() != 0 {
		t.Fatalf("err %v, output %q", err, h.out.String())
	}
	h = newHarness(t, "bad\x01value")
	if err := h.run(t); failure.KindOf(err) != failure.Input || h.reg.Requests() != 0 {
		t.Fatalf("a bad value: err %v after %d requests", err, h.reg.Requests())
	}
}

// exitCode is what the cli makes of err.
func exitCode(err error) int {
	var reported *failure.Reported
	var raised *failure.Raised
	switch {
	case err == nil:
		return 0
	case errors.As(err, &reported):
		return reported.Code
	case errors.As(err, &raised):
		return raised.Code
	}
	return failure.ExitCode(err)
}

func TestWebOpensTheDetailPageOfOneValue(t *testing.T) {
	h := newHarness(t, "a.example")
	h.reg.Register("a", httpmock.Query("q", "a.example"), httpmock.JSON(answer("a.example", 2)))
	var opened *api.SearchResponse
	var resource string
	h.opts.Web, h.opts.Resource = true, "r1"
	h.opts.OpenWeb = func(resp *api.SearchResponse, res string) error { opened, resource = resp, res; return nil }
	if err := h.run(t); err != nil {
		t.Fatal(err)
	}
	if opened == nil || opened.ResultCount() != 2 || resource != "r1" || h.out.Len() != 0 {
		t.Fatalf("opened %v for %q, output %q", opened, resource, h.out.String())
	}

	h = newHarness(t, "a.example", "b.example")
	h.opts.Web = true
	if err := h.run(t); failure.ExitCode(err) != failure.ExitUsage || h.reg.Requests() != 0 {
		t.Fatalf("--web with two values: %v", err)
	}
}

func TestResourceNeedsWeb(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cmd := NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(context.Context, *Options) error { return nil })
	cmd.SetArgs([]string{"--resource", "r1", "a.example"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); failure.ExitCode(err) != failure.ExitUsage || !strings.Contains(err.Error(), "--web") {
		t.Fatalf("err %v", err)
	}
}

func TestUnreadableFileFailsBeforeAnyRequest(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{"/nonexistent/iocs.txt": "cannot read /nonexistent/iocs.txt", dir: "is a directory"} {
		h := newHarness(t, "a.example")
		h.opts.Files = []string{name}
		h.reg.Register("a", httpmock.Any(), httpmock.JSON(answer("a.example", 1)))
		err := h.run(t)
		if failure.ExitCode(err) != failure.ExitUsage || h.reg.Requests() != 0 || !strings.Contains(err.Error(), want) {
			t.Fatalf("-f %s: err %v after %d requests", name, err, h.reg.Requests())
		}
	}
}

func TestARefusedTokenStopsTheStream(t *testing.T) {
	var args []string
	for i := range 300 {
		args = append(args, fmt.Sprintf("h%d.example", i))
	}
	h := newHarness(t, args...)
	h.reg.Register("all", httpmock.Any(), httpmock.Status(401, nil, `{"message":"bad token"}`))
	err := h.run(t)
	if exitCode(err) != failure.ExitAuth || h.reg.Requests() > 2*h.opts.Concurrency {
		t.Fatalf("exit %d after %d requests", exitCode(err), h.reg.Requests())
	}
	auth, notSent := strings.Count(h.out.String(), `"kind":"auth"`), strings.Count(h.out.String(), `"kind":"not_sent"`)
	if auth+notSent != 300 || notSent < 300-2*h.opts.Concurrency {
		t.Fatalf("%d auth and %d not_sent records for 300 values", auth, notSent)
	}
	// The closing line says once that nothing more was sent, and why.
	want := "300 values: 0 matched, 0 no match, 0 unsupported, 300 failed: nothing more was sent: the service refused the token for an earlier value; run `tilookup auth login` or set TILOOKUP_TOKEN, then run again\n"
	if got := h.errOut.String(); got != want {
		t.Fatalf("closing line\n got %q\nwant %q", got, want)
	}
}

func TestClosingLineNamesTheCommonReason(t *testing.T) {
	refused := failure.New(failure.Auth, "search: 401 Unauthorized: the token was not accepted")
	busy := failure.New(failure.Server, "search: 503 Service Unavailable")
	tests := []struct {
		errs []error
		want string
	}{
		{nil, ""},
		{[]error{nil, refused, refused}, ": search: 401 Unauthorized: the token was not accepted"},
		{[]error{busy, refused, busy, failure.New(failure.Interrupted, "interrupted")}, ", 2 of them: search: 503 Service Unavailable"},
		{[]error{failure.New(failure.Server, "a\x1b[31m\nb")}, ": a␛ b"},
		{append(badLines(9), busy, busy, busy, busy, busy, busy, busy, busy, busy, busy), ", 10 of them: search: 503 Service Unavailable"},
		{badLines(3), ": bad line 0"},
	}
	for _, tt := range tests {
		var w whyFailed
		for _, err := range tt.errs {
			w.add(err)
		}
		if got := w.String(); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.errs, got, tt.want)
		}
	}
}

// The sandbox's detail pages live as long as the sandbox: with a person at
// the terminal, --sandbox --web keeps it up until Ctrl-C; a script is not
// held.
func TestWebKeepsTheSandboxUpForAPerson(t *testing.T) {
	for _, tty := range []bool{false, true} {
		h := newHarness(t, "a.example")
		h.reg.Register("a", httpmock.Query("q", "a.example"), httpmock.JSON(answer("a.example", 1)))
		h.opts.IO.SetTTY(false, false, tty)
		h.opts.Web, h.opts.Sandbox = true, true
		closed := false
		h.opts.StartSandbox = func() (io.Closer, error) { return closer(func() { closed = true }), nil }
		h.opts.OpenWeb = func(*api.SearchResponse, string) error {
			if closed {
				t.Error("the sandbox ended before the page was opened")
			}
			return nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		if err := run(ctx, h.opts); err != nil {
			t.Fatal(err)
		}
		waited := time.Since(start) >= 50*time.Millisecond
		if waited != tty || !closed {
			t.Errorf("stderr a terminal %v: waited for Ctrl-C %v, sandbox closed %v", tty, waited, closed)
		}
		if tty != strings.Contains(h.errOut.String(), "until you press Ctrl-C") {
			t.Errorf("stderr a terminal %v: stderr %q", tty, h.errOut.String())
		}
	}
}

type closer func()

func (c closer) Close() error { c(); return nil }

// badLines are failures of one kind that each say something else.
func badLines(n int) []error {
	var errs []error
	for i := range n {
		errs = append(errs, failure.New(failure.Input, "bad line %d", i))
	}
	return errs
}

func TestDocumentClosingLineSaysWhyValuesFailed(t *testing.T) {
	h := newHarness(t, "a.example", "b.example")
	h.opts.Output = func(string) (output.Options, error) { return output.Options{Format: output.MD}, nil }
	h.reg.Register("a", httpmock.Query("q", "a.example"), httpmock.JSON(answer("a.example", 1)))
	h.reg.Register("b", httpmock.Query("q", "b.example"), httpmock.Status(503, nil, "busy"))
	err := h.run(t)
	if exitCode(err) != failure.ExitService || !strings.Contains(h.errOut.String(), "1 failed: search: 503") {
		t.Fatalf("exit %d, stderr %q", exitCode(err), h.errOut.String())
	}
}

// An interrupted run over a file says how far it got, "N of M" with M
// counted from the whole file, and --skip N goes on from there: the two
// runs together ask for every value once and have every record.
func TestInterruptedRunSaysNOfMAndSkipGoesOn(t *testing.T) {
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("h%02d.example", i))
	}
	file := filepath.Join(t.TempDir(), "iocs.txt")
	if err := os.WriteFile(file, []byte("# a comment\n"+strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHarness(t)
	h.opts.Files = []string{file}
	h.opts.Concurrency = 1
	h.reg.Register("stop at h10", httpmock.Query("q", "h10.example"), func(r *http.Request) (*http.Response, error) {
		cancel()
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	h.reg.Register("others", httpmock.Any(), func(r *http.Request) (*http.Response, error) {
		return httpmock.JSON(answer(r.URL.Query().Get("q"), 1))(r)
	})
	err := run(ctx, h.opts)
	if exitCode(err) != failure.ExitInterrupted {
		t.Fatalf("err %v", err)
	}
	first := h.queries()
	if len(first) != 10 {
		t.Fatalf("%d records before the interrupt, want 10: %v", len(first), first)
	}
	want := "interrupted: 10 of 40 values done (10 matched, 0 no match, 0 unsupported, 0 failed); to go on, run the same command with --skip 10 and its output appended (>>, not >)\n"
	if got := h.errOut.String(); got != want {
		t.Fatalf("closing line\n got %q\nwant %q", got, want)
	}

	h2 := newHarness(t)
	h2.opts.Files = []string{file}
	h2.opts.Skip = 10
	h2.reg.Register("all", httpmock.Any(), func(r *http.Request) (*http.Response, error) {
		return httpmock.JSON(answer(r.URL.Query().Get("q"), 1))(r)
	})
	if err := h2.run(t); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(append(first, h2.queries()...), ","); got != strings.Join(lines, ",") {
		t.Fatalf("the two runs together:\n%s\nwant\n%s", got, strings.Join(lines, ","))
	}
	if n := h2.reg.Requests(); n != 30 {
		t.Fatalf("--skip 10 asked %d values, want 30", n)
	}
}

// The closing line counts an unsupported value as the documents do
// (report.Indicator.Status), not as a no match.
func TestClosingLineCountsUnsupported(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	ios.SetTTY(false, false, true)
	s := &sink{io: ios}
	s.count(lookup.Result{Resp: &api.SearchResponse{UnsupportedReason: "value type is not supported"}})
	s.count(lookup.Result{Resp: &api.SearchResponse{}})
	s.count(lookup.Result{Resp: &api.SearchResponse{Results: []api.Result{{Resource: "r"}}}})
	s.report(false)
	if want := "3 values: 1 matched, 1 no match, 1 unsupported, 0 failed\n"; errOut.String() != want {
		t.Errorf("closing line %q, want %q", errOut.String(), want)
	}
	if code := s.tally.Code(true); code != failure.ExitOK {
		t.Errorf("exit %d with -e, want 0: a value matched", code)
	}
}

// -i without a terminal is a usage error before the run, so before any
// lookup, and nothing goes to stdout.
func TestInteractiveNeedsATerminal(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	ran := false
	cmd := NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(context.Context, *Options) error { ran = true; return nil })
	cmd.SetArgs([]string{"--sandbox", "-i", "a.example"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if failure.ExitCode(err) != failure.ExitUsage || ran || out.Len() != 0 {
		t.Fatalf("exit %d (%v), ran %v, stdout %q", failure.ExitCode(err), err, ran, out)
	}
}
