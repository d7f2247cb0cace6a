// Command bulk measures tilookup's bulk search against a minimal unordered
// Go client (bench/bulk/minclient) doing the same requests with the same
// concurrency against the same loopback server, in three conditions, and
// tilookup's peak memory on long inputs. It prints figures and ratios; run
// it from the repository root:
//
//	go run ./bench/bulk [-rounds 3] [-only a,b,c,rss]
//
//	(a) zero latency, 20,000 values, -c 16            target ratio <= 1.15
//	(b) 5,000 values, 20 ms, 1% of values at 1-2 s    target ratio <= 1.15
//	(c) 1,000 values, 20 ms, 2% refused once with 503
//	    and Retry-After: 1                             target ratio <= 1.30
//	peak RSS at 20,000 and 200,000 lines: flat (<= 1.5x) and under 60 MB
//
// The slow and refused values are picked from a hash of the value, so they
// are the same for both clients.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tilookup/tilookup/bench/internal/benchutil"
)

const token = "bench-token"

// scenario is how the server answers during one condition.
type scenario struct {
	name    string
	values  int
	base    time.Duration // every answer's latency
	slowPct uint32        // per ten thousand values: answered in 1-2 s
	refuse  uint32        // per ten thousand values: refused once with 503
	target  float64
}

var scenarios = []scenario{
	{name: "a", values: 20000, target: 1.15},
	{name: "b", values: 5000, base: 20 * time.Millisecond, slowPct: 100, target: 1.15},
	{name: "c", values: 1000, base: 20 * time.Millisecond, refuse: 200, target: 1.30},
}

func main() {
	rounds := flag.Int("rounds", 3, "timed rounds of each client, alternating")
	c := flag.Int("c", 16, "concurrency for both clients")
	only := flag.String("only", "a,b,c,rss", "which measurements to run")
	flag.Parse()
	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		want[strings.TrimSpace(s)] = true
	}

	dir, err := os.MkdirTemp("", "tilookup-bulk")
	check(err)
	defer os.RemoveAll(dir)
	tl := filepath.Join(dir, "tilookup")
	mc := filepath.Join(dir, "minclient")
	build(tl, "./cmd/tilookup")
	build(mc, "./bench/bulk/minclient")
	srv := &server{}
	base := srv.start()

	fmt.Printf("bulk search, -c %d, median of %d rounds, tilookup -o ndjson vs a minimal unordered client\n", *c, *rounds)
	for _, sc := range scenarios {
		if !want[sc.name] {
			continue
		}
		values := filepath.Join(dir, "values-"+sc.name+".txt")
		writeValues(values, sc.values)
		srv.set(sc)
		var tTL, tMC, cTL, cMC []time.Duration
		for range *rounds {
			srv.reset()
			wall, cpu := timed(mc, "-c", strconv.Itoa(*c), "-base", base, "-token", token, values)
			tMC, cMC = append(tMC, wall), append(cMC, cpu)
			srv.reset()
			wall, cpu = timed(tl, "search", "--base-url", base, "-o", "ndjson", "-c", strconv.Itoa(*c), "-f", values)
			tTL, cTL = append(tTL, wall), append(cTL, cpu)
		}
		mt, mm := benchutil.Median(tTL), benchutil.Median(tMC)
		fmt.Printf("(%s) %s\n", sc.name, sc.describe())
		fmt.Printf("    minimal client %8v   tilookup %8v   ratio %.2f (target <= %.2f)\n",
			mm.Round(time.Millisecond), mt.Round(time.Millisecond), float64(mt)/float64(mm), sc.target)
		fmt.Printf("    CPU (user+sys) %8v            %8v   ratio %.2f (the clients' own work; the server shares the cores)\n",
			benchutil.Median(cMC).Round(time.Millisecond), benchutil.Median(cTL).Round(time.Millisecond), float64(benchutil.Median(cTL))/float64(benchutil.Median(cMC)))
	}

	if !want["rss"] {
		return
	}
	srv.set(scenario{})
	fmt.Println("peak RSS of tilookup search -o ndjson (maximum resident set size)")
	var first int64
	for _, lines := range []int{20000, 200000} {
		f := filepath.Join(dir, "rss.txt")
		writeValues(f, lines)
		kb := peakRSS(tl, "search", "--base-url", base, "-o", "ndjson", "-c", strconv.Itoa(*c), "-f", f)
		ratio := ""
		if first == 0 {
			first = kb
		} else {
			ratio = fmt.Sprintf("  (%.2fx of %d lines; target <= 1.5x)", float64(kb)/float64(first), 20000)
		}
		fmt.Printf("    %7d lines: %6.1f MB%s\n", lines, float64(kb)/1024, ratio)
	}
	fmt.Println("    target: under 60 MB")
}

