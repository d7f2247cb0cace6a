// Command startup compares how long `tilookup version` takes to run with a
// Go hello-world binary that blank-imports the same libraries (so that both
// pay the libraries' own init), both built as the release builds them
// (CGO_ENABLED=0 -trimpath -ldflags="-s -w"), timed in back-to-back pairs
// so that machine noise hits both alike. The ratio is the median of the
// pairs' ratios: what tilookup adds at start-up over the code it links.
// The target is a ratio within 1.25. It also prints the ratio of the
// medians, and the plain hello world for scale.
//
//	go run ./bench/startup [-n 300]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tilookup/tilookup/bench/internal/benchutil"
)

func main() {
	n := flag.Int("n", 300, "runs of each binary")
	flag.Parse()

	dir, err := os.MkdirTemp("", "tilookup-startup")
	check(err)
	defer os.RemoveAll(dir)
	tl := filepath.Join(dir, "tilookup")
	hello := filepath.Join(dir, "hello")
	libs := filepath.Join(dir, "hello-libs")
	build(tl, "./cmd/tilookup")
	build(hello, "./bench/startup/hello")
	buildLibsHello(libs)

	var tTL, tHello, tLibs []time.Duration
	var pairs []float64 // tilookup over hello + libraries, run by run
	for i := 0; i < *n; i++ {
		tHello = append(tHello, timeRun(hello))
		// Each pair runs back to back, in turns, so that a burst of load
		// on this shared machine hits both of a pair alike.
		var l, t time.Duration
		if i%2 == 0 {
			l, t = timeRun(libs), timeRun(tl, "version")
		} else {
			t, l = timeRun(tl, "version"), timeRun(libs)
		}
		tLibs, tTL = append(tLibs, l), append(tTL, t)
		pairs = append(pairs, float64(t)/float64(l))
	}
	mh, ml, mt := benchutil.Median(tHello), benchutil.Median(tLibs), benchutil.Median(tTL)
	slices.Sort(pairs)
	fmt.Printf("hello world:                  median %v (p90 %v)\n", mh, p90(tHello))
	fmt.Printf("hello world + the libraries:  median %v (p90 %v)\n", ml, p90(tLibs))
	fmt.Printf("tilookup version:             median %v (p90 %v)\n", mt, p90(tTL))
	fmt.Printf("ratio to hello + libraries:   %.2f (target <= 1.25; the median of %d back-to-back pairs)\n", pairs[len(pairs)/2], len(pairs))
	fmt.Printf("ratio of the medians:         %.2f\n", float64(mt)/float64(ml))
	fmt.Printf("ratio to plain hello world:   %.2f (for scale)\n", float64(mt)/float64(mh))
}

// buildLibsHello builds a hello world that blank-imports every package
// outside the standard library and this module that tilookup links, so
// that it runs their init as tilookup does. It is generated in a scratch
// folder inside the module, which resolves them from go.mod.
func buildLibsHello(out string) {
	list, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./cmd/tilookup").Output()
	check(err)
	mod, err := exec.Command("go", "list", "-m").Output()
	check(err)
	self := strings.TrimSpace(string(mod))
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n")
	for _, p := range strings.Fields(string(list)) {
		if p == self || strings.HasPrefix(p, self+"/") || strings.Contains(p, "/internal/") || strings.HasSuffix(p, "/internal") || strings.Contains(p, "/vendor/") {
			continue
		}
		fmt.Fprintf(&b, "\t_ %q\n", p)
	}
	b.WriteString(")\n\nfunc main() { fmt.Println(\"hello\") }\n")
	src, err := os.MkdirTemp("bench/startup", "hello-libs-")
	check(err)
	defer os.RemoveAll(src)
	check(os.WriteFile(filepath.Join(src, "main.go"), []byte(b.String()), 0o644))
	build(out, "./"+src)
}

// build builds as the release does.
func build(out, pkg string) { check(benchutil.Build(out, pkg)) }

func timeRun(bin string, args ...string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir())
	start := time.Now()
	check(cmd.Run())
	return time.Since(start)
}

func p90(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*9/10]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}
