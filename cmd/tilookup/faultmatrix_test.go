//go:build slow

package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// The fault matrix runs every fault the sandbox can inject against the real
// binary: one `search VALUE`, one `events me`, and a bulk `search` of
// bulkValues values of which bulkRate fault. For each it checks the exit
// code, that stderr is one clean line (or empty on success), that the token
// shows in no output, and in bulk that every value gets exactly one record,
// in input order, with the right error kind.
//
// Expected results (exit code for search / events; kind of a faulted bulk
// record, "-" when the fault does not fail the value):
//
//	fault                      search events  bulk kind
//	400                        2      2       bad_request
//	401                        4      4       auth          (the values after it not_sent)
//	403                        4      4       forbidden
//	404                        5      5       not_found
//	429, no Retry-After        6      6       rate_limited
//	429, Retry-After seconds   6      6       rate_limited  (retried after the pause)
//	429, Retry-After date      6      6       rate_limited  (retried after the pause)
//	500                        6      6       server
//	502 with an HTML page      6      6       server
//	503                        6      6       server
//	504                        6      6       server
//	connection refused         6      6       network       (a few; the rest not_sent)
//	reset mid-body             6      6       network
//	truncated JSON             6      6       network
//	malformed JSON             6      6       decode
//	wrong content type         0      0       -             (a JSON body is read as JSON)
//	empty body                 6      6       decode
//	JSON array, not object     6      0       decode        (events renders any JSON)
//	body 10x the size cap      6      6       decode
//	headers after the timeout  6      6       timeout
//	slow-drip body             6      6       timeout
//	redirect loop              6      6       network
//	redirect to another host   4      4       auth          (the token stays behind)
//	escape sequences, bidi,    0      0       -             (sanitized in table output)
//	invalid UTF-8
//	503 ISO-8859-1 HTML page   6      6       server        (quoted by its title, no panic)
//	invisible characters       0      0       -             (shown as <U+XXXX> in table output)
const (
	bulkValues = 200
	bulkRate   = 0.1
	cveValue   = "CVE-2021-44228"
)

type faultCase struct {
	name string
	// spec is the sandbox fault; other is the URL of a second, unfaulted
	// host, and path the endpoint the run calls.
	spec   func(other, path string) string
	search int
	events int
	kind   failure.Kind // kind of a faulted bulk record; "" = no error
	args   []string     // extra flags for every run
	// bulkArgs replace args in the bulk run.
	bulkArgs []string
	env      []string
	// refused: no server at all, so every bulk value fails.
	refused bool
	// minSingle is how long a single run must at least take, proving a
	// Retry-After was honoured.
	minSingle time.Duration
	// bulkRate, when not 0, replaces the package's bulkRate: a Retry-After
	// is whole seconds, and every one pauses the run, so these cases fault
	// fewer values (the assertions are the same).
	bulkRate float64
	// stderrHas and stdoutHas must appear in the single search's output.
	stderrHas, stdoutHas string
}

func fixed(s string) func(string, string) string { return func(string, string) string { return s } }

var retries0 = []string{"--retries", "0"}

// pausedBulk: every 429 with Retry-After pauses all workers for a second
// (the shared backoff), so at -c 8 a hundred of them serialise into minutes;
// more requests in flight let the pauses overlap.
var pausedBulk = []string{"--retries", "0", "-c", "64"}

// pausedRate faults two of the bulk values, where each fault pauses
// the whole run for a second or two (Retry-After is whole seconds, so the
// pause cannot be shorter): still several pauses, shared by the workers,
// in seconds rather than the 15 and 30 that a hundred of them took.
const pausedRate = 0.01

// timedOutBulk: each faulted value holds a worker until the timeout, so the
// bulk run of a timeout case faults timedOutRate of the values, with enough
// workers for them to wait together, and a timeout long enough that a
// healthy answer on a loaded machine (-race, CI) never reaches it.
var timedOutBulk = []string{"--retries", "0", "--timeout", "1s", "-c", "32"}

const timedOutRate = 0.02

