// Command bulk measures tilookup's bulk search against a minimal Go client
// doing the same requests with the same concurrency, on a fast loopback
// server, and tilookup's peak memory on long inputs. It prints figures and
// ratios; run it from the repository root:
//
//	go run ./bench/bulk [-n 20000] [-c 16] [-rounds 3] [-rss 100000,1000000]
//
// Targets: tilookup within 1.15x of the minimal client's wall time; peak RSS
// under 60 MB and flat from 100k to 1M lines.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const token = "bench-token"

func main() {
	n := flag.Int("n", 20000, "distinct values in the timed run")
	c := flag.Int("c", 16, "concurrency for both clients")
	rounds := flag.Int("rounds", 3, "timed rounds of each client, alternating")
	rss := flag.String("rss", "100000,1000000", "line counts for the peak-memory runs (empty: skip)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "tilookup-bulk")
	check(err)
	defer os.RemoveAll(dir)
	tl := filepath.Join(dir, "tilookup")
	mc := filepath.Join(dir, "minclient")
	build(tl, "./cmd/tilookup")
	build(mc, "./bench/bulk/minclient")

	base := serve()
	values := filepath.Join(dir, "values.txt")
	writeValues(values, *n)

	var tTL, tMC []time.Duration
	for r := 0; r < *rounds; r++ {
		tMC = append(tMC, timed(mc, "-c", strconv.Itoa(*c), "-base", base, "-token", token, values))
		tTL = append(tTL, timed(tl, "search", "--base-url", base, "-o", "ndjson", "-c", strconv.Itoa(*c), "-f", values))
	}
	mt, mm := median(tTL), median(tMC)
	fmt.Printf("bulk search, %d distinct values, -c %d, median of %d rounds\n", *n, *c, *rounds)
	fmt.Printf("  minimal client:  %v (%.0f values/s)\n", mm.Round(time.Millisecond), float64(*n)/mm.Seconds())
	fmt.Printf("  tilookup:        %v (%.0f values/s)\n", mt.Round(time.Millisecond), float64(*n)/mt.Seconds())
	fmt.Printf("  ratio:           %.2f (target <= 1.15)\n", float64(mt)/float64(mm))

	if *rss == "" {
		return
	}
	fmt.Println("peak RSS of tilookup search -o ndjson (maximum resident set size, as /usr/bin/time -v reports it)")
	for _, s := range strings.Split(*rss, ",") {
		lines, err := strconv.Atoi(strings.TrimSpace(s))
		check(err)
		f := filepath.Join(dir, "rss.txt")
		writeValues(f, lines)
		start := time.Now()
		kb := peakRSS(tl, "search", "--base-url", base, "-o", "ndjson", "-c", strconv.Itoa(*c), "-f", f)
		fmt.Printf("  %8d lines: %6.1f MB  (%v)\n", lines, float64(kb)/1024, time.Since(start).Round(time.Second))
	}
	fmt.Println("  target: under 60 MB, not growing with input length")
}

// serve starts a minimal search endpoint on loopback: it checks the token
// and answers a small, valid response echoing q.
func serve() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(401)
			return
		}
		q := r.URL.Query().Get("q")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"detected_type":"ipv4","strategy":"exact_ip","unsupported_reason":"","results":[{"resource":"ip_reputation","label":"IP reputation","group":"network","matched_column":"ip","matched_value":%q,"count":1,"preview":[{"score":42}],"detail_url":"http://127.0.0.1/x"}]}`, q, q)
	})
	go http.Serve(l, h)
	return "http://" + l.Addr().String()
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

func timed(bin string, args ...string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TILOOKUP_TOKEN="+token, "TILOOKUP_CONFIG=/nonexistent/config.yaml")
	cmd.Stderr = os.Stderr
	out, err := os.Create(os.DevNull)
	check(err)
	defer out.Close()
	cmd.Stdout = out
	start := time.Now()
	check(cmd.Run())
	return time.Since(start)
}

func peakRSS(bin string, args ...string) int64 {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TILOOKUP_TOKEN="+token, "TILOOKUP_CONFIG=/nonexistent/config.yaml")
	cmd.Stderr = os.Stderr
	check(cmd.Run())
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
}

func build(out, pkg string) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	check(cmd.Run())
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bulk:", err)
		os.Exit(1)
	}
}
