// Command enrich measures `tilookup enrich` on a large CSV export against
// the built-in sandbox at zero latency, next to Miller passing the same file
// through (`mlr --icsv --ocsv cat`, Debian's miller) in the same run. Run it
// from the repository root:
//
//	go run ./bench/enrich [-mib 1024] [-distinct 1000] [-rounds 1]
//
//	peak RSS of tilookup enrich          target < 60 MB
//	wall time, tilookup / mlr            target <= 2.0
//
// The file has a header and rows like a firewall's export: a timestamp, a
// host, a source address (one of -distinct documentation addresses, so
// none is skipped and each is asked once), a port, an action and a quoted
// message with a comma. Both programs write to /dev/null.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/tilookup/tilookup/bench/internal/benchutil"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

func main() {
	mib := flag.Int("mib", 1024, "size of the CSV in MiB")
	distinct := flag.Int("distinct", 1000, "distinct source addresses")
	rounds := flag.Int("rounds", 1, "timed rounds of each program, alternating")
	c := flag.Int("c", 8, "tilookup's concurrency")
	flag.Parse()

	mlr, err := exec.LookPath("mlr")
	if err != nil {
		fail(fmt.Errorf("mlr not found: apt-get install -y miller (%v)", err))
	}
	dir, err := os.MkdirTemp("", "bench-enrich-")
	check(err)
	defer os.RemoveAll(dir)
	tl := filepath.Join(dir, "tilookup")
	build(tl, "./cmd/tilookup")
	csv := filepath.Join(dir, "export.csv")
	rows := writeCSV(csv, int64(*mib)<<20, *distinct)
	fmt.Printf("%s: %d MiB, %d rows, %d distinct addresses\n", filepath.Base(csv), *mib, rows, *distinct)

	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	check(err)
	defer srv.Close()
	tlArgs := []string{"enrich", "--base-url", srv.SearchURL, "--column", "src_ip", "-c", fmt.Sprint(*c), csv}
	env := append(os.Environ(), "TILOOKUP_TOKEN="+sandbox.DemoToken, "TILOOKUP_CONFIG=/nonexistent/config.yaml",
		"HOME="+dir, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))

	var tlBest, mlrBest time.Duration
	var tlRSS, mlrRSS int64
	for r := 0; r < *rounds; r++ {
		d, rss := run(env, mlr, "--icsv", "--ocsv", "cat", csv)
		fmt.Printf("round %d: mlr      %6.2f s  peak RSS %5d MB\n", r+1, d.Seconds(), rss>>10)
		mlrBest, mlrRSS = best(mlrBest, d), max(mlrRSS, rss)
		d, rss = run(env, tl, tlArgs...)
		fmt.Printf("round %d: tilookup %6.2f s  peak RSS %5d MB\n", r+1, d.Seconds(), rss>>10)
		tlBest, tlRSS = best(tlBest, d), max(tlRSS, rss)
	}
	ratio := tlBest.Seconds() / mlrBest.Seconds()
	fmt.Printf("tilookup enrich: %.2f s, peak RSS %d MB (target < 60 MB): %s\n", tlBest.Seconds(), tlRSS>>10, verdict(tlRSS>>10 < 60))
	fmt.Printf("mlr cat:         %.2f s, peak RSS %d MB\n", mlrBest.Seconds(), mlrRSS>>10)
	fmt.Printf("time ratio tilookup/mlr: %.2f (target <= 2.0): %s\n", ratio, verdict(ratio <= 2))
}

// writeCSV writes about size bytes of export and returns its number of rows.
func writeCSV(path string, size int64, distinct int) int {
	f, err := os.Create(path)
	check(err)
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := w.WriteString("_time,host,src_ip,dest_port,action,msg\n")
	written, rows := int64(n), 0
	for written < size {
		a := rows % distinct
		n, err := fmt.Fprintf(w, "2024-05-01T10:%02d:%02dZ,web%02d,203.0.%d.%d,%d,allowed,\"GET /index.html?id=%d, 200\"\n",
			rows/60%60, rows%60, rows%17, a/250, a%250+1, 443-363*(rows%3/2), rows)
		check(err)
		written += int64(n)
		rows++
	}
	check(w.Flush())
	check(f.Close())
	return rows
}

// run runs a program to /dev/null and returns its wall time and peak RSS
// (KiB).
func run(env []string, bin string, args ...string) (time.Duration, int64) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := os.Create(os.DevNull)
	check(err)
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, os.Stderr
	start := time.Now()
	err = cmd.Run()
	d := time.Since(start)
	if st := cmd.ProcessState; st == nil || !st.Exited() || st.ExitCode() > 1 { // enrich: 1 = nothing matched
		fail(fmt.Errorf("%s: %v", filepath.Base(bin), err))
	}
	return d, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

func best(a, b time.Duration) time.Duration {
	if a == 0 || b < a {
		return b
	}
	return a
}

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

func build(out, pkg string) { check(benchutil.Build(out, pkg)) }

func check(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/enrich:", err)
	os.Exit(1)
}
