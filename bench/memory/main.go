// Command memory measures tilookup's peak memory on one large search answer
// in every output format, against the bound of issue 28: peak RSS at most
// 3x the answer's size + 40 MB, and a bulk run of four such answers at -c 4
// within that bound per worker. Run it from the repository root:
//
//	go run ./bench/memory [-limit 3072] [-only empty,keys,bulk] [-formats table,csv]
//
// A local server answers, under the 32 MiB cap:
//
//	empty  {"results":[{},{},...]}, 10M empty results (30 MB)
//	keys   one result whose one preview record has 1M keys (12 MB)
//
// Each child runs under ulimit -v (-limit MiB), so that a run that would
// take the machine's memory fails instead; such a run prints "failed".
// The server is a second process (see startServer), so that the figures are
// tilookup's alone. before.txt was measured with the server inside this
// process, which put a floor of about 70 MB under its small figures (the
// large ones, 3.5 GB and up, are tilookup's).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tilookup/tilookup/bench/internal/benchutil"
)

const token = "bench-token"

// formats are the search formats; "preview" is the table with --preview.
var formats = []string{"table", "preview", "csv", "json", "ndjson", "md", "stix", "misp"}

func main() {
	limit := flag.Int("limit", 3072, "address-space limit of each run, MiB (ulimit -v)")
	only := flag.String("only", "empty,keys,bulk", "which answers to measure")
	serveOnly := flag.Bool("serve", false, "internal: be the server, print its address")
	fl := flag.String("formats", strings.Join(formats, ","), "which formats to run")
	flag.Parse()
	if *serveOnly {
		serve()
		return
	}
	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		want[strings.TrimSpace(s)] = true
	}

	dir, err := os.MkdirTemp("", "tilookup-memory")
	check(err)
	defer os.RemoveAll(dir)
	tl := filepath.Join(dir, "tilookup")
	build(tl, "./cmd/tilookup")

	base, sizes := startServer()

	fmt.Printf("peak RSS per format (bound: 3x body + 40 MB; each run limited to %d MiB of address space)\n", *limit)
	for _, name := range []string{"empty", "keys"} {
		if !want[name] {
			continue
		}
		size := sizes[name]
		bound := 3*int64(size) + 40<<20
		fmt.Printf("\n%s: body %s, bound %s\n", name, mb(int64(size)), mb(bound))
		for _, f := range strings.Split(*fl, ",") {
			run(tl, base, *limit, f, bound, 1, name)
		}
	}
	if want["bulk"] {
		size := sizes["empty"]
		bound := 4 * (3*int64(size) + 40<<20)
		fmt.Printf("\nbulk: four answers of %s at -c 4, bound %s (4 workers)\n", mb(int64(size)), mb(bound))
		for _, f := range strings.Split(*fl, ",") {
			run(tl, base, *limit, f, bound, 4, "empty")
		}
	}
}

// run searches n values that all get the answer named body, in format f,
// and prints the child's peak RSS against bound.
func run(tl, base string, limit int, f string, bound int64, n int, body string) {
	args := []string{"search", "--base-url", base, "--no-pager", "-c", "4"}
	if f == "preview" {
		args = append(args, "--preview")
	} else {
		args = append(args, "-o", f)
	}
	for i := range n {
		args = append(args, fmt.Sprintf("%s%d.example.com", body, i))
	}
	script := fmt.Sprintf(`ulimit -v %d; exec "$0" "$@"`, limit<<10)
	cmd := exec.Command("sh", append([]string{"-c", script, tl}, args...)...)
	cmd.Env = append(os.Environ(), "TILOOKUP_TOKEN="+token, "TILOOKUP_CONFIG=/nonexistent/config.yaml")
	var out countWriter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	st := cmd.ProcessState
	if st == nil {
		check(err)
	}
	rss := st.SysUsage().(*syscall.Rusage).Maxrss << 10
	verdict := "ok"
	switch {
	case err != nil:
		line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		verdict = fmt.Sprintf("failed (%v): %.100s", err, line)
	case rss > bound:
		verdict = "OVER"
	}
	fmt.Printf("  %-8s peak %9s  %4.0f%% of bound  %6.1fs  out %9s  %s\n",
		f, mb(rss), 100*float64(rss)/float64(bound), wall.Seconds(), mb(out.n), verdict)
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func emptyResults(n int) []byte {
	b := make([]byte, 0, 3*n+16)
	b = append(b, `{"results":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "{}"...)
	}
	return append(b, "]}"...)
}

func manyKeys(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"query":"x","results":[{"resource":"domains","label":"Domains","count":1,"preview":[{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString(`}]}]}`)
	return b.Bytes()
}

// startServer runs this program again as the server, and returns its
// address and the size of each body. The server is another process because
// a child started by fork and exec inherits its parent's peak RSS (Linux
// keeps the larger of the two in ru_maxrss): a parent holding the 42 MB of
// bodies would put a floor under every figure.
func startServer() (string, map[string]int) {
	self, err := os.Executable()
	check(err)
	cmd := exec.Command(self, "-serve")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	check(err)
	_, err = cmd.StdinPipe() // closed when this process exits, which ends the server
	check(err)
	check(cmd.Start())
	var base string
	sizes := map[string]int{}
	for {
		var name string
		var size int
		if _, err := fmt.Fscan(out, &name, &size); err != nil {
			check(fmt.Errorf("the server: %v", err))
		}
		if name == "base" {
			base = fmt.Sprintf("http://127.0.0.1:%d", size)
			break
		}
		sizes[name] = size
	}
	return base, sizes
}

// serve answers each value with the body named by its prefix, after
// printing each body's size and its port, until its parent exits.
func serve() {
	bodies := map[string][]byte{
		"empty": emptyResults(10_000_000),
		"keys":  manyKeys(1_000_000),
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	for name, body := range bodies {
		fmt.Println(name, len(body))
	}
	fmt.Println("base", l.Addr().(*net.TCPAddr).Port)
	go func() {
		// The parent is gone when stdin (its pipe) closes.
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	check(http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(401)
			return
		}
		q := r.URL.Query().Get("q")
		for name, body := range bodies {
			if strings.HasPrefix(q, name) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				w.Write(body)
				return
			}
		}
		w.WriteHeader(404)
	})))
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func build(out, pkg string) { check(benchutil.Build(out, pkg)) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}
