// Package browse is `tilookup browse`: a full-screen browser of a search,
// triage, pivot or watch document, in the terminal.
package browse

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/browse"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/pivot"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Options is what browse needs to run.
type Options struct {
	IO   *iostreams.IOStreams
	File string // "-" for stdin
	// Show runs the browser on the document (show, with p's lookups).
	Show func(*browse.Document) error
}

// NewCmd is `tilookup browse`. runF replaces the run in tests.
func NewCmd(f *online.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{}
	cmd := &cobra.Command{
		Use:   "browse [FILE]",
		Short: "Explore a search, triage, pivot or watch result in the terminal",
		Long: fmt.Sprintf(`Browse shows a document written by search -o json|ndjson, triage -o json,
pivot -o json or watch -o json full-screen: the indicators (status, type,
resources matched), filterable with /; enter opens one on its matches and
their preview records, o opens a match's detail URL in the browser, y copies
the value (OSC 52), p pivots one hop from an indicator (looked up live,
within --max-lookups) and adds its neighbours to the list, space marks, e
writes the marked (or all) to a %s file, ? lists
the keys, q quits. With no FILE (or -), the document is read from stdin and
the keys from the terminal.
It needs a terminal: without one it is a usage error (exit 2).`, export.FileEndings()),
		Example: `  tilookup triage -o json report.txt | tilookup browse -
  tilookup pivot -o json 44d88612fea8a8f36de82e1278abb02f > graph.json && tilookup browse graph.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IO = f.IO
			// browse shows a document and writes none: no -o format is
			// browse's in the registry, so an explicit -o is refused,
			// never ignored (a configured output is a preference).
			if cmd.Flags().Changed("output") {
				o, _ := cmd.Flags().GetString("output")
				return cmdutil.UsageError("browse shows a document on the screen and writes no -o format (not -o %s): write -o json with search, triage, pivot or watch, and browse that", sanitize.Line(o))
			}
			if n, _ := cmd.Flags().GetInt("max-lookups"); n < 1 {
				return cmdutil.UsageError("--max-lookups must be at least 1")
			}
			opts.Show = func(doc *browse.Document) error { return show(cmd.Context(), cmd, f, doc) }
			opts.File = "-"
			if len(args) == 1 {
				opts.File = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.Int("max-lookups", pivot.DefaultMaxLookups, "p: at most `M` lookups per pivot")
	fl.Bool("no-skip", false, "p: look up all that is found (no skip rule)")
	fl.Bool("sandbox", false, "p: use the built-in demo server (no account)")
	return cmd
}

func run(_ context.Context, opts *Options) error {
	stdinIsDoc := opts.File == "-"
	if !browse.HasTerminal(opts.IO.IsStdoutTTY(), opts.IO.IsStdinTTY() && !stdinIsDoc) {
		return browse.NoTerminal("browse")
	}
	if stdinIsDoc && opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("browse reads a document: name a FILE, or pipe one in (tilookup triage -o json report.html | tilookup browse -)")
	}
	doc, err := load(opts)
	if err != nil {
		return err
	}
	return opts.Show(doc)
}

func load(opts *Options) (*browse.Document, error) {
	var in io.Reader = opts.IO.In
	name := "stdin"
	if opts.File != "-" {
		f, err := cmdutil.OpenInput(opts.File)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in, name = f, opts.File
	}
	// The soft memory limit is browse's alone: set here, as the
	// document is read, not before the command runs.
	doc, err := browse.Load(browse.LimitMemory(os.Getenv, in), name)
	if err != nil {
		return nil, cmdutil.UsageError("%s", sanitize.Line(err.Error()))
	}
	return doc, nil
}
