// Command watch measures `tilookup watch` against `tilookup search -o
// ndjson` over the same list, in the same run, against the built-in
// sandbox at zero latency (in this process), plus watch's peak RSS and the
// size of its state per value. Run it from the repository root:
//
//	go run ./bench/watch [-values 100000] [-rounds 3] [-c 16]
//
// Targets (issue 30): watch within 1.2x of search, peak RSS under 100 MB,
// state under 300 bytes a value.
//
// Every value is distinct (dedup would hide the work otherwise); one in a
// hundred is a value the demo data matches in several resources, the rest
// are answered "no match", as most of a real watch list is.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tilookup/tilookup/bench/internal/benchutil"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// matchedValues are in the demo data; the list cycles through them with
// a distinct spelling each time the sandbox still matches (a URL's query).
var matchedValues = []string{"44d88612fea8a8f36de82e1278abb02f", "203.0.113.66", "CVE-2021-44228", "login-update.example.net"}

func main() {
	n := flag.Int("values", 100000, "values in the list")
	rounds := flag.Int("rounds", 3, "timed rounds of each command, alternating")
	c := flag.Int("c", 16, "concurrency of both commands")
	flag.Parse()

	dir, err := os.MkdirTemp("", "tilookup-bench-watch")
	check(err)
	defer os.RemoveAll(dir)
	tl := filepath.Join(dir, "tilookup")
	build(tl, "./cmd/tilookup")
	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	check(err)
	defer srv.Close()

	values := filepath.Join(dir, "values.txt")
	writeValues(values, *n)
	env := append(os.Environ(), "TILOOKUP_BASE_URL="+srv.SearchURL, "TILOOKUP_TOKEN="+sandbox.DemoToken,
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir, "TILOOKUP_PROFILE=", "TILOOKUP_CACHE=0",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/tilookup-bench-bus")
	cs := strconv.Itoa(*c)
	search := []string{"search", "-o", "ndjson", "-c", cs, "-f", values}
	watch := []string{"watch", "--name", "bench", "-o", "ndjson", "-c", cs, values}

	fmt.Printf("tilookup watch vs search -o ndjson, %d values, -c %d, sandbox at zero latency, median of %d rounds\n", *n, *c, *rounds)
	// The first watch run makes the baseline: every matched value is new.
	wFirst, _, rssFirst := run(tl, env, watch...)
	var tS, tW, cS, cW []time.Duration
	var rssW int64
	for range *rounds {
		wall, cpu, _ := run(tl, env, search...)
		tS, cS = append(tS, wall), append(cS, cpu)
		wall, cpu, rss := run(tl, env, watch...)
		tW, cW = append(tW, wall), append(cW, cpu)
		rssW = max(rssW, rss)
	}
	ms, mw := benchutil.Median(tS), benchutil.Median(tW)
	fmt.Printf("    search -o ndjson   %8v\n", ms.Round(time.Millisecond))
	fmt.Printf("    watch (again)      %8v   ratio %.2f (target <= 1.20)\n", mw.Round(time.Millisecond), float64(mw)/float64(ms))
	fmt.Printf("    CPU (user+sys)     %8v   %8v   ratio %.2f (the commands' own work; the sandbox shares the cores)\n",
		benchutil.Median(cS).Round(time.Millisecond), benchutil.Median(cW).Round(time.Millisecond), float64(benchutil.Median(cW))/float64(benchutil.Median(cS)))
	fmt.Printf("    watch (first run)  %8v   ratio %.2f\n", wFirst.Round(time.Millisecond), float64(wFirst)/float64(ms))
	fmt.Printf("    peak RSS of watch  %6.1f MB first run, %6.1f MB again (target < 100 MB)\n", float64(rssFirst)/1024, float64(rssW)/1024)
	states, _ := filepath.Glob(filepath.Join(dir, "state", "tilookup", "watch", "*", "bench.json"))
	if len(states) == 1 {
		st, err := os.Stat(states[0])
		check(err)
		fmt.Printf("    state              %d bytes, %.0f bytes a value (target < 300)\n", st.Size(), float64(st.Size())/float64(*n))
	}
}

func writeValues(path string, n int) {
	var b strings.Builder
	for i := range n {
		if i%100 == 0 {
			v := matchedValues[(i/100)%len(matchedValues)]
			// The sandbox matches these exactly: spell each one once, the
			// others of the hundred are distinct no-match values.
			if i/100 < len(matchedValues) {
				fmt.Fprintln(&b, v)
				continue
			}
		}
		fmt.Fprintf(&b, "host-%d.bench.example.org\n", i)
	}
	check(os.WriteFile(path, []byte(b.String()), 0o600))
}

// run runs tilookup with args and returns its wall time, CPU time and
// peak RSS (KiB). Exit 1 (watch: nothing changed) is a normal outcome.
func run(bin string, env []string, args ...string) (wall, cpu time.Duration, rssKB int64) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := os.Create(os.DevNull)
	check(err)
	defer out.Close()
	cmd.Stdout = out
	cmd.Stderr = os.Stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
		fmt.Fprintf(os.Stderr, "watch bench: %s: %v\n", strings.Join(args, " "), err)
		os.Exit(1)
	}
	st := cmd.ProcessState
	return wall, st.UserTime() + st.SystemTime(), st.SysUsage().(*syscall.Rusage).Maxrss
}

func build(out, pkg string) { check(benchutil.Build(out, pkg)) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "watch bench:", err)
		os.Exit(1)
	}
}