func (s scenario) describe() string {
	switch {
	case s.slowPct > 0:
		return fmt.Sprintf("%d values, %v latency, %.0f%% of values at 1-2 s", s.values, s.base, float64(s.slowPct)/100)
	case s.refuse > 0:
		return fmt.Sprintf("%d values, %v latency, %.0f%% refused once with 503 and Retry-After: 1", s.values, s.base, float64(s.refuse)/100)
	}
	return fmt.Sprintf("%d values, no added latency", s.values)
}

// server is a minimal search endpoint on loopback: it checks the token and
// answers a small, valid response echoing q, with the scenario's latency
// and refusals.
type server struct {
	mu      sync.Mutex
	sc      scenario
	refused map[string]bool
}

func (s *server) set(sc scenario) { s.mu.Lock(); s.sc = sc; s.mu.Unlock() }
func (s *server) reset()          { s.mu.Lock(); s.refused = map[string]bool{}; s.mu.Unlock() }

func (s *server) start() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go http.Serve(l, s)
	return "http://" + l.Addr().String()
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(401)
		return
	}
	q := r.URL.Query().Get("q")
	h := fnv.New32a()
	h.Write([]byte(q))
	sum := h.Sum32()
	s.mu.Lock()
	sc := s.sc
	refuse := sum%10000 < sc.refuse && !s.refused[q]
	if refuse {
		s.refused[q] = true
	}
	s.mu.Unlock()
	delay := sc.base
	if (sum>>8)%10000 < sc.slowPct {
		delay = time.Second + time.Duration(sum%1000)*time.Millisecond
	}
	if delay > 0 {
		time.Sleep(delay)
	}
	if refuse {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(503)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"query":%q,"detected_type":"domain","strategy":"exact_domain","unsupported_reason":"","results":[{"resource":"domains","label":"Domains","group":"network","matched_column":"domain","matched_value":%q,"count":1,"preview":[{"score":42}],"detail_url":"http://127.0.0.1/x"}]}`, q, q)
}

// writeValues writes n distinct reserved-name domains, one per line.
func writeValues(path string, n int) {
	f, err := os.Create(path)
	check(err)
	defer f.Close()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "host%d.example.com\n", i)
		if b.Len() > 1<<16 || i == n-1 {
			_, err := f.WriteString(b.String())
			check(err)
			b.Reset()
		}
	}
}

func command(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TILOOKUP_TOKEN="+token, "TILOOKUP_CONFIG=/nonexistent/config.yaml")
	cmd.Stderr = os.Stderr
	return cmd
}

// timed runs bin and returns its wall time and the CPU time it used.
func timed(bin string, args ...string) (wall, cpu time.Duration) {
	cmd := command(bin, args...)
	out, err := os.Create(os.DevNull)
	check(err)
	defer out.Close()
	cmd.Stdout = out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "bulk: %s: %v\n", filepath.Base(bin), err)
	}
	wall = time.Since(start)
	if st := cmd.ProcessState; st != nil {
		cpu = st.UserTime() + st.SystemTime()
	}
	return wall, cpu
}

func peakRSS(bin string, args ...string) int64 {
	cmd := command(bin, args...)
	check(cmd.Run())
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
}

func build(out, pkg string) { check(benchutil.Build(out, pkg)) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bulk:", err)
		os.Exit(1)
	}
}
