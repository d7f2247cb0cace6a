// Command startup compares how long `tilookup version` takes to run with a
// Go hello-world binary, timed alternately in the same run so that machine
// noise hits both alike. It prints the medians and their ratio; the target
// is a ratio within 1.5.
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
	"time"
)

func main() {
	n := flag.Int("n", 300, "runs of each binary")
	flag.Parse()

	dir, err := os.MkdirTemp("", "tilookup-startup")
	check(err)
	defer os.RemoveAll(dir)
	tl := filepath.Join(dir, "tilookup")
	hello := filepath.Join(dir, "hello")
	build(tl, "./cmd/tilookup")
	build(hello, "./bench/startup/hello")

	var tTL, tHello []time.Duration
	for i := 0; i < *n; i++ {
		tHello = append(tHello, timeRun(hello))
		tTL = append(tTL, timeRun(tl, "version"))
	}
	mh, mt := median(tHello), median(tTL)
	fmt.Printf("hello world:      median %v (p90 %v)\n", mh, p90(tHello))
	fmt.Printf("tilookup version: median %v (p90 %v)\n", mt, p90(tTL))
	fmt.Printf("ratio:            %.2f (target <= 1.50)\n", float64(mt)/float64(mh))
}

func build(out, pkg string) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	check(cmd.Run())
}

func timeRun(bin string, args ...string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir())
	start := time.Now()
	check(cmd.Run())
	return time.Since(start)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
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
