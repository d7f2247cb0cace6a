//go:build slow

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tilookup/tilookup/internal/testenv"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// The fleet tests run several tilookup processes against one real
// redis-server (cache_url) and one service that counts what it is asked:
// the processes share answers, ask each value once between them, keep one
// rate together, and lose nothing when Redis goes away.

// countingService is the sandbox behind a proxy that counts the requests
// of each value and the times they came, and refuses with 429 beyond
// perSecond (0: no limit) as a service enforcing a quota does.
type countingService struct {
	URL   string
	token string

	mu       sync.Mutex
	perValue map[string]int
	times    []time.Time
	refused  int
}

func startCountingService(t *testing.T, perSecond float64) *countingService {
	t.Helper()
	token := randomToken(t)
	sb, err := sandbox.Start(sandbox.Options{Token: token}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	target, _ := url.Parse(sb.SearchURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	cs := &countingService{token: token, perValue: map[string]int{}}
	var tokens float64 = 1
	last := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.mu.Lock()
		now := time.Now()
		if perSecond > 0 {
			// A bucket of perSecond a second that holds two fifths of a
			// second's slack for the jitter between the fleet's grant and
			// the request's arrival (a process descheduled under -race on
			// a loaded machine sends a few at once; CI on a busy box saw
			// a fifth overrun): the quota as a service enforces it.
			// maxInAnySecond checks the rate itself.
			tokens = min(max(3, perSecond*2/5), tokens+now.Sub(last).Seconds()*perSecond)
			last = now
			if tokens < 1 {
				cs.refused++
				cs.mu.Unlock()
				w.Header().Set("Retry-After", "1")
				http.Error(w, `{"error":"rate limited"}`, http.StatusTooManyRequests)
				return
			}
			tokens--
		}
		cs.perValue[r.URL.Query().Get("q")]++
		cs.times = append(cs.times, now)
		cs.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cs.URL = srv.URL
	return cs
}

// maxInAnySecond is the most requests the service saw within one second.
func (cs *countingService) maxInAnySecond() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	most := 0
	for i, start := range cs.times {
		n := 0
		for _, t := range cs.times[i:] {
			if t.Sub(start) >= time.Second {
				break
			}
			n++
		}
		most = max(most, n)
	}
	return most
}

// fleetEnv is one host of the fleet: its own home and disk cache.
func fleetEnv(t *testing.T, cs *countingService, extra ...string) []string {
	home := t.TempDir()
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"TILOOKUP_CONFIG=" + filepath.Join(home, "none.yaml"), "TILOOKUP_TOKEN=" + cs.token,
		"TILOOKUP_BASE_URL=" + cs.URL, "NO_COLOR=1"}, extra...)
}

// fleetValues are n values of which every process asks the first shared
// and n-shared of its own.
func fleetValues(proc, n, shared int) []string {
	var vs []string
	for i := range n {
		if i < shared {
			vs = append(vs, fmt.Sprintf("shared-%03d.example.com", i))
		} else {
			vs = append(vs, fmt.Sprintf("own-%d-%03d.example.com", proc, i))
		}
	}
	return vs
}

