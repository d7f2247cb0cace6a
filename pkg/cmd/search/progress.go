package search

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is the bulk progress bar on stderr, shown only to a person at a
// terminal; a nil *progress does nothing, so pipes and CI stay silent.
type progress struct{ bar *progressbar.ProgressBar }

// newProgress starts a bar for total values (-1 when unknown: a counter
// with a rate, no ETA).
func newProgress(w io.Writer, total int64) *progress {
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("searching"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("values"),
		progressbar.OptionSetPredictTime(total > 0),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSpinnerType(14),
	)
	return &progress{bar: bar}
}

func (p *progress) add() {
	if p != nil {
		_ = p.bar.Add(1)
	}
}

func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
	}
}

// countValues counts the values in the arguments and the regular files
// among -f, so that the bar can show an ETA. It gives -1 when any input is
// a stream (stdin, a pipe), which cannot be read twice.
func countValues(args, files []string) int64 {
	if len(args) == 0 && len(files) == 0 {
		return -1 // stdin
	}
	var n int64
	for _, a := range args {
		if a == "-" {
			return -1
		}
		n++
	}
	for _, name := range files {
		c := countFile(name)
		if c < 0 {
			return -1
		}
		n += c
	}
	return n
}

func countFile(name string) int64 {
	if name == "-" {
		return -1
	}
	f, err := os.Open(name)
	if err != nil {
		return -1
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return -1
	}
	var n int64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) > 0 && line[0] != '#' {
			n++
		}
	}
	if sc.Err() != nil {
		return -1
	}
	return n
}