func faultCases() []faultCase {
	return []faultCase{
		{name: "400", spec: fixed("400"), search: 2, events: 2, kind: failure.BadRequest},
		{name: "401", spec: fixed("401"), search: 4, events: 4, kind: failure.Auth},
		{name: "403", spec: fixed("403"), search: 4, events: 4, kind: failure.Forbidden},
		{name: "404", spec: fixed("404"), search: 5, events: 5, kind: failure.NotFound},
		{name: "429", spec: fixed("429"), search: 6, events: 6, kind: failure.RateLimited, args: retries0},
		{name: "429-retry-after-seconds", spec: fixed("429;retry-after=1"), search: 6, events: 6, kind: failure.RateLimited,
			args: []string{"--retries", "1"}, minSingle: time.Second, bulkArgs: pausedBulk, bulkRate: pausedRate},
		{name: "429-retry-after-date", spec: fixed("retry-after-date=1"), search: 6, events: 6, kind: failure.RateLimited,
			args: []string{"--retries", "1"}, minSingle: time.Second, bulkArgs: pausedBulk, bulkRate: pausedRate},
		{name: "500", spec: fixed("500"), search: 6, events: 6, kind: failure.Server},
		{name: "502-html", spec: fixed("html"), search: 6, events: 6, kind: failure.Server, args: retries0},
		{name: "503", spec: fixed("503"), search: 6, events: 6, kind: failure.Server, args: retries0},
		{name: "504", spec: fixed("504"), search: 6, events: 6, kind: failure.Server, args: retries0},
		{name: "connection-refused", search: 6, events: 6, kind: failure.Network, args: retries0, refused: true},
		{name: "reset-mid-body", spec: fixed("reset=mid"), search: 6, events: 6, kind: failure.Network, args: retries0},
		{name: "truncated-json", spec: fixed("truncate"), search: 6, events: 6, kind: failure.Network, args: retries0},
		{name: "malformed-json", spec: fixed("malformed"), search: 6, events: 6, kind: failure.Decode},
		{name: "wrong-content-type", spec: fixed("content-type=text/plain"), search: 0, events: 0},
		{name: "empty-body", spec: fixed("empty"), search: 6, events: 6, kind: failure.Decode},
		{name: "json-array", spec: fixed("array"), search: 6, events: 0, kind: failure.Decode},
		{name: "body-10x-cap", spec: fixed("huge=1"), search: 6, events: 6, kind: failure.Decode,
			env: []string{fmt.Sprintf("TILOOKUP_MAX_RESPONSE_SIZE=%d", (1<<20)/10)}},
		{name: "slow-headers", spec: fixed("latency=3s"), search: 6, events: 6, kind: failure.Timeout,
			args: []string{"--retries", "0", "--timeout", "300ms"}, bulkArgs: timedOutBulk, bulkRate: timedOutRate},
		{name: "slow-drip", spec: fixed("slow-drip=50ms"), search: 6, events: 6, kind: failure.Timeout,
			args: []string{"--retries", "0", "--timeout", "300ms"}, bulkArgs: timedOutBulk, bulkRate: timedOutRate},
		{name: "redirect-loop", spec: fixed("redirect-loop"), search: 6, events: 6, kind: failure.Network},
		{name: "redirect-other-host", spec: func(other, path string) string { return "redirect=" + other + path },
			search: 4, events: 4, kind: failure.Auth},
		{name: "escape-bidi-invalid-utf8", spec: fixed("escape"), search: 0, events: 0},
		{name: "503-html-latin1", spec: fixed("html-latin1"), search: 6, events: 6, kind: failure.Server, args: retries0,
			stderrHas: "HTML page: 503 Dienst vorübergehend nicht verfügbar"},
		{name: "invisible", spec: fixed("invisible"), search: 0, events: 0, stdoutHas: "evil<U+200B>.example"},
	}
}

// tokenRecorder serves a second host (search and events of a sandbox that
// knows the token) and remembers whether any request carried the token.
type tokenRecorder struct {
	token string
	next  http.Handler
	mu    sync.Mutex
	hits  int
	leaks []string
}

