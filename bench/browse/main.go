// Command browse measures what opening a large document costs `tilookup
// browse`, against the targets of issue 43: peak RSS under 100 MB with
// 100,000 pivot nodes, and 50,000 triage indicators open in under 1 s.
// Run it from the repository root:
//
//	go run ./bench/browse [-before REV] [-rounds 3]
//
// It writes both documents (browsetest's generators, the ones go test
// -bench in pkg/browse opens), then runs a child per document and round
// (bench/browse/open: the file, browse.Load, the model and its first
// screen, as browse does without a terminal) and prints the medians of
// the child's peak RSS (getrusage), the live heap it holds once open, and
// the time to open. The row "no limit" is this tree with GOGC=100 in the
// environment, which browse leaves alone: without its soft memory limit.
// -before REV builds the same child against the tree of REV too (git
// archive); all run alternately in the same run, so that before and after
// are measured on the same machine at the same time.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tilookup/tilookup/bench/internal/benchutil"
	"github.com/tilookup/tilookup/pkg/browse/browsetest"
)

const (
	nodes      = 100000
	indicators = 50000
	rssTarget  = 100 << 20
	openTarget = time.Second
)

func main() {
	before := flag.String("before", "", "also measure the child built from this git revision")
	rounds := flag.Int("rounds", 3, "runs of each child on each document")
	flag.Parse()

	dir, err := os.MkdirTemp("", "tilookup-bench-browse")
	check(err)
	defer os.RemoveAll(dir)

	docs := []document{
		{name: fmt.Sprintf("pivot, %d nodes", nodes), path: filepath.Join(dir, "pivot.json")},
		{name: fmt.Sprintf("triage, %d indicators", indicators), path: filepath.Join(dir, "triage.json")},
	}
	write(docs[0].path, func(f *os.File) error { return browsetest.Pivot(f, nodes) })
	write(docs[1].path, func(f *os.File) error { return browsetest.Triage(f, indicators) })

	this := filepath.Join(dir, "open")
	check(benchutil.Build(this, "./bench/browse/open"))
	// GOGC set: browse leaves the collector at its default, so this row
	// is what the soft memory limit is worth.
	builds := []build{{name: "no limit", bin: this, env: []string{"GOGC=100"}}, {name: "this tree", bin: this}}
	if *before != "" {
		builds = append([]build{{name: *before, bin: buildAt(dir, *before)}}, builds...)
	}

	results := map[[2]int][]run{}
	for range *rounds {
		for di, d := range docs {
			for bi, b := range builds {
				results[[2]int{di, bi}] = append(results[[2]int{di, bi}], open(b, d.path))
			}
		}
	}

	fmt.Printf("medians of %d runs; targets: peak RSS under %s at %d nodes, %d indicators open in under %v\n\n",
		*rounds, mb(rssTarget), nodes, indicators, openTarget)
	fmt.Printf("%-26s %-12s %10s %10s %10s %8s\n", "document", "build", "size", "peak RSS", "live heap", "open")
	for di, d := range docs {
		st, err := os.Stat(d.path)
		check(err)
		for bi, b := range builds {
			rs := results[[2]int{di, bi}]
			fmt.Printf("%-26s %-12s %10s %10s %10s %7.0fms\n", d.name, b.name, mb(st.Size()),
				mb(median(rs, func(r run) int64 { return r.rss })),
				mb(median(rs, func(r run) int64 { return r.heap })),
				float64(median(rs, func(r run) int64 { return int64(r.took) }))/float64(time.Millisecond))
		}
	}
}

type document struct{ name, path string }

type build struct {
	name, bin string
	env       []string // added to the child's environment
}

// run is one child's figures.
type run struct {
	rss, heap int64
	took      time.Duration
}

// open runs the child b on the document at path.
func open(b build, path string) run {
	bin := b.bin
	cmd := exec.Command(bin, path)
	cmd.Env = append(os.Environ(), b.env...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		fail("%s %s: %v: %s", bin, path, err, stderr.String())
	}
	f := strings.Fields(out.String())
	if len(f) != 3 {
		fail("%s: unexpected output %q", bin, out.String())
	}
	us, err1 := strconv.ParseInt(f[0], 10, 64)
	heap, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		fail("%s: unexpected output %q", bin, out.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	return run{rss: rss, heap: heap, took: time.Duration(us) * time.Microsecond}
}

// noLimit is the child's limit.go in an older tree: browse read the
// document as it came.
const noLimit = `package main

import "io"

func limit(r io.Reader) io.Reader { return r }
`

// buildAt builds the child against the tree of rev: rev's files, with
// this tree's child added (main.go uses only what browse exported then)
// and noLimit.
func buildAt(dir, rev string) string {
	src := filepath.Join(dir, "src-"+strings.ReplaceAll(rev, "/", "_"))
	check(os.MkdirAll(src, 0o755))
	archive := exec.Command("sh", "-c", `git archive "$0" | tar -x -C "$1"`, rev, src)
	archive.Stderr = os.Stderr
	check(archive.Run())
	child, err := os.ReadFile(filepath.Join("bench", "browse", "open", "main.go"))
	check(err)
	dst := filepath.Join(src, "bench", "browse", "open")
	check(os.MkdirAll(dst, 0o755))
	check(os.WriteFile(filepath.Join(dst, "main.go"), child, 0o644))
	check(os.WriteFile(filepath.Join(dst, "limit.go"), []byte(noLimit), 0o644))
	bin := filepath.Join(dir, "open-before")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./bench/browse/open")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	check(cmd.Run())
	return bin
}

func write(path string, gen func(*os.File) error) {
	f, err := os.Create(path)
	check(err)
	check(gen(f))
	check(f.Close())
}

func median(rs []run, of func(run) int64) int64 {
	v := make([]int64, len(rs))
	for i, r := range rs {
		v[i] = of(r)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "bench/browse: "+format+"\n", a...)
	os.Exit(1)
}
