package browse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/browse"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// AddInteractiveFlag is -i/--interactive of search, triage and pivot.
func AddInteractiveFlag(cmd *cobra.Command, on *bool) {
	cmd.Flags().BoolVarP(on, "interactive", "i", false, "browse the result full-screen (as tilookup browse)")
}

// Interactive runs a command's run, and with -i (on) browses what it
// wrote: the run writes -o json into a buffer instead of stdout, then the
// browser opens on that document. name names the input in the browser's
// title. The refusals (-o other than json, --jq, --web, no terminal) come before run,
// so before any lookup. q leaves with the run's own exit code, as if -i
// had not been given.
func Interactive(cmd *cobra.Command, f *online.Factory, on bool, name string, run func() error) error {
	if !on {
		return run()
	}
	ios := f.IO
	if f.Flags != nil && f.Flags.Changed("output") {
		if o, _ := f.Flags.GetString("output"); o != "json" {
			return cmdutil.UsageError("-i browses the JSON document: it goes with -o json only, not -o %s", sanitize.Line(o))
		}
	}
	// What would change the document or take the screen: --jq rewrites
	// it (the browser could not read it), --web opens a page instead.
	for _, name := range notWithInteractive {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			return cmdutil.UsageError("-i browses the JSON document: it does not go with --%s", name)
		}
	}
	if !browse.HasTerminal(ios.IsStdoutTTY(), ios.IsStdinTTY()) {
		return browse.NoTerminal(cmd.Name() + " -i")
	}
	f.Override("output", "json")

	// The run sees no terminal on stdout: plain JSON, no pager, no colour.
	// What it says on stderr is kept too, to tell whether it said why
	// it failed.
	var buf bytes.Buffer
	out, errOut, stdoutTTY := ios.Out, ios.ErrOut, ios.IsStdoutTTY()
	said := &saidWriter{w: errOut}
	ios.Out, ios.ErrOut = &buf, said
	ios.SetTTY(ios.IsStdinTTY(), false, ios.IsStderrTTY())
	runErr := run()
	ios.Out, ios.ErrOut = out, errOut
	ios.SetTTY(ios.IsStdinTTY(), stdoutTTY, ios.IsStderrTTY())

	// Nothing to browse (refused, or interrupted before a document): the
	// run's error is the whole answer.
	if buf.Len() == 0 || failure.ExitCode(runErr) == failure.ExitInterrupted {
		return runErr
	}
	if name == "" {
		name = "the input"
	}
	doc, err := browse.Load(&buf, name)
	if err != nil {
		if runErr != nil {
			return runErr
		}
		return err
	}
	// The token was refused: the run stopped sending (the chain's
	// refusal stop) and every row is that failure. There is nothing to
	// browse; the error is the answer, as without -i.
	if exitCode(runErr) == failure.ExitAuth {
		said.mu.Lock()
		defer said.mu.Unlock()
		return refused(runErr, doc, said.text.String())
	}
	if err := show(cmd.Context(), cmd, f, doc); err != nil {
		return err
	}
	return runErr
}

// exitCode is the status err ends the command with, as pkg/cli reads
// it: a Reported or Raised error's code, else its kind's.
func exitCode(err error) int {
	var reported *failure.Reported
	var raised *failure.Raised
	switch {
	case errors.As(err, &reported):
		return reported.Code
	case errors.As(err, &raised):
		return raised.Code
	}
	return failure.ExitCode(err)
}

// notWithInteractive are the flags that make -i impossible.
var notWithInteractive = []string{"jq", "web"}

// refused is the error line of a run whose token was refused: the run's
// own, or, when the run reported its failures in the document (triage,
// pivot: failure.Reported), the first failed row's, which says why and
// how to log in, unless the run already said it on stderr (search's
// closing summary).
func refused(runErr error, doc *browse.Document, said string) error {
	var reported *failure.Reported
	if !errors.As(runErr, &reported) {
		return runErr
	}
	for _, it := range doc.Items {
		if it.Status == "failed" && it.Note != "" {
			if strings.Contains(said, it.Note) {
				return runErr
			}
			return failure.New(failure.Auth, "%s", sanitize.Line(it.Note))
		}
	}
	return runErr
}

// saidWriter writes to w and keeps the first maxSaid bytes written (a
// spinner writes from its own goroutine).
type saidWriter struct {
	w    io.Writer
	mu   sync.Mutex
	text bytes.Buffer
}

const maxSaid = 64 << 10

func (s *saidWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if room := maxSaid - s.text.Len(); room > 0 {
		s.text.Write(p[:min(len(p), room)])
	}
	return s.w.Write(p)
}
