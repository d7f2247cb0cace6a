package cli

import (
	"io"
	"sync"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// stdout records the first error writing to the process's standard output,
// so that no command can lose its output silently: `tilookup version >
// /dev/full` must fail like `echo hi > /dev/full` does. Commands print with
// fmt.Fprintln and cobra prints help and completion scripts, none of which
// look at write errors; checking once here covers them all.
type stdout struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

// trackStdout puts a recording writer in place of ios.Out and returns it.
func trackStdout(ios *iostreams.IOStreams) *stdout {
	s := &stdout{w: ios.Out}
	ios.Out = s
	return s
}

// Write refuses everything after the first failure: output with a hole in
// it is worse than output cut short.
func (s *stdout) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// Fd is the descriptor of the stream underneath, so that terminal size
// queries still work through the wrapper; an invalid one when it is not a
// file.
func (s *stdout) Fd() uintptr {
	if f, ok := s.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// check returns the error the run ends with. A write failure replaces
// success, a usage error (cobra reports a failed write of help or a
// completion script as a plain error) and an exit code whose explanation
// went to the unwritable output; an error that says more (a kinded failure
// of the service, the input, or the write itself) is kept.
func (s *stdout) check(err error) error {
	s.mu.Lock()
	werr := s.err
	s.mu.Unlock()
	if werr == nil || (err != nil && failure.KindOf(err) != failure.Usage) {
		return err
	}
	return failure.WriteError(werr)
}
