package extract

import (
	"io"
	"sync"
	"time"
)

// flushDelay is the longest a value found waits in the output buffer: well
// under the 100 ms in which `tail -f log | tilookup extract` must show a
// line's values, and long enough that a report read at disk speed is
// written a block at a time, not in one write(2) per value (85,771 of them
// for bench/extract's 50 MiB report).
const flushDelay = 20 * time.Millisecond

// flushSize is how much the buffer holds before it is written out at once.
const flushSize = 64 << 10

// delayedWriter buffers what extract prints. What it holds is written when
// it reaches flushSize, flushDelay after the first byte that is not yet
// out (whatever the input is doing then: read at full speed, or waiting
// for a line that tail -f has not seen yet), and at Close.
type delayedWriter struct {
	mu    sync.Mutex
	out   io.Writer
	buf   []byte
	timer *time.Timer
	armed bool  // the timer will write buf out
	err   error // the first write's error, returned from then on
}

func newDelayedWriter(out io.Writer) *delayedWriter {
	return &delayedWriter{out: out, buf: make([]byte, 0, flushSize)}
}

func (d *delayedWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return 0, d.err
	}
	d.buf = append(d.buf, p...)
	d.added()
	if d.err != nil {
		return 0, d.err
	}
	return len(p), nil
}

// writeLine is Write of s and a '\n', without the line built first: the
// one-column table extract prints, a value at a time.
func (d *delayedWriter) writeLine(s string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return d.err
	}
	d.buf = append(append(d.buf, s...), '\n')
	d.added()
	return d.err
}

// added writes buf out when it is full, or arms the timer that will; d.mu
// is held.
func (d *delayedWriter) added() {
	if len(d.buf) >= flushSize {
		d.flush()
		return
	}
	if !d.armed {
		d.armed = true
		if d.timer == nil {
			d.timer = time.AfterFunc(flushDelay, d.tick)
		} else {
			d.timer.Reset(flushDelay)
		}
	}
}

func (d *delayedWriter) tick() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed = false
	d.flush()
}

// flush writes buf out; d.mu is held.
func (d *delayedWriter) flush() {
	if len(d.buf) == 0 || d.err != nil {
		return
	}
	_, d.err = d.out.Write(d.buf)
	d.buf = d.buf[:0]
}

// Close writes out what is left and stops the timer; it returns the first
// write error, if any.
func (d *delayedWriter) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer.Stop()
	}
	d.armed = false
	d.flush()
	return d.err
}
