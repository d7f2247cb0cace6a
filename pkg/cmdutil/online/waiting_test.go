package online

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/iostreams"
)

// The spinner shows what is awaited once the wait is long, clears its
// line when stopped, and shows nothing for a quick answer or where no
// progress bar would show.
func TestWaiting(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ios.SetTTY(false, true, true)
	errOut := &lockedBuffer{}
	ios.ErrOut = errOut

	w := &Waiting{what: "searching 44d88612fea8a8f36de82e1278abb02f", runes: waitingRunes, done: make(chan struct{}), gone: make(chan struct{})}
	go w.run(ios, 0)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errOut.String(), "searching 44d88612") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	w.Describe("pivot: 3 lookups done\x1b[2J")
	w.Stop()
	w.Stop()
	got := errOut.String()
	if !strings.Contains(got, "searching 44d88612") {
		t.Fatalf("no spinner: %q", got)
	}
	if strings.Contains(got, "\x1b[2J") {
		t.Errorf("an escape sequence reached the terminal: %q", got)
	}
	if last := got[strings.LastIndex(got, "\r"):]; strings.TrimSpace(strings.Trim(last, "\r")) != "" {
		t.Errorf("the line is not cleared at the end: %q", last)
	}

	errOut.Reset()
	StartWaiting(ios, "quick").Stop()
	if errOut.Len() != 0 {
		t.Errorf("a quick answer drew %q", errOut.String())
	}
	ios.SetTTY(false, true, false)
	if w := StartWaiting(ios, "piped"); w != nil {
		t.Error("a spinner where stderr is not a terminal")
	}
}

// lockedBuffer is read by the test while the spinner writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Len() int { return len(l.String()) }

func (l *lockedBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}
