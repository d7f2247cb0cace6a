package browse

import (
	"bytes"
	"os"

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
// title. Both refusals (no terminal; -o other than json) come before run,
// so before any lookup. q leaves with the run's own exit code, as if -i
// had not been given.
func Interactive(cmd *cobra.Command, f *online.Factory, on bool, name string, run func() error) error {
	if !on {
		return run()
	}
	ios := f.IO
	if !browse.HasTerminal(ios.IsStdoutTTY(), ios.IsStdinTTY()) {
		return browse.NoTerminal(cmd.Name() + " -i")
	}
	if f.Flags != nil && f.Flags.Changed("output") {
		if o, _ := f.Flags.GetString("output"); o != "json" {
			return cmdutil.UsageError("-i browses the JSON document: it goes with -o json only, not -o %s", sanitize.Line(o))
		}
	}
	f.Override("output", "json")

	// The run sees no terminal on stdout: plain JSON, no pager, no colour.
	var buf bytes.Buffer
	out, stdoutTTY := ios.Out, ios.IsStdoutTTY()
	ios.Out = &buf
	ios.SetTTY(ios.IsStdinTTY(), false, ios.IsStderrTTY())
	runErr := run()
	ios.Out = out
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
	bo := browse.OptionsFor(ios, doc.Title)
	bo.Pivot = pivoter(cmd.Context(), cmd, f)
	if err := browse.Run(cmd.Context(), doc, bo, os.Stdout); err != nil {
		return err
	}
	return runErr
}
