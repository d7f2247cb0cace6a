package online

import (
	"context"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// waitingDelay is how long an answer may take before the spinner shows:
// most answers come sooner, and a spinner that flashes is noise.
const waitingDelay = 700 * time.Millisecond

// waitingRunes bounds what the spinner says on an 80-column terminal,
// leaving room for its spinner and seconds: a line that wraps is cleared
// only in its last row, and each redraw would leave a row behind.
const waitingRunes = 60

// Waiting is a spinner on stderr, with what is awaited and the seconds
// waited, for a person at a terminal waiting on the service: without it a
// slow or dead service showed a blank screen until the last retry gave up
// (a minute and a half with the defaults). A nil *Waiting does nothing.
type Waiting struct {
	mu    sync.Mutex
	what  string
	runes int // what is cut to this many runes
	bar   *progressbar.ProgressBar
	done  chan struct{}
	gone  chan struct{}
	once  sync.Once
}

// Waiting starts a spinner saying what, shown from waitingDelay on; Stop
// clears it. It is nil, and shows nothing, where a bulk run would show no
// progress bar (stderr not a terminal, stdout a pipe) or with --debug,
// whose lines go to stderr.
func (f *Factory) Waiting(what string) *Waiting {
	if f.Debug() != nil {
		return nil
	}
	return StartWaiting(f.IO, what)
}

// StartWaiting is Factory.Waiting without the --debug check.
func StartWaiting(ios *iostreams.IOStreams, what string) *Waiting {
	if !ios.ProgressAllowed(true) {
		return nil
	}
	w := &Waiting{what: what, runes: waitingRunes, done: make(chan struct{}), gone: make(chan struct{})}
	if width := ios.TerminalWidth(); width > 0 {
		w.runes = min(waitingRunes, width-20)
	}
	go w.run(ios, waitingDelay)
	return w
}

func (w *Waiting) run(ios *iostreams.IOStreams, delay time.Duration) {
	defer close(w.gone)
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-w.done:
		return
	case <-t.C:
	}
	w.mu.Lock()
	w.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(ios.ErrOut),
		progressbar.OptionSetDescription(w.label()),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		// Drawn at once, which starts its clock: a bar of unknown
		// length spins only once started.
		progressbar.OptionSetRenderBlankState(true),
	)
	w.mu.Unlock()
	<-w.done
	w.mu.Lock()
	_ = w.bar.Finish()
	w.mu.Unlock()
}

// Describe changes what the spinner says (a count of lookups done).
func (w *Waiting) Describe(what string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.what = what
	if w.bar != nil {
		w.bar.Describe(w.label())
	}
}

// Stop clears the spinner, before anything else is written; it returns
// once the line is clear. It is safe to call more than once.
func (w *Waiting) Stop() {
	if w == nil {
		return
	}
	w.once.Do(func() { close(w.done) })
	<-w.gone
}

// label is what, sanitised and cut to fit; the caller holds mu.
func (w *Waiting) label() string {
	return sanitize.Truncate(sanitize.String(w.what), w.runes)
}

// WaitingSearcher shows wait's spinner while each lookup runs: for the
// commands that look one value up, where no progress bar shows. A nil
// wait (tests, pipes) leaves s as it is.
func WaitingSearcher(s lookup.Searcher, wait func(what string) *Waiting) lookup.Searcher {
	if wait == nil {
		return s
	}
	return lookup.SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		w := wait("searching " + v)
		defer w.Stop()
		return s.Search(ctx, v)
	})
}
