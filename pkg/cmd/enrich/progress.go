package enrich

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a bar on stderr for a person at a terminal, moving by the
// bytes of input written back: with a total and an ETA over a regular
// file, a byte count over a pipe. A nil *progress does nothing.
type progress struct {
	bar   *progressbar.ProgressBar
	total int64
}

func newProgress(w io.Writer, total int64) *progress {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("enriching"),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowBytes(true),
	}
	if total > 0 {
		opts = append(opts, progressbar.OptionSetPredictTime(true))
	} else {
		total = -1
		opts = append(opts, progressbar.OptionSpinnerType(14))
	}
	return &progress{bar: progressbar.NewOptions64(total, opts...), total: total}
}

func (p *progress) set(offset int64) {
	if p == nil {
		return
	}
	if p.total > 0 {
		offset = min(offset, p.total)
	}
	_ = p.bar.Set64(offset)
}

func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
	}
}
