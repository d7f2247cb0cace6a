// Package search is `tilookup search`: one exact value, a list of values, or
// a stream of thousands, looked up concurrently and printed in input order.
package search

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Options are the parsed command line of one search.
type Options struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory

	Args        []string
	Files       []string
	Limit       int
	Concurrency int
	Rate        float64
	NoRefang    bool
	ExitStatus  bool
	JQ          string
	Preview     bool
	Defang      bool
	CSVRaw      bool
	Sandbox     bool
}

// NewCmd is `tilookup search`. runF replaces the run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "search [VALUE...]",
		Short: "Find exact values (hash, IP, domain, URL, CVE) across every resource",
		Long: `Search finds each exact value across every resource of the service and shows the
detected type, the search strategy, the reason a value is unsupported, and the
matches of each resource.

Values come from the arguments, from -f FILE (repeatable), or from stdin when
no VALUE is given and stdin is not a terminal (or with "-"), one per line;
blank lines and lines starting with # are skipped. Defanged values such as
hxxps://evil[.]example or 198.51.100[.]7 are refanged unless --no-refang.

Several values print one summary row each in table mode, a JSON array with
-o json, one line each with -o ndjson, always in input order. A value that
fails becomes an error record, so no input is lost.`,
		Example: `  tilookup search 44d88612fea8a8f36de82e1278abb02f
  tilookup search --sandbox 'hxxps://verify-check[.]example/login'
  tilookup search -o json CVE-2021-44228 | jq '.results[].label'
  tilookup extract report.txt | tilookup search -o ndjson -c 8 --rate 20`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			if opts.Concurrency < 1 {
				return cmdutil.UsageError("--concurrency must be at least 1")
			}
			if opts.Rate < 0 {
				return cmdutil.UsageError("--rate must be 0 (unlimited) or more")
			}
			if opts.Limit < 0 {
				return cmdutil.UsageError("--limit must be a positive number")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&opts.Files, "file", "f", nil, "read values from `FILE`, one per line (repeatable; - for stdin)")
	fl.IntVar(&opts.Limit, "limit", 0, "ask the service for at most `N` results (sent as limit)")
	fl.IntVarP(&opts.Concurrency, "concurrency", "c", 4, "requests in flight at once")
	fl.Float64Var(&opts.Rate, "rate", 0, "at most `R` requests per second (0 = unlimited)")
	fl.BoolVar(&opts.NoRefang, "no-refang", false, "search values exactly as given")
	fl.BoolVarP(&opts.ExitStatus, "exit-status", "e", false, "exit 1 when nothing matched")
	fl.StringVar(&opts.JQ, "jq", "", "filter the JSON output with a jq `expression`")
	fl.BoolVar(&opts.Preview, "preview", false, "table mode: show each resource's preview records")
	fl.BoolVar(&opts.Defang, "defang", false, "defang indicator values in table and CSV output, for pasting into tickets")
	fl.BoolVar(&opts.CSVRaw, "csv-raw", false, "CSV: do not neutralise cells that a spreadsheet would run as formulas")
	fl.BoolVar(&opts.Sandbox, "sandbox", false, "run against the built-in demo server (no account needed)")
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	f := opts.Factory
	stream := len(opts.Files) > 0 || len(opts.Args) == 0
	for _, a := range opts.Args {
		if a == "-" {
			stream = true
		}
	}
	if len(opts.Args) == 0 && len(opts.Files) == 0 {
		if opts.IO.IsStdinTTY() {
			return cmdutil.UsageError("give a VALUE, -f FILE, or pipe values on stdin")
		}
	}
	multi := stream || len(opts.Args) > 1

	// A single bad value fails before any config, token or network work.
	if !multi {
		if _, _, err := ioc.Prepare(opts.Args[0], !opts.NoRefang); err != nil {
			return err
		}
	}
	outOpts, err := cmdutil.OutputOptions(f, opts.JQ)
	if err != nil {
		return err
	}
	outOpts.Preview = opts.Preview
	outOpts.CSVRaw = opts.CSVRaw
	if opts.Defang {
		outOpts.Defang = func(s string) string { return ioc.Defang(s, ioc.Detect(s)) }
	}
	if opts.Sandbox {
		srv, err := f.StartSandbox()
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	client, err := f.Client(cmdutil.ForSearch, opts.Concurrency)
	if err != nil {
		return err
	}
	out := newBatchWriter(opts.IO.Out)
	defer out.flush()
	outOpts.Out = out
	printer, err := output.NewSearchPrinter(outOpts, multi)
	if err != nil {
		return failure.New(failure.Usage, "%v", err)
	}

	args := opts.Args
	if len(args) == 0 && len(opts.Files) == 0 {
		args = []string{"-"}
	}
	in := newInputs(args, opts.Files, opts.IO.In)
	p := &pipeline{
		client:      client,
		limit:       opts.Limit,
		refang:      !opts.NoRefang,
		concurrency: opts.Concurrency,
		rate:        opts.Rate,
		idle: func() {
			if f, ok := printer.(interface{ Flush() error }); ok {
				_ = f.Flush()
			}
			out.flush()
		},
		// json, ndjson and --jq print the server's bytes: fields are not needed.
		rawOnly: outOpts.Format == output.JSON || outOpts.Format == output.NDJSON || outOpts.JQ != "",
	}
	code := failure.ExitOK
	var stats summary
	var bar *progress
	// The bar goes to a person watching stderr while the records go to a
	// file or a pipe; on a shared terminal the rows themselves show progress.
	if multi && opts.IO.IsStderrTTY() && !opts.IO.IsStdoutTTY() {
		bar = newProgress(opts.IO.ErrOut, countValues(opts.Args, opts.Files))
	}
	emit := func(rec output.Record) error {
		c := recordCode(rec, opts.ExitStatus)
		code = failure.Max(code, c)
		stats.add(rec)
		bar.add()
		if !multi {
			if rec.Err != nil {
				return rec.Err
			}
			noticeRefang(opts.IO, rec)
		}
		err := printer.Add(rec)
		var recErr *output.RecordError
		if multi && errors.As(err, &recErr) {
			// One value's output failed (--jq on an error record, say):
			// say so and go on, so that no other value is lost.
			fmt.Fprintf(opts.IO.ErrOut, "tilookup: %s: %s\n", sanitize.String(rec.Query), recErr.Error())
			code = failure.Max(code, failure.ExitCode(recErr))
			return nil
		}
		return err
	}
	runErr := p.run(ctx, in, emit)
	bar.finish()
	if err := printer.Close(); err != nil && runErr == nil {
		runErr = err
	}
	// The records first, then any line about them on stderr.
	if err := out.w.Flush(); err != nil && runErr == nil {
		runErr = failure.Wrap(failure.IO, err, "cannot write the output: "+err.Error())
	}
	if multi {
		stats.report(opts.IO)
	}
	if opts.ExitStatus && stats.total() == 0 {
		code = failure.Max(code, failure.ExitNoMatch) // no value, so nothing matched (as grep)
	}
	if runErr != nil {
		return cmdutil.AtLeast(runErr, code)
	}
	if ctx.Err() != nil {
		return failure.New(failure.Interrupted, "interrupted")
	}
	return cmdutil.ExitWith(code)
}