func (r *tokenRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.hits++
	for name, vals := range req.Header {
		if strings.Contains(strings.Join(vals, "\n"), r.token) {
			r.leaks = append(r.leaks, name)
		}
	}
	if strings.Contains(req.URL.String(), r.token) {
		r.leaks = append(r.leaks, "URL")
	}
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

func newSecondHost(t *testing.T, token string) (*httptest.Server, *tokenRecorder) {
	mux := http.NewServeMux()
	opts := sandbox.Options{Token: token}
	mux.Handle("/api/ti/resources/search", sandbox.NewSearchHandler(opts))
	mux.Handle("/api/events/me", sandbox.NewEventsHandler(opts))
	rec := &tokenRecorder{token: token, next: mux}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv, rec
}

// tilookupBinary is the test binary's copy that testscript.Main put first
// on PATH as "tilookup": the same cli.Main as the release binary, without a
// second `go build` (which cost a second of CPU per test that asked).
func tilookupBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("tilookup")
	if err != nil || !strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(bin))), "testscript-main") {
		t.Fatalf("tilookup on PATH is %q (%v), not the test binary's copy", bin, err)
	}
	return bin
}

func randomToken(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "tok-" + hex.EncodeToString(b)
}

// silentURL is a service that accepts connections and never answers, as
// a hung proxy or a load balancer with no backend does.
func silentURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or written
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

func closedPortURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// childEnv is env plus what the test binary's copy needs as a child: no
// second's sleep at exit under -race (the race runtime's default, some 80
// s over the suite), and go test -cover's GOCOVERDIR, without which every
// child warns on stderr.
func childEnv(env []string) []string {
	env = append(env[:len(env):len(env)], "GORACE=atexit_sleep_ms=0")
	if dir := os.Getenv("GOCOVERDIR"); dir != "" {
		env = append(env, "GOCOVERDIR="+dir)
	}
	return env
}

type runResult struct {
	code           int
	stdout, stderr []byte
	took           time.Duration
}

func runBinary(t *testing.T, bin string, env []string, stdin []byte, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = childEnv(env)
	cmd.Dir = t.TempDir()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	err := cmd.Run()
	res := runResult{stdout: out.Bytes(), stderr: errOut.Bytes(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ctx.Err() == nil:
		res.code = ee.ExitCode()
	default:
		t.Fatalf("%s: %v (stderr %q)", strings.Join(args, " "), err, errOut.String())
	}
	return res
}

// checkClean fails if out holds anything a terminal would act on, or a
// panic, or the token.
func checkClean(t *testing.T, what string, out []byte, token string) {
	t.Helper()
	s := string(out)
	if !utf8.ValidString(s) {
		t.Errorf("%s is not valid UTF-8: %q", what, s)
	}
	for i := 0; i < len(s); i++ {
		// A tab separates the cells of a piped bulk table; one from data
		// would add a cell, which checkTabs catches.
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Errorf("%s has control byte %#x at %d: %q", what, c, i, s)
			break
		}
	}
	for _, r := range s {
		if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f ||
			(r >= 0x200b && r <= 0x200d) || r == 0x2060 || r == 0xfeff || (r >= 0xe0000 && r <= 0xe007f) {
			t.Errorf("%s has %U: %q", what, r, s)
			break
		}
	}
	checkNoLeak(t, what, out, token)
}

func checkNoLeak(t *testing.T, what string, out []byte, token string) {
	t.Helper()
	if bytes.Contains(out, []byte(token)) {
		t.Errorf("%s holds the token", what)
	}
	for _, bad := range []string{"panic", "goroutine ", "runtime error"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("%s holds %q: %q", what, bad, out)
		}
	}
}

// checkStderr: nothing on success, else exactly one "tilookup: " line.
func checkStderr(t *testing.T, what string, res runResult, token string) {
	t.Helper()
	checkClean(t, what+" stderr", res.stderr, token)
	if res.code == 0 {
		if len(res.stderr) != 0 {
			t.Errorf("%s succeeded but wrote to stderr: %q", what, res.stderr)
		}
		return
	}
	s := string(res.stderr)
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") || !strings.HasPrefix(s, "tilookup: ") {
		t.Errorf("%s: stderr is not one \"tilookup: \" line: %q", what, s)
	}
}

