package triage

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/triage"
)

// openInputs joins the inputs into one text, each read as text or HTML on
// its own, with a line break between them so that the last word of one
// never runs into the first of the next. Every file is opened now, so that
// a missing one fails before any request.
func openInputs(opts *Options) (io.Reader, func(), error) {
	format, _ := triage.ParseFormat(opts.Input)
	names := opts.Files
	if len(names) == 0 {
		names = []string{"-"}
	}
	var readers []io.Reader
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, name := range names {
		var r io.Reader = opts.IO.In
		if name != "-" {
			f, err := cmdutil.OpenInput(name)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			files = append(files, f)
			r = f
		}
		readers = append(readers, triage.OpenLazy(r, name, format, opts.warn), strings.NewReader("\n"))
	}
	return io.MultiReader(readers...), closeAll, nil
}

// source hands the indicators of the text to lookup.Run, and keeps the
// skipped ones aside. Extraction runs on a goroutine of its own (it calls
// back for each indicator); Run pulls from it.
type source struct {
	ch   chan ioc.Indicator
	quit chan struct{}
	done chan struct{}
	err  error // set before done is closed

	skip     *triage.Skipper
	skipped  skipList
	stopOnce sync.Once
}

var errStopped = errors.New("stopped")

func newSource(text io.Reader, skip *triage.Skipper) *source {
	s := &source{ch: make(chan ioc.Indicator, 64), quit: make(chan struct{}), done: make(chan struct{}), skip: skip}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		// Each URL's host is looked up too: "is this host known?" is the
		// question an analyst asks of a C2 URL, and an exact-URL search
		// does not ask it.
		err := ioc.Extract(text, ioc.ExtractOptions{URLHosts: true}, func(ind ioc.Indicator) error {
			select {
			case s.ch <- ind:
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
	for ind := range s.ch {
		if reason := s.skip.Reason(ind.Value, ind.Type); reason != "" {
			s.skipped.add(report.Skipped{Value: ind.Value, Type: string(ind.Type), Reason: reason, FromURL: ind.FromURL})
			continue
		}
		// A URL's host carries its URL as the input it came from; the
		// report marks it with that (indicatorOf).
		input := ind.Value
		if ind.FromURL != "" {
			input = ind.FromURL
		}
		return lookup.Item{Input: input, Value: ind.Value, Type: ind.Type, Err: ioc.Validate(ind.Value)}, true, nil
	}
	<-s.done
	return lookup.Item{}, false, s.err
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
