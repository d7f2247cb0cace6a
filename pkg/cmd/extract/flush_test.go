package extract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

// lines is an output that hands each complete line written to it to a
// channel, as a terminal would show it.
type lines struct {
	mu      sync.Mutex
	partial []byte
	c       chan string
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.c <- string(l.partial[:i])
		l.partial = l.partial[i+1:]
	}
}

// TestExtractStreams is `tail -f log | tilookup extract`: a line's value
// must come out while the input waits for the next line, not when the
// input ends. The writer of the input waits for each value before it
// writes the next line; the deadline is generous (the machine may be
// busy), and what is timed is logged.
func TestExtractStreams(t *testing.T) {
	pr, pw := io.Pipe()
	out := &lines{c: make(chan string, 16)}
	ios, _, _, _ := iostreams.Test()
	ios.In, ios.Out = pr, out
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), &Options{IO: ios, Format: func() (output.Format, error) { return output.Table, nil }})
	}()
	// The first line is all there is: the input's encoding and whether it
	// is HTML are told from what the first read brings, not its first
	// 8 KiB (a new log that tail -f follows has no 8 KiB yet).
	const deadline = 10 * time.Second
	for n := 1; n <= 3; n++ {
		want := fmt.Sprintf("198.51.100.%d", n)
		start := time.Now()
		if _, err := fmt.Fprintf(pw, "connection from %s refused\n", want); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-out.c:
			if got != want {
				t.Fatalf("line %d: got %q, want %q", n, got, want)
			}
			t.Logf("line %d: its value came out after %v", n, time.Since(start))
		case <-time.After(deadline):
			t.Fatalf("line %d: no value after %v while the input waits for the next line", n, deadline)
		}
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestDelayedWriterFlushes: what is written reaches the output when the
// buffer fills, after flushDelay, and at Close, in order and whole.
func TestDelayedWriterFlushes(t *testing.T) {
	out := &lines{c: make(chan string, flushSize)}
	d := newDelayedWriter(out)
	var want []string
	for i := 0; len(want) == 0 || i < 2*flushSize/8; i++ {
		s := fmt.Sprintf("v%05d", i)
		want = append(want, s)
		// Every other value by writeLine, as the table is printed.
		var err error
		if i%2 == 1 {
			err = d.writeLine(s)
		} else {
			_, err = io.WriteString(d, s+"\n")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	close(out.c)
	var got []string
	for s := range out.c {
		got = append(got, s)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %d lines, want %d, or out of order", len(got), len(want))
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestDelayedWriterError: a write that fails in the background is
// returned by the next Write, by writeLine and by Close.
func TestDelayedWriterError(t *testing.T) {
	d := newDelayedWriter(failing{})
	if _, err := io.WriteString(d, "a\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := io.WriteString(d, "b\n")
		if err == io.ErrClosedPipe {
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("Write after a failed flush: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	if err := d.writeLine("c"); err != io.ErrClosedPipe {
		t.Errorf("writeLine after a failed flush: %v, want %v", err, io.ErrClosedPipe)
	}
	if err := d.Close(); err != io.ErrClosedPipe {
		t.Errorf("Close: %v, want %v", err, io.ErrClosedPipe)
	}
}

// Ctrl-C (or SIGTERM) while the input waits for its next line (tail -f):
// extract stops at once, with what it found out and exit 130, where it
// used to wait for input that would never come.
func TestExtractStopsWhileInputWaits(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	out := &lines{c: make(chan string, 16)}
	ios, _, _, _ := iostreams.Test()
	ios.In, ios.Out = pr, out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, &Options{IO: ios, Format: func() (output.Format, error) { return output.Table, nil }})
	}()
	if _, err := fmt.Fprintln(pw, "connection from 198.51.100.9 refused"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-out.c:
		if got != "198.51.100.9" {
			t.Fatalf("got %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no value out")
	}
	cancel()
	select {
	case err := <-done:
		if failure.KindOf(err) != failure.Interrupted {
			t.Errorf("%v, want the interrupted error (exit 130)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still waiting for input after the interrupt")
	}
}
