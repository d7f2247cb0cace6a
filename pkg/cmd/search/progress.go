package search

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is the bulk progress bar on stderr, shown only to a person at a
// terminal; a nil *progress does nothing, so pipes and CI stay silent.
// Over regular files it moves by bytes read, so it has a total and an ETA
// without reading the input twice; over a pipe it counts values.
type progress struct {
	bar    *progressbar.ProgressBar
	total  int64
	values int
	shown  time.Time
}

// describeEvery bounds how often the count of values is redrawn.
const describeEvery = 200 * time.Millisecond

func newProgress(w io.Writer, totalBytes int64) *progress {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("searching"),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSpinnerType(14),
		// No rate: at the start it is noise (thousands of values a second
		// from the first few answers), and the ETA already says it.
	}
	if totalBytes > 0 {
		opts = append(opts, progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(false))
	} else {
		totalBytes = -1
		opts = append(opts, progressbar.OptionSetPredictTime(false))
	}
	return &progress{bar: progressbar.NewOptions64(totalBytes, opts...), total: totalBytes}
}

// add counts one value, whose input ends offset bytes into the input.
func (p *progress) add(offset int64) {
	if p == nil {
		return
	}
	p.values++
	if now := time.Now(); now.Sub(p.shown) >= describeEvery {
		p.shown = now
		p.bar.Describe(fmt.Sprintf("searching: %d values", p.values))
	}
	if p.total > 0 {
		_ = p.bar.Set64(min(offset, p.total))
	} else {
		_ = p.bar.Add(1)
	}
}

func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
	}
}

// inputSize is the total size of the inputs when every stream is a
// regular file (stdin redirected from a file counts), else -1.
func inputSize(in *inputPlan, stdin io.Reader) int64 {
	var n int64
	streams := 0
	add := func(f *os.File) bool {
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return false
		}
		n += st.Size()
		streams++
		return true
	}
	stdinFile, _ := stdin.(*os.File)
	for _, a := range in.args {
		if a == "-" && (stdinFile == nil || !add(stdinFile)) {
			return -1
		}
	}
	for i, f := range in.files {
		if in.names[i] == "-" {
			f = stdinFile
		}
		if f == nil || !add(f) { // a pipe opened later has no size
			return -1
		}
	}
	if streams == 0 {
		return -1
	}
	return n
}