func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the fault matrix runs the real binary ~70 times; CI runs it in its own step")
	}
	bin := tilookupBinary(t)

	values := make([]string, bulkValues)
	for i := range values {
		values[i] = fmt.Sprintf("host-%04d.example.com", i)
	}
	// selected says which values the sandbox faults at rate.
	selected := func(t *testing.T, rate float64) []bool {
		t.Helper()
		faulted := make([]bool, bulkValues)
		n := 0
		for i := range values {
			if faulted[i] = sandbox.RateSelects(values[i], rate); faulted[i] {
				n++
			}
		}
		if want := rate * bulkValues; n < 2 || float64(n) < want/3 || float64(n) > want*3 {
			t.Fatalf("%d of %d values fault at rate %v; pick other values", n, bulkValues, rate)
		}
		return faulted
	}
	stdin := []byte(strings.Join(values, "\n") + "\n")

	for _, tc := range faultCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			token := randomToken(t)
			other, rec := newSecondHost(t, token)
			// The three runs below are parallel subtests, each with its own
			// sandbox: a Retry-After or a timeout pauses one, not all three.
			// This check waits for them.
			t.Cleanup(func() {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				if len(rec.leaks) > 0 {
					t.Errorf("the token reached another host in %v", rec.leaks)
				}
				if tc.name == "redirect-other-host" && rec.hits == 0 {
					t.Error("the redirect never reached the other host")
				}
			})

			// start serves spec (none for a refused connection) and returns
			// the environment of a run against it.
			start := func(t *testing.T, spec string) []string {
				searchURL, eventsURL := closedPortURL(t), closedPortURL(t)
				if !tc.refused {
					srv, err := sandbox.Start(sandbox.Options{Token: token, Faults: spec}, "", "")
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { srv.Close() })
					searchURL, eventsURL = srv.SearchURL, srv.EventsURL
				}
				home := t.TempDir()
				return append([]string{
					"PATH=" + os.Getenv("PATH"),
					"HOME=" + home,
					"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
					"TILOOKUP_CONFIG=" + filepath.Join(home, "none.yaml"),
					"TILOOKUP_TOKEN=" + token,
					"TILOOKUP_BASE_URL=" + searchURL,
					"TILOOKUP_EVENTS_BASE_URL=" + eventsURL,
					"NO_COLOR=1",
				}, tc.env...)
			}
			args := func(a ...string) []string { return append(append([]string{}, a...), tc.args...) }
			spec := func(path string) string {
				if tc.refused {
					return ""
				}
				return tc.spec(other.URL, path)
			}

			t.Run("search", func(t *testing.T) {
				t.Parallel()
				env := start(t, spec("/api/ti/resources/search?q="+cveValue))
				res := runBinary(t, bin, env, nil, args("search", cveValue)...)
				t.Logf("exit %d in %s: %s", res.code, res.took.Round(time.Millisecond), bytes.TrimSpace(res.stderr))
				if res.code != tc.search {
					t.Errorf("exit %d, want %d (stderr %q)", res.code, tc.search, res.stderr)
				}
				checkStderr(t, "search", res, token)
				checkClean(t, "search stdout", res.stdout, token)
				if tc.search != 0 && len(res.stdout) != 0 {
					t.Errorf("search failed but printed %q", res.stdout)
				}
				if tc.search == 0 && !bytes.Contains(res.stdout, []byte(cveValue)) {
					t.Errorf("search printed no result: %q", res.stdout)
				}
				if !bytes.Contains(res.stderr, []byte(tc.stderrHas)) || !bytes.Contains(res.stdout, []byte(tc.stdoutHas)) {
					t.Errorf("want %q on stderr and %q on stdout; got %q and %q", tc.stderrHas, tc.stdoutHas, res.stderr, res.stdout)
				}
				if res.took < tc.minSingle {
					t.Errorf("search took %s: Retry-After (%s) was not honoured", res.took, tc.minSingle)
				}
			})

			t.Run("events", func(t *testing.T) {
				t.Parallel()
				env := start(t, spec("/api/events/me"))
				res := runBinary(t, bin, env, nil, args("events", "me")...)
				t.Logf("exit %d: %s", res.code, bytes.TrimSpace(res.stderr))
				if res.code != tc.events {
					t.Errorf("exit %d, want %d (stderr %q)", res.code, tc.events, res.stderr)
				}
				checkStderr(t, "events me", res, token)
				checkClean(t, "events me stdout", res.stdout, token)
				if tc.events != 0 && len(res.stdout) != 0 {
					t.Errorf("events me failed but printed %q", res.stdout)
				}
			})

			// bulk: bulkRate of the values faulted
			t.Run("bulk", func(t *testing.T) {
				t.Parallel()
				rate := bulkRate
				if tc.bulkRate != 0 {
					rate = tc.bulkRate
				}
				faulted := selected(t, rate)
				env := start(t, fmt.Sprintf("%s;rate=%v", spec("/api/ti/resources/search?q="+cveValue), rate))
				bulk := args("search", "-o", "ndjson", "-c", "8")
				if tc.bulkArgs != nil {
					bulk = append([]string{"search", "-o", "ndjson", "-c", "8"}, tc.bulkArgs...)
				}
				res := runBinary(t, bin, env, stdin, bulk...)
				t.Logf("exit %d in %s: %s", res.code, res.took.Round(time.Millisecond), bytes.TrimSpace(res.stderr))
				checkFaultBulk(t, tc, res, token, values, faulted)

				if tc.name == "escape-bidi-invalid-utf8" || tc.name == "invisible" {
					res = runBinary(t, bin, env, stdin, args("search", "-c", "8")...)
					if res.code != 0 {
						t.Errorf("bulk table: exit %d (stderr %q)", res.code, res.stderr)
					}
					checkClean(t, "bulk table stdout", res.stdout, token)
					for _, line := range strings.Split(strings.TrimSuffix(string(res.stdout), "\n"), "\n") {
						if n := strings.Count(line, "\t"); n != 4 {
							t.Errorf("bulk table: %d tabs, not 4, in %q", n, line)
						}
					}
				}
			})
		})
	}
}

