//go:build unix

package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/httpmock"
)

// A -f file is opened once: a named pipe (mkfifo, or a script's
// `-f <(...)`-like plumbing) opened to check it and closed again would
// leave its writer without a reader, and lose what it sends.
func TestANamedPipeIsReadWhole(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "iocs")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	writeErr := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			writeErr <- err
			return
		}
		defer f.Close()
		for burst := range 2 {
			var b strings.Builder
			for i := range 50 {
				fmt.Fprintf(&b, "h%d-%d.example\n", burst, i)
			}
			if _, err := f.WriteString(b.String()); err != nil {
				writeErr <- err
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		writeErr <- nil
	}()
	h := newHarness(t)
	h.opts.Files = []string{fifo}
	h.reg.Register("all", httpmock.Any(), httpmock.JSON(answer("a.example", 1)))
	if err := h.run(t); err != nil {
		t.Fatal(err)
	}
	if err := <-writeErr; err != nil {
		t.Fatalf("the writer lost its reader: %v", err)
	}
	if n := strings.Count(h.out.String(), "\n"); n != 100 {
		t.Fatalf("%d records for the 100 lines sent", n)
	}
}