// checkRecords fails unless out holds one ndjson record per value, in
// order, each for its value.
func checkRecords(t *testing.T, who string, out []byte, values []string) {
	t.Helper()
	var got []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct {
			Value string `json:"query"`
			Error any    `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: a record that is not JSON: %q", who, sc.Text())
		}
		if rec.Error != nil {
			t.Errorf("%s: %s failed: %v", who, rec.Value, rec.Error)
		}
		got = append(got, rec.Value)
	}
	if !slices.Equal(got, values) {
		t.Errorf("%s: printed %d records for %d values (first %q)", who, len(got), len(values), got[:min(3, len(got))])
	}
}

// runFleet runs procs processes at once, each over its values, and
// returns their results.
func runFleet(t *testing.T, bin string, envs [][]string, values [][]string, args ...string) []runResult {
	t.Helper()
	res := make([]runResult, len(values))
	var wg sync.WaitGroup
	for i := range values {
		wg.Go(func() {
			res[i] = runBinary(t, bin, envs[i], []byte(strings.Join(values[i], "\n")+"\n"), args...)
		})
	}
	wg.Wait()
	return res
}

func TestFleetAsksEachValueOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary and redis-server")
	}
	addr, _ := testenv.Redis(t)
	cs := startCountingService(t, 0)
	bin := tilookupBinary(t)
	const procs, n, shared = 8, 40, 20
	var envs, values [][]string
	distinct := map[string]bool{}
	for p := range procs {
		envs = append(envs, fleetEnv(t, cs, "TILOOKUP_CACHE_URL=redis://"+addr+"/0", "TILOOKUP_CACHE=1h"))
		values = append(values, fleetValues(p, n, shared))
		for _, v := range values[p] {
			distinct[v] = true
		}
	}
	for p, r := range runFleet(t, bin, envs, values, "search", "-o", "ndjson", "-c", "4") {
		if r.code > 1 || len(r.stderr) > 0 {
			t.Errorf("process %d: exit %d, stderr %q", p, r.code, r.stderr)
		}
		checkRecords(t, fmt.Sprintf("process %d", p), r.stdout, values[p])
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.perValue) != len(distinct) {
		t.Errorf("the service saw %d distinct values, want %d", len(cs.perValue), len(distinct))
	}
	for v, c := range cs.perValue {
		if c != 1 || !distinct[v] {
			t.Errorf("the service was asked %q %d times, want once", v, c)
		}
	}
}

func TestFleetSharesOneRate(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary and redis-server")
	}
	addr, _ := testenv.Redis(t)
	const rate = 50
	cs := startCountingService(t, rate)
	bin := tilookupBinary(t)
	var envs, values [][]string
	for p := range 4 {
		envs = append(envs, fleetEnv(t, cs, "TILOOKUP_CACHE_URL=redis://"+addr+"/0", "TILOOKUP_SHARED_RATE="+strconv.Itoa(rate)))
		values = append(values, fleetValues(p, 40, 0))
	}
	start := time.Now()
	for p, r := range runFleet(t, bin, envs, values, "search", "-o", "ndjson", "-c", "8") {
		if r.code > 1 || len(r.stderr) > 0 {
			t.Errorf("process %d: exit %d, stderr %q", p, r.code, r.stderr)
		}
		checkRecords(t, fmt.Sprintf("process %d", p), r.stdout, values[p])
	}
	took := time.Since(start)
	// The fleet's bucket grants at the rate; arrivals wobble by the
	// scheduling of loaded processes, so a second's window may catch a
	// few granted just before it: a fifth of slack (a tenth failed once on
	// a box at load 14), no more. A burst of the whole fleet, or a rate per
	// process, would show as twice the rate or four times.
	if most := cs.maxInAnySecond(); most > rate+rate/5 {
		t.Errorf("the service saw %d requests within one second, want at most about %d", most, rate)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.refused != 0 {
		t.Errorf("the service refused %d requests with 429, want none", cs.refused)
	}
	// 160 requests at 50 a second take some 3s: the rate held overall too.
	if took < 2500*time.Millisecond {
		t.Errorf("160 requests at %d/s took %s", rate, took)
	}
}

func TestFleetGoesOnWhenRedisDies(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary and redis-server")
	}
	addr, redis := testenv.Redis(t, "--requirepass", "s3cret-pw")
	cs := startCountingService(t, 0)
	bin := tilookupBinary(t)
	values := fleetValues(0, 60, 60)
	stdin := []byte(strings.Join(values, "\n") + "\n")
	// Redis dies while the run is under way: the service answers slowly
	// enough that the kill lands mid-run.
	cmd := exec.Command(bin, "search", "-o", "ndjson", "-c", "2", "--cache", "1h", "--cache-url", "redis://:s3cret-pw@"+addr+"/0")
	cmd.Env = childEnv(fleetEnv(t, cs))
	cmd.Dir = t.TempDir()
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	slow := startSlowService(t, cs.URL, 10*time.Millisecond)
	cmd.Env = append(cmd.Env, "TILOOKUP_BASE_URL="+slow)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	_ = redis.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code > 1 {
		t.Fatalf("exit %d (%v): %s", code, err, errOut.String())
	}
	checkRecords(t, "the run", out.Bytes(), values)
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "shared cache") {
		t.Errorf("stderr: want one notice about the shared cache, got %q", errOut.String())
	}
	if strings.Contains(errOut.String(), "s3cret-pw") {
		t.Errorf("the password was printed: %q", errOut.String())
	}
}

// startSlowService forwards to target after a delay per request.
func startSlowService(t *testing.T, target string, delay time.Duration) string {
	u, _ := url.Parse(target)
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Garbage under tilookup's keys (answers and the rate bucket) is ignored
// and replaced: every record right, nothing on stderr; cache stats and
// clear --shared say which cache they mean.
func TestFleetIgnoresGarbageAndClears(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary and redis-server")
	}
	addr, _ := testenv.Redis(t)
	cs := startCountingService(t, 0)
	bin := tilookupBinary(t)
	cacheURL := "redis://" + addr + "/0"
	env := fleetEnv(t, cs, "TILOOKUP_CACHE_URL="+cacheURL, "TILOOKUP_CACHE=1h", "TILOOKUP_SHARED_RATE=1000")
	values := fleetValues(0, 10, 10)
	stdin := []byte(strings.Join(values, "\n") + "\n")
	if r := runBinary(t, bin, env, stdin, "search", "-o", "ndjson"); r.code > 1 || len(r.stderr) > 0 {
		t.Fatalf("first run: exit %d, stderr %q", r.code, r.stderr)
	}
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	defer rdb.Close()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "tilookup:*").Result()
	if err != nil || len(keys) < len(values) {
		t.Fatalf("keys after the first run: %d (%v), want an answer per value", len(keys), err)
	}
	for _, k := range keys {
		rdb.Set(ctx, k, "garbage", time.Hour)
	}
	// Another host (its own disk cache) over the same values.
	env2 := fleetEnv(t, cs, "TILOOKUP_CACHE_URL="+cacheURL, "TILOOKUP_CACHE=1h", "TILOOKUP_SHARED_RATE=1000")
	r := runBinary(t, bin, env2, stdin, "search", "-o", "ndjson")
	if r.code > 1 || len(r.stderr) > 0 {
		t.Errorf("over garbage: exit %d, stderr %q", r.code, r.stderr)
	}
	checkRecords(t, "over garbage", r.stdout, values)

	stats := runBinary(t, bin, env2, nil, "cache", "stats")
	if !strings.Contains(string(stats.stdout), "Shared:") || !strings.Contains(string(stats.stdout), " "+cacheURL+": "+strconv.Itoa(len(values))+" answers") {
		t.Errorf("cache stats does not show the shared cache's answers:\n%s%s", stats.stdout, stats.stderr)
	}
	clear := runBinary(t, bin, env2, nil, "cache", "clear", "--shared")
	if want := fmt.Sprintf("Removed %d answers from the shared cache %s.\n", len(values), cacheURL); string(clear.stdout) != want {
		t.Errorf("cache clear --shared: %q (stderr %q), want %q", clear.stdout, clear.stderr, want)
	}
	if left, _ := rdb.Keys(ctx, "tilookup:*").Result(); len(left) != 0 {
		t.Errorf("left after clear --shared: %q", left)
	}
}

// Redis failing before the run (refused, paused, TLS on a plain server,
// a wrong password): one notice, every record right, and the time bounded
// by the store's short timeouts.
func TestFleetGoesOnWhenRedisFails(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary and redis-server")
	}
	addr, _ := testenv.Redis(t)
	locked, _ := testenv.Redis(t, "--requirepass", "right-pw")
	paused, pausedCmd := testenv.Redis(t)
	if err := pausedCmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pausedCmd.Process.Signal(syscall.SIGCONT) })
	refused := strings.TrimPrefix(closedPortURL(t), "http://")
	cs := startCountingService(t, 0)
	bin := tilookupBinary(t)
	values := fleetValues(0, 20, 0)
	stdin := []byte(strings.Join(values, "\n") + "\n")
	for _, tc := range []struct{ name, url string }{
		{"refused", "redis://" + refused + "/0"},
		{"paused", "redis://" + paused + "/0"},
		{"TLS to a plain server", "rediss://" + addr + "/0"},
		{"wrong password", "redis://:wrong-pw@" + locked + "/0"},
	} {
		env := fleetEnv(t, cs, "TILOOKUP_CACHE_URL="+tc.url, "TILOOKUP_SHARED_RATE=1000", "TILOOKUP_CACHE=1h")
		r := runBinary(t, bin, env, stdin, "search", "-o", "ndjson", "-c", "4")
		if r.code > 1 {
			t.Errorf("%s: exit %d, stderr %q", tc.name, r.code, r.stderr)
		}
		checkRecords(t, tc.name, r.stdout, values)
		if n := strings.Count(string(r.stderr), "\n"); n != 1 || !strings.Contains(string(r.stderr), "shared cache") {
			t.Errorf("%s: want one notice about the shared cache, got %q", tc.name, r.stderr)
		}
		if strings.Contains(string(r.stderr), "wrong-pw") {
			t.Errorf("%s: the password was printed: %q", tc.name, r.stderr)
		}
		if r.took > 5*time.Second {
			t.Errorf("%s: took %s", tc.name, r.took)
		}
	}
}

// With the cache off, Redis keeps no answer: a second run moments after
// the first asks the service again, and no answer is left under
// tilookup's keys.
func TestFleetCacheOffKeepsNoAnswers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary and redis-server")
	}
	addr, _ := testenv.Redis(t)
	cs := startCountingService(t, 0)
	bin := tilookupBinary(t)
	env := fleetEnv(t, cs, "TILOOKUP_CACHE_URL=redis://"+addr+"/0")
	values := fleetValues(0, 5, 5)
	stdin := []byte(strings.Join(values, "\n") + "\n")
	for run := range 2 {
		r := runBinary(t, bin, env, stdin, "search", "-o", "ndjson", "--debug")
		if r.code > 1 {
			t.Fatalf("run %d: exit %d, stderr %q", run, r.code, r.stderr)
		}
		checkRecords(t, fmt.Sprintf("run %d", run), r.stdout, values)
		if strings.Contains(string(r.stderr), "shared cache hit") {
			t.Errorf("run %d was served from the shared cache with the cache off:\n%s", run, r.stderr)
		}
	}
	cs.mu.Lock()
	for _, v := range values {
		if c := cs.perValue[v]; c != 2 {
			t.Errorf("the service was asked %q %d times over two runs, want twice", v, c)
		}
	}
	cs.mu.Unlock()
	rdb := goredis.NewClient(&goredis.Options{Addr: addr})
	defer rdb.Close()
	if kept, err := rdb.Keys(context.Background(), "tilookup:a:*").Result(); err != nil || len(kept) != 0 {
		t.Errorf("answers kept in Redis with the cache off: %q (%v)", kept, err)
	}
}

// With the cache off, processes that want a value at the same moment
// still send one request: the others wait for its answer.
func TestFleetCacheOffSharesAnswersInFlight(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the real binary and redis-server")
	}
	addr, _ := testenv.Redis(t)
	cs := startCountingService(t, 0)
	// Slow enough that every process starts while the first one's
	// requests are still out.
	slow := startSlowService(t, cs.URL, 1500*time.Millisecond)
	bin := tilookupBinary(t)
	const procs = 4
	var envs, values [][]string
	for range procs {
		envs = append(envs, fleetEnv(t, cs, "TILOOKUP_CACHE_URL=redis://"+addr+"/0", "TILOOKUP_BASE_URL="+slow))
		values = append(values, fleetValues(0, 3, 3))
	}
	for p, r := range runFleet(t, bin, envs, values, "search", "-o", "ndjson", "-c", "4") {
		if r.code > 1 || len(r.stderr) > 0 {
			t.Errorf("process %d: exit %d, stderr %q", p, r.code, r.stderr)
		}
		checkRecords(t, fmt.Sprintf("process %d", p), r.stdout, values[p])
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, v := range values[0] {
		if c := cs.perValue[v]; c != 1 {
			t.Errorf("the service was asked %q %d times by %d processes at once, want once", v, c, procs)
		}
	}
}
