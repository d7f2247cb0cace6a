package triage

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/triage"
)

// openInputs is the report: every input, each read as text or HTML, every
// file opened before any request.
func openInputs(opts *Options) (io.Reader, func(), error) {
	format, _ := triage.ParseFormat(opts.Input)
	return triage.OpenInputs(opts.IO.In, opts.Files, format, opts.warn, cmdutil.OpenInput)
}

// source hands the indicators of the text to lookup.Run, and keeps the
// skipped ones aside. The scan (triage.Scan) runs on a goroutine of its
// own (it calls back for each indicator); Run pulls from it.
type source struct {
	ch   chan triage.Found
	quit chan struct{}
	done chan struct{}
	err  error // set before done is closed

	// found counts the indicators the scan found (not skipped), handed
	// to the run or not: the report's whole, once done is closed.
	found atomic.Int64

	// mu guards skipped and settled: lookup.Run does not wait for its
	// reader, so after an interrupt a call of Next may still be under
	// way while the report is written (settle).
	mu       sync.Mutex
	skipped  skipList
	settled  bool
	stopOnce sync.Once
}

var errStopped = errors.New("stopped")

func newSource(text io.Reader, skip *triage.Skipper) *source {
	s := &source{ch: make(chan triage.Found, 64), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		err := triage.Scan(text, triage.ScanOptions{Skip: skip}, func(f triage.Found) error {
			if f.Skip == "" {
				s.found.Add(1)
			}
			select {
			case s.ch <- f:
				return nil
			case <-s.quit:
				return errStopped
			}
		})
		if err != nil && err != errStopped {
			s.err = cmdutil.ReadError(err)
		}
	}()
	return s
}

func (s *source) Next() (lookup.Item, bool, error) {
	for f := range s.ch {
		s.mu.Lock()
		if s.settled {
			s.mu.Unlock()
			continue // the run is over: what is left is only counted
		}
		if f.Skip != "" {
			s.skipped.add(report.Skipped{Value: f.Value, Type: string(f.Type), Reason: f.Skip, FromURL: f.FromURL})
			s.mu.Unlock()
			continue
		}
		s.mu.Unlock()
		// A URL's host carries its URL as the input it came from; the
		// report marks it with that (indicatorOf).
		input := f.Value
		if f.FromURL != "" {
			input = f.FromURL
		}
		return lookup.Item{Input: input, Value: f.Value, Type: f.Type, Err: ioc.Validate(f.Value)}, true, nil
	}
	<-s.done
	return lookup.Item{}, false, s.err
}

// settle ends the run's use of the source: a call of Next still under
// way keeps nothing more, so skipped can be read once settle returns.
func (s *source) settle() {
	s.mu.Lock()
	s.settled = true
	s.mu.Unlock()
}

// total counts the report's indicators once the run settled: the scan
// reads the rest of the report (offline, quick) for at most wait; -1 when
// it could not be read in time (a pipe still being written).
func (s *source) total(wait time.Duration) int {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-s.ch:
			if !ok {
				<-s.done
				return int(s.found.Load())
			}
		case <-timer.C:
			return -1
		}
	}
}

// stop ends the extraction when the run ends early (Ctrl-C).
func (s *source) stop() { s.stopOnce.Do(func() { close(s.quit) }) }

// indicatorOf is the report's view of one answer.
func indicatorOf(r lookup.Result) report.Indicator {
	ind := report.Indicator{Value: r.Item.Value, Type: string(r.Item.Type), Resp: r.Resp, Err: r.Err}
	if r.Item.Input != r.Item.Value {
		ind.FromURL = r.Item.Input
	}
	return ind
}

// progress is a bar on stderr for a person at a terminal: the number of
// indicators looked up so far (the total is not known until the whole
// report is read). A nil *progress does nothing.
type progress struct {
	bar   *progressbar.ProgressBar
	n     int
	shown time.Time
}

func newProgress(w io.Writer) *progress {
	return &progress{bar: progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("triage: looking up"),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSpinnerType(14),
	)}
}

func (p *progress) add() {
	if p == nil {
		return
	}
	p.n++
	if now := time.Now(); now.Sub(p.shown) >= 200*time.Millisecond {
		p.shown = now
		p.bar.Describe(fmt.Sprintf("triage: %d looked up", p.n))
	}
	_ = p.bar.Add(1)
}

func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
	}
}
