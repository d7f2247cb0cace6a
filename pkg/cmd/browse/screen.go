package browse

import (
	"bytes"
	"context"
	"io"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/browse"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// show runs the browser on doc, with p's lookups, until q. While the
// browser has the screen, nothing may be written to the terminal behind
// it: what the lookups write for stderr (the sandbox's notice, warnings,
// --debug) is held, shown on the status line after the pivot that wrote
// it, and what was not shown there is written to stderr once the
// browser has given the terminal back.
func show(ctx context.Context, cmd *cobra.Command, f *online.Factory, doc *browse.Document) error {
	held, release := holdStderr(f.IO)
	pivot, closePivot := pivoter(ctx, cmd, f, held)
	bo := browse.OptionsFor(f.IO, doc.Title)
	bo.Pivot = pivot
	err := browse.Run(ctx, doc, bo, os.Stdout)
	closePivot()
	release()
	return err
}

// holdStderr points ios's stderr at a holder until release, which gives
// stderr back and writes to it what the holder still has.
func holdStderr(ios *iostreams.IOStreams) (held *heldStderr, release func()) {
	held = &heldStderr{}
	errOut := ios.ErrOut
	ios.ErrOut = held
	return held, func() {
		ios.ErrOut = errOut
		if rest := held.take(); rest != "" {
			_, _ = io.WriteString(errOut, rest)
		}
	}
}

// heldStderr is stderr while the browser runs: the lookups write to it
// from the pivots' goroutines.
type heldStderr struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (h *heldStderr) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.Write(p)
}

// take is what was written since the last take.
func (h *heldStderr) take() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.buf.String()
	h.buf.Reset()
	return s
}