// batchWriter buffers records and is flushed by the pipeline when it would
// wait for the next one. It has no Flush method on purpose: the printers
// flush writers that have one after every record.
type batchWriter struct{ w *bufio.Writer }

func newBatchWriter(w io.Writer) *batchWriter { return &batchWriter{w: bufio.NewWriterSize(w, 64<<10)} }

func (b *batchWriter) Write(p []byte) (int, error) { return b.w.Write(p) }
func (b *batchWriter) flush()                      { _ = b.w.Flush() }

// recordCode is a value's exit code: its error's, or 1 for no match with -e.
func recordCode(rec output.Record, exitStatus bool) int {
	if rec.Err != nil {
		return failure.ExitCode(rec.Err)
	}
	if exitStatus && rec.Resp.ResultCount() == 0 {
		return failure.ExitNoMatch
	}
	return failure.ExitOK
}

// noticeRefang tells a person at a terminal which value was really searched.
func noticeRefang(ios *iostreams.IOStreams, rec output.Record) {
	if ios.IsStderrTTY() && rec.Query != strings.TrimSpace(rec.Input) {
		fmt.Fprintf(ios.ErrOut, "Searching %s (from %s)\n", sanitize.String(rec.Query), sanitize.String(rec.Input))
	}
}

// summary counts outcomes for the closing line of a multi-value run.
type summary struct{ ok, noMatch, failed int }

func (s *summary) add(rec output.Record) {
	switch {
	case rec.Err != nil:
		s.failed++
	case rec.Resp.ResultCount() == 0:
		s.noMatch++
	default:
		s.ok++
	}
}

func (s *summary) total() int { return s.ok + s.noMatch + s.failed }

// report prints the closing line: always when something failed (that is an
// error worth a line on stderr), otherwise only to a person at a terminal.
func (s *summary) report(ios *iostreams.IOStreams) {
	total := s.ok + s.noMatch + s.failed
	if s.failed == 0 && !ios.IsStderrTTY() {
		return
	}
	fmt.Fprintf(ios.ErrOut, "%d values: %d matched, %d no match, %d failed\n", total, s.ok, s.noMatch, s.failed)
}
