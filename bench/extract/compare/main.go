// Command compare times extraction side by side with ripgrep on one
// report, for bench/extract/run.sh: tilookup extract (every type, refanged
// and validated), the library alone (ioc.ExtractReader, bench/extract/extract),
// rg -o with one IPv4 regex, and rg -o with the union of a plain regex per
// type (the last line of -union; no refang, no validation). Each command
// runs -n times, the commands taking turns so that a busy machine slows
// them alike; the best run of each is kept, as MB/s of wall time and MB per
// CPU-second (user + system, from the child's rusage). tilookup runs twice:
// on the file, which it maps into memory, and on the file as its stdin,
// which it reads. It ends with the
// two ratios issue 40 sets targets for, and with -baseline the ratios to
// another build of tilookup run in the same turns. MB is 2^20 bytes. Output goes to a
// file, as a pipeline's would.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// ipv4 is the one-type regex of the wall-time target.
const ipv4 = `([0-9]{1,3}\.){3}[0-9]{1,3}`

type row struct {
	name string
	argv []string
	env  []string
	// stdin: the report comes on stdin, not named (tilookup reads it
	// instead of mapping it into memory)
	stdin string

	wall, cpu time.Duration // best of the runs
	found     int           // lines of output
}

func main() {
	report := flag.String("report", "", "the report to extract from")
	tl := flag.String("tilookup", "", "tilookup binary")
	lib := flag.String("extract", "", "bench/extract/extract binary (optional)")
	base := flag.String("baseline", "", "another tilookup binary to compare with, e.g. main's (optional)")
	unionFile := flag.String("union", "", "file whose last line is the union regex")
	n := flag.Int("n", 5, "runs of each command")
	flag.Parse()
	if *report == "" || *tl == "" {
		fmt.Fprintln(os.Stderr, "usage: compare -report FILE -tilookup BIN [-extract BIN] [-union FILE] [-n RUNS]")
		os.Exit(2)
	}
	st, err := os.Stat(*report)
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "bench-extract-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	// An empty home: no configuration file changes what extract does.
	home := []string{"HOME=" + tmp, "XDG_CONFIG_HOME=" + tmp, "XDG_STATE_HOME=" + tmp}
	rows := []*row{{name: "tilookup extract (all types)", argv: []string{*tl, "extract", *report}, env: home}}
	rows = append(rows, &row{name: "the same, read from stdin", argv: []string{*tl, "extract"}, env: home, stdin: *report})
	var baseline *row
	if *base != "" {
		baseline = &row{name: "tilookup extract, baseline", argv: []string{*base, "extract", *report}, env: home}
		rows = append(rows, baseline)
	}
	if *lib != "" {
		rows = append(rows, &row{name: "ioc.ExtractReader (library)", argv: []string{*lib, *report}})
	}
	var ripgrep, union *row
	if rg, err := exec.LookPath("rg"); err != nil {
		fmt.Println("rg is not installed (apt-get install ripgrep): its rows are left out")
	} else {
		// No configuration file: rg reads RIPGREP_CONFIG_PATH only.
		ripgrep = &row{name: "rg -o IPv4", argv: []string{rg, "-o", ipv4, *report}}
		rows = append(rows, ripgrep)
		if *unionFile != "" {
			re, err := lastLine(*unionFile)
			if err != nil {
				fail(err)
			}
			union = &row{name: "rg -o union regex", argv: []string{rg, "-o", "--no-filename", "--no-line-number", "-e", re, *report}}
			rows = append(rows, union)
		}
	}
	out := filepath.Join(tmp, "out")
	for range *n {
		for _, r := range rows {
			if err := r.run(out); err != nil {
				fail(fmt.Errorf("%s: %v", r.name, err))
			}
		}
	}

	mb := float64(st.Size()) / (1 << 20)
	fmt.Printf("input: %d bytes (%.1f MB), %d CPUs (GOMAXPROCS=%s), best of %d runs each, taking turns\n",
		st.Size(), mb, runtime.NumCPU(), orDefault(os.Getenv("GOMAXPROCS")), *n)
	fmt.Printf("%-30s %10s %10s %10s %8s\n", "", "MB/s wall", "MB/CPU-s", "CPU s", "found")
	for _, r := range rows {
		fmt.Printf("%-30s %10.1f %10.1f %10.3f %8d\n", r.name, mb/r.wall.Seconds(), mb/r.cpu.Seconds(), r.cpu.Seconds(), r.found)
	}
	ours := rows[0]
	if baseline != nil {
		fmt.Printf("ours / baseline, MB per CPU-second:    %.2fx\n", baseline.cpu.Seconds()/ours.cpu.Seconds())
		fmt.Printf("ours / baseline, MB/s wall:            %.2fx\n", baseline.wall.Seconds()/ours.wall.Seconds())
	}
	if union != nil {
		fmt.Printf("ours / union regex, MB per CPU-second: %.2fx (target 1.5x)\n", union.cpu.Seconds()/ours.cpu.Seconds())
	}
	if ripgrep != nil {
		fmt.Printf("ours / rg IPv4, MB/s wall:             %.2fx (target 1.0x)\n", ripgrep.wall.Seconds()/ours.wall.Seconds())
	}
}

// run runs r once with its output in file out, and keeps the best times.
func (r *row) run(out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	cmd.Env = append(os.Environ(), r.env...)
	cmd.Stdout = f
	if r.stdin != "" {
		in, err := os.Open(r.stdin)
		if err != nil {
			return err
		}
		defer in.Close()
		cmd.Stdin = in
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, stderr.String())
	}
	wall := time.Since(start)
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if r.wall == 0 || wall < r.wall {
		r.wall = wall
	}
	if r.cpu == 0 || cpu < r.cpu {
		r.cpu = cpu
	}
	r.found, err = countLines(out)
	return err
}

func countLines(name string) (int, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<26)
	for s.Scan() {
		n++
	}
	return n, s.Err()
}

func lastLine(name string) (string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return lines[len(lines)-1], nil
}

func orDefault(s string) string {
	if s == "" {
		return "default"
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	os.Exit(1)
}