func checkFaultBulk(t *testing.T, tc faultCase, res runResult, token string, values []string, faulted []bool) {
	t.Helper()
	checkNoLeak(t, "bulk stdout", res.stdout, token)
	checkClean(t, "bulk stderr", res.stderr, token)
	lines := strings.Split(strings.TrimSuffix(string(res.stdout), "\n"), "\n")
	if len(lines) != len(values) {
		t.Fatalf("bulk: %d lines for %d values (exit %d, stderr %q)", len(lines), len(values), res.code, res.stderr)
	}
	want, failed := 0, 0
	for i, line := range lines {
		var r struct {
			Query string `json:"query"`
			Error *struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bulk line %d does not parse: %v: %q", i+1, err, line)
		}
		if r.Query != values[i] {
			t.Fatalf("bulk line %d is for %q, want %q: out of order", i+1, r.Query, values[i])
		}
		fails := tc.kind != "" && (faulted[i] || tc.refused)
		// After a 401, or a few values in a row that could not connect,
		// the values not yet sent are not sent (lookup.StopSending).
		notSent := r.Error != nil && r.Error.Kind == string(failure.NotSent)
		if notSent {
			if tc.kind != failure.Auth && tc.kind != failure.Network || !strings.HasPrefix(r.Error.Message, "not sent:") {
				t.Errorf("bulk line %d (%s): not sent after a %s failure: %s", i+1, values[i], tc.kind, r.Error.Message)
			}
			fails = true
		}
		switch {
		case notSent:
		case fails && r.Error == nil:
			t.Errorf("bulk line %d (%s): no error record, want kind %s", i+1, values[i], tc.kind)
		case fails && r.Error.Kind != string(tc.kind):
			t.Errorf("bulk line %d (%s): error kind %s (%s), want %s", i+1, values[i], r.Error.Kind, r.Error.Message, tc.kind)
		case !fails && r.Error != nil:
			t.Errorf("bulk line %d (%s): unexpected error %s: %s", i+1, values[i], r.Error.Kind, r.Error.Message)
		}
		if fails {
			want = max(want, tc.search)
			failed++
		}
	}
	if res.code != want {
		t.Errorf("bulk: exit %d, want %d", res.code, want)
	}
	s := string(res.stderr)
	switch {
	case failed == 0 && s != "":
		t.Errorf("bulk without failures wrote to stderr: %q", s)
	case failed > 0 && (strings.Count(s, "\n") != 1 || !strings.Contains(s, fmt.Sprintf("%d failed", failed))):
		t.Errorf("bulk stderr is not the one summary line for %d failures: %q", failed, s)
	}
}

