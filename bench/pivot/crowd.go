package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// crowdNames is how many addresses each crowd answer names: one preview
// record listing 256 x 256 of them, about 1 MB of JSON.
const crowdNames = 1 << 16

// crowd is the memory mode (-crowd): one walk whose every answer names
// 65,536 addresses never seen before, run at a few budgets, each printed
// with the child's peak RSS and wall time against the README's bound for
// one answer in flight (3 times its size plus 40 MB). Before the walk
// bounded the nodes one answer adds, --max-lookups 6 --depth 2 made
// 393,217 nodes in 600 MB. The child runs under `ulimit -v limitMB` so
// that an unbounded build fails instead of taking the machine down.
func crowd(tl string, limitMB int) {
	base, size := serveCrowd()
	bound := 3*int64(size) + 40e6
	fmt.Printf("answers of %d addresses (%.2f MB each), -c 1, bound %s (3x + 40 MB), ulimit -v %d MB\n",
		crowdNames, float64(size)/1e6, mb(bound), limitMB)
	failed := false
	for _, c := range []struct{ depth, lookups int }{{2, 6}, {2, 50}, {3, 100}} {
		failed = crowdRun(tl, base, c.depth, c.lookups, bound, limitMB) || failed
	}
	if failed {
		os.Exit(1)
	}
}

// crowdRun runs one walk and prints its cost; true when it failed or went
// over the bound.
func crowdRun(tl, base string, depth, lookups int, bound int64, limitMB int) bool {
	args := []string{"pivot", "--base-url", base, "-o", "json", "-c", "1", "--depth", strconv.Itoa(depth),
		"--max-lookups", strconv.Itoa(lookups), "1.0.0.1"}
	script := fmt.Sprintf(`ulimit -v %d; exec "$0" "$@"`, limitMB<<10)
	cmd := exec.Command("sh", append([]string{"-c", script, tl}, args...)...)
	cmd.Env = append(os.Environ(), "TILOOKUP_TOKEN="+token, "TILOOKUP_CONFIG=/nonexistent/config.yaml", "TILOOKUP_CACHE=0")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		check(err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	nodes := strings.Count(out.String(), `"id":`)
	verdict := "ok"
	// Exit 0 (matched) is the only good outcome: every answer matches.
	switch {
	case err != nil:
		line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		verdict = fmt.Sprintf("failed (%v): %.100s", err, line)
	case rss > bound:
		verdict = "OVER"
	}
	fmt.Printf("  --depth %d --max-lookups %-3d  %8d nodes  peak %9s  %6.1fs  %s\n", depth, lookups, nodes, mb(rss), wall.Seconds(), verdict)
	return verdict != "ok"
}

// serveCrowd starts the crowd server: the answer for the i-th value asked
// names the addresses (i+2).0.0.0 to (i+2).0.255.255, new to the walk,
// public (no skip rule drops them) for the first hundred values.
func serveCrowd() (string, int) {
	var mu sync.Mutex
	order := map[string]int{}
	body := func(q string) []byte {
		mu.Lock()
		i, ok := order[q]
		if !ok {
			i = len(order)
			order[q] = i
		}
		mu.Unlock()
		var b strings.Builder
		fmt.Fprintf(&b, `{"query":%q,"detected_type":"ipv4","strategy":"exact_ip","unsupported_reason":"","results":[{"resource":"passive_dns","label":"Passive DNS","group":"network","matched_column":"ip","matched_value":%q,"count":%d,"preview":[{"ip":%q,"seen_with":[`,
			q, q, crowdNames, q)
		for k := range crowdNames {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%d.0.%d.%d"`, i+2, k>>8, k&255)
		}
		b.WriteString(`]}],"detail_url":"http://127.0.0.1/x"}]}`)
		return []byte(b.String())
	}
	size := len(body("size probe"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(401)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body(r.URL.Query().Get("q")))
	}))
	return "http://" + l.Addr().String(), size
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
