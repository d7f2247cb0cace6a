//go:build unix

package search

import (
	"context"
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

// Two pipes fed one after the other by one writer: opening the second
// before the first is read would wait for a writer that waits for us.
func TestPipesFedInTurnDoNotDeadlock(t *testing.T) {
	dir := t.TempDir()
	fifos := []string{filepath.Join(dir, "one"), filepath.Join(dir, "two")}
	for _, f := range fifos {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
	}
	const perPipe = 4000 // about 100 KB: more than a pipe holds
	go func() {
		for n, name := range fifos {
			f, err := os.OpenFile(name, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			var b strings.Builder
			for i := range perPipe {
				fmt.Fprintf(&b, "h%d-%d.example.com\n", n, i)
			}
			f.WriteString(b.String())
			f.Close()
		}
	}()
	h := newHarness(t)
	h.opts.Files = fifos
	h.reg.Register("all", httpmock.Any(), httpmock.JSON(answer("a.example", 1)))
	done := make(chan error, 1)
	go func() { done <- h.run(t) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("deadlock: the second pipe was opened before the first was read")
	}
	if n := strings.Count(h.out.String(), "\n"); n != 2*perPipe {
		t.Fatalf("%d records for the %d lines sent", n, 2*perPipe)
	}
}

// A pipe whose turn comes after the run ended (Ctrl-C while its writer
// had not come yet) is closed, not read by a reader nobody waits for.
func TestAPipeOpenedAfterTheRunIsClosed(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	for _, f := range []string{first, second} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
	}
	go func() {
		if f, err := os.OpenFile(first, os.O_WRONLY, 0); err == nil {
			f.WriteString("a1.example\na2.example\n")
			f.Close()
		}
	}()
	h := newHarness(t)
	h.opts.Files = []string{first, second}
	h.reg.Register("all", httpmock.Any(), httpmock.JSON(answer("a.example", 1)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, h.opts) }()
	for h.reg.Requests() < 2 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the reader is now waiting to open the second pipe
	cancel()
	<-done

	// The writer comes: the reader's open returns, and it must close.
	w, err := os.OpenFile(second, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := w.WriteString("late.example\n"); err != nil {
			return // EPIPE: no reader is left
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("something still reads the second pipe after the run ended")
}