// TestTLSSettings runs the binary against an https sandbox whose
// certificate no system root knows: refused by default, trusted through
// ca_cert, and accepted with insecure_skip_verify only with a warning.
func TestTLSSettings(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := tilookupBinary(t)
	token := randomToken(t)
	srv := httptest.NewTLSServer(sandbox.NewSearchHandler(sandbox.Options{Token: token}))
	defer srv.Close()
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(extra ...string) []string {
		return append([]string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
			"TILOOKUP_CONFIG=" + filepath.Join(dir, "none.yaml"), "TILOOKUP_TOKEN=" + token,
			"TILOOKUP_BASE_URL=" + srv.URL, "NO_COLOR=1",
		}, extra...)
	}
	for _, tc := range []struct {
		name   string
		env    []string
		code   int
		stderr string
	}{
		{"system roots only", nil, 6, "certificate"},
		{"ca_cert", []string{"TILOOKUP_CA_CERT=" + caFile}, 0, ""},
		{"ca_cert missing", []string{"TILOOKUP_CA_CERT=" + filepath.Join(dir, "nope.pem")}, 3, "ca_cert"},
		{"ca_cert not PEM", []string{"TILOOKUP_CA_CERT=" + junk}, 3, "ca_cert"},
		{"insecure_skip_verify", []string{"TILOOKUP_INSECURE_SKIP_VERIFY=true"}, 0, "warning: insecure_skip_verify"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runBinary(t, bin, env(tc.env...), nil, "search", "--retries", "0", cveValue)
			if res.code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", res.code, tc.code, res.stderr)
			}
			checkClean(t, "stderr", res.stderr, token)
			if tc.stderr == "" && len(res.stderr) != 0 || strings.Count(string(res.stderr), "\n") > 1 {
				t.Errorf("stderr %q, want at most one line", res.stderr)
			}
			if !strings.Contains(string(res.stderr), tc.stderr) {
				t.Errorf("stderr %q does not say %q", res.stderr, tc.stderr)
			}
			if tc.code == 0 && !bytes.Contains(res.stdout, []byte(cveValue)) {
				t.Errorf("no result printed: %q", res.stdout)
			}
		})
	}
}

// A service that cannot be reached at all, with the default retries: a
// real closed port, a name that cannot resolve (.invalid, RFC 6761), and
// a server that accepts connections and never answers (time-outs). 2,000
// values end in seconds, not the minutes (or, silent, the hours) of
// retrying each one, with 2,000 records, the closing line saying once
// why, and exit 6.
func TestUnreachableServiceStopsARun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary over 2,000 values")
	}
	bin := tilookupBinary(t)
	const n = 2000
	values := make([]string, n)
	for i := range values {
		values[i] = fmt.Sprintf("host-%04d.example.com", i)
	}
	stdin := []byte(strings.Join(values, "\n") + "\n")
	const unreachable = "nothing more was sent: 3 values in a row could not reach the service"
	for _, tc := range []struct {
		name, url, cause, line, kind string
		args                         []string
	}{
		{"closed-port", closedPortURL(t), "connection refused", unreachable, string(failure.Network), nil},
		{"invalid-host", "https://tilookup-unreachable.invalid", "tilookup-unreachable.invalid", unreachable, string(failure.Network), nil},
		{"silent", silentURL(t), "no complete answer within 300ms", "nothing more was sent: 3 values in a row got no answer from the service",
			string(failure.Timeout), []string{"--timeout", "300ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
				"TILOOKUP_CONFIG=" + filepath.Join(home, "none.yaml"), "TILOOKUP_TOKEN=tok-unreachable",
				"TILOOKUP_BASE_URL=" + tc.url, "NO_COLOR=1"}
			res := runBinary(t, bin, env, stdin, append([]string{"search", "-o", "ndjson"}, tc.args...)...)
			t.Logf("exit %d in %s: %s", res.code, res.took.Round(time.Millisecond), bytes.TrimSpace(res.stderr))
			if res.code != failure.ExitService {
				t.Errorf("exit %d, want %d", res.code, failure.ExitService)
			}
			if res.took > 15*time.Second {
				t.Errorf("%d values took %s against a service that cannot be reached", n, res.took)
			}
			lines := strings.Split(strings.TrimSuffix(string(res.stdout), "\n"), "\n")
			if len(lines) != n {
				t.Fatalf("%d records for %d values", len(lines), n)
			}
			notSent := 0
			for i, line := range lines {
				var r struct {
					Query string                `json:"query"`
					Error struct{ Kind string } `json:"error"`
				}
				if err := json.Unmarshal([]byte(line), &r); err != nil || r.Query != values[i] {
					t.Fatalf("record %d: %v: %q", i+1, err, line)
				}
				switch r.Error.Kind {
				case string(failure.NotSent):
					notSent++
				case tc.kind:
				default:
					t.Fatalf("record %d: kind %q, want %s or not_sent", i+1, r.Error.Kind, tc.kind)
				}
			}
			if notSent < n-20 {
				t.Errorf("only %d of %d values were not sent", notSent, n)
			}
			s := string(res.stderr)
			if strings.Count(s, "\n") != 1 || !strings.Contains(s, tc.line) || !strings.Contains(s, tc.cause) {
				t.Errorf("stderr is not one closing line saying why (%q): %q", tc.cause, s)
			}
		})
	}
}

