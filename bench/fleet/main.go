// Command fleet measures what a shared cache (cache_url, on a real
// redis-server) saves a fleet: 8 tilookup processes at once, each over
// 10,000 values of which half are the same for all, each with its own disk
// cache (as separate hosts), against a loopback service that answers after
// a delay and counts the requests. It runs the fleet with disk caches only,
// then with the shared cache, and prints the requests the service saw and
// the wall time of each. Run it from the repository root:
//
//	go run ./bench/fleet [-procs 8] [-values 10000] [-latency 5ms]
//
// It needs redis-server on PATH (apt-get install redis-server).
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilookup/tilookup/bench/internal/benchutil"
)

const token = "bench-token"

func main() {
	procs := flag.Int("procs", 8, "processes at once")
	values := flag.Int("values", 10000, "values per process")
	latency := flag.Duration("latency", 5*time.Millisecond, "the service's time to answer")
	conc := flag.Int("c", 16, "requests in flight per process")
	flag.Parse()

	dir, err := os.MkdirTemp("", "tilookup-fleet")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "tilookup")
	check(benchutil.Build(bin, "./cmd/tilookup"))

	var requests atomic.Int64
	seen := sync.Map{}
	var distinctSeen atomic.Int64
	svc := serve(func(q string) {
		requests.Add(1)
		if _, dup := seen.LoadOrStore(q, true); !dup {
			distinctSeen.Add(1)
		}
	}, *latency)
	redisAddr, stop := startRedis(dir)
	defer stop()

	inputs := make([]string, *procs)
	distinct := map[string]bool{}
	for p := range *procs {
		var b strings.Builder
		for i := range *values {
			v := fmt.Sprintf("own-%d-%05d.example.com", p, i)
			if i%2 == 0 {
				v = fmt.Sprintf("shared-%05d.example.com", i)
			}
			distinct[v] = true
			b.WriteString(v + "\n")
		}
		inputs[p] = b.String()
	}
	fmt.Printf("%d processes x %d values (half shared): %d distinct values, the service answers in %s, -c %d\n",
		*procs, *values, len(distinct), *latency, *conc)
	for _, run := range []struct {
		name string
		env  []string
	}{
		{"disk caches only", nil},
		{"shared cache (Redis)", []string{"TILOOKUP_CACHE_URL=redis://" + redisAddr + "/0"}},
	} {
		requests.Store(0)
		distinctSeen.Store(0)
		seen.Clear()
		took := fleet(bin, dir, svc, inputs, *conc, run.env)
		fmt.Printf("%-22s requests %6d (%d distinct)  wall %s\n", run.name+":", requests.Load(), distinctSeen.Load(), took.Round(10*time.Millisecond))
	}
}

// fleet runs every process at once, each with a fresh home (its own disk
// cache), and returns the wall time until the last ends.
func fleet(bin, dir, svc string, inputs []string, conc int, extra []string) time.Duration {
	var wg sync.WaitGroup
	start := time.Now()
	for p, in := range inputs {
		home, err := os.MkdirTemp(dir, "home")
		check(err)
		wg.Go(func() {
			cmd := exec.Command(bin, "search", "-o", "ndjson", "-c", strconv.Itoa(conc), "--cache", "1h")
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
				"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "TILOOKUP_CONFIG=" + filepath.Join(home, "none.yaml"),
				"TILOOKUP_TOKEN=" + token, "TILOOKUP_BASE_URL=" + svc}, extra...)
			cmd.Stdin = strings.NewReader(in)
			out, err := cmd.Output()
			if err != nil {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
					fmt.Fprintf(os.Stderr, "fleet: process %d: %v\n", p, err)
					os.Exit(1)
				}
			}
			if n := strings.Count(string(out), "\n"); n != strings.Count(in, "\n") {
				fmt.Fprintf(os.Stderr, "fleet: process %d printed %d records for %d values\n", p, n, strings.Count(in, "\n"))
				os.Exit(1)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// serve answers every search with no match after latency, counting each.
func serve(count func(q string), latency time.Duration) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		q := r.URL.Query().Get("q")
		count(q)
		time.Sleep(latency)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"detected_type":"domain","strategy":"exact_domain","unsupported_reason":"","results":[]}`, q)
	}))
	return "http://" + l.Addr().String()
}

func startRedis(dir string) (addr string, stop func()) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet: redis-server is not installed (apt-get install redis-server)")
		os.Exit(1)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	addr = l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	check(cmd.Start())
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
		}
	}
	fmt.Fprintln(os.Stderr, "fleet: redis-server did not start")
	os.Exit(1)
	return "", nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}