// SIGHUP (an ssh drop, a closed terminal) is handled as SIGTERM: a JSON
// array is closed, md and stix documents are written and say they are
// incomplete, triage JSON's summary says "interrupted", and the closing
// line says how far the run got.
func TestSIGHUPEndsARunCleanly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary")
	}
	bin := tilookupBinary(t)
	token := randomToken(t)
	srv, err := sandbox.Start(sandbox.Options{Token: token, Faults: "latency=100ms"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var values []string
	for i := range 200 {
		values = append(values, fmt.Sprintf("host-%04d.example.com", i))
	}
	stdin := strings.Join(values, "\n") + "\n"
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"TILOOKUP_CONFIG=" + filepath.Join(home, "none.yaml"), "TILOOKUP_TOKEN=" + token,
		"TILOOKUP_BASE_URL=" + srv.SearchURL, "NO_COLOR=1"}
	for _, tc := range []struct {
		name string
		args []string
		// check the whole stdout of the interrupted run
		check func(out []byte) error
	}{
		{"json", []string{"search", "-o", "json", "-c", "2"}, func(out []byte) error {
			var recs []json.RawMessage
			if err := json.Unmarshal(out, &recs); err != nil {
				return fmt.Errorf("not a closed JSON array: %v", err)
			}
			if len(recs) == 0 || len(recs) == len(values) {
				return fmt.Errorf("%d records: not interrupted mid-run", len(recs))
			}
			return nil
		}},
		{"md", []string{"search", "-o", "md", "-c", "2"}, func(out []byte) error {
			if !bytes.Contains(out, []byte("**Incomplete:**")) {
				return errors.New("the Markdown does not say it is incomplete")
			}
			return nil
		}},
		{"stix", []string{"search", "-o", "stix", "-c", "2"}, func(out []byte) error {
			if !bytes.Contains(out, []byte(`"abstract": "Incomplete: the run was interrupted"`)) || !json.Valid(out) {
				return errors.New("the bundle has no note saying it is incomplete")
			}
			return nil
		}},
		{"triage-json", []string{"triage", "-o", "json", "-c", "2", "--no-skip"}, func(out []byte) error {
			var doc struct {
				Summary struct {
					Interrupted *bool `json:"interrupted"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(out, &doc); err != nil {
				return fmt.Errorf("not one JSON document: %v", err)
			}
			if doc.Summary.Interrupted == nil || !*doc.Summary.Interrupted {
				return errors.New(`the summary does not say "interrupted": true`)
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(bin, tc.args...)
			cmd.Env, cmd.Dir = childEnv(env), t.TempDir()
			cmd.Stdin = strings.NewReader(stdin)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond)
			if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != failure.ExitInterrupted {
				t.Fatalf("exit %v, want %d (stderr %q)", err, failure.ExitInterrupted, errOut.String())
			}
			if err := tc.check(out.Bytes()); err != nil {
				t.Errorf("%v:\n%.600s", err, out.String())
			}
			checkClean(t, "stderr", errOut.Bytes(), token)
		})
	}
}
