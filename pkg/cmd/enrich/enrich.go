// Package enrich is `tilookup enrich`: a CSV, TSV or NDJSON export in, the
// same records out, in order, each with what the service knows about the
// indicators in it.
package enrich

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/enrich"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/triage"
)

// Options are the parsed command line of one enrich and what it needs from
// its environment, as functions so that tests can replace them.
type Options struct {
	IO *iostreams.IOStreams
	// Lookups is how the values are looked up (the one chain).
	online.Lookups
	// Output resolves the output format and terminal facts.
	Output func() (output.Options, error)
	// Setting reads a config key (allowlist, warninglists).
	Setting func(key string) (string, error)

	File      string // "" or "-": stdin
	Format    string
	OutputSet bool // -o was given; otherwise the output is the input's format
	Columns   []string
	NoSkip    bool
	CSVRaw    bool
}

// NewCmd is `tilookup enrich`. runF replaces the run function in tests.
func NewCmd(f *online.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:      f.IO,
		Lookups: online.NewLookups(f),
		Output:  func() (output.Options, error) { return cmdutil.OutputOptions(f.Factory, "enrich", "") },
		Setting: f.Get,
	}
	cmd := &cobra.Command{
		Use:   "enrich [FILE]",
		Short: "Add what the service knows to each row of a CSV, TSV or NDJSON export",
		Long: `Enrich reads an export from a SIEM or a firewall (FILE, or stdin when none or
"-"): a CSV with a header, a TSV, or NDJSON (one object per line), told apart
by its content or set with --input. It writes every record back, in order,
with what the service knows about the indicators in it.

--column NAME (repeatable; NDJSON: a field, a dotted name such as
destination.ip reading a nested one) names the columns that hold
indicators; an unknown name is an error. Without it they are detected from the first 100 records: a
column is taken when most of its cells are indicators of one type, never when
it holds free text (a message, a user agent); the columns taken are named on
stderr.

CSV and TSV out: each record's own cells exactly as they came (quotes, a
BOM, CRLF line ends), then for each indicator column C the cells tl_C_status,
tl_C_count (the number of resources that matched), tl_C_resources (their
labels, joined by ;) and tl_C_url (the first detail_url). Cells of service
text are guarded against formula injection as search -o csv guards them
(--csv-raw keeps them as sent). NDJSON out: each object as it came, unknown
fields and number spellings kept, with a field
"tilookup": {"C": {"status", "count", "resources", "detail_url"}} added.
-o json or -o ndjson on a CSV or TSV input writes NDJSON objects, the header
names as keys.

The status is matched, no_match, unsupported (not an indicator, or not a
type the service searches), skipped (noise, as in triage: private and
reserved addresses, internal names such as .local and .corp, --allowlist,
--warninglists; --no-skip looks everything up) or error. An empty cell is not looked up, and its cells stay empty. Each
distinct value is looked up once. Errors are per cell: no record is ever
dropped, and once the service refuses the token or cannot be reached, no
more requests are sent and every remaining record is written with status
error. Ctrl-C leaves the output whole up to the last complete record.

The exit status is triage's: 0 when any cell matched, 1 when none did; a
failed lookup wins with its code (the largest), 130 on Ctrl-C.`,
		Example: `  tilookup enrich --sandbox firewall.csv
  tilookup enrich --column src_ip --column dest_domain firewall.csv
  tilookup enrich -o ndjson firewall.csv | jq -c 'select(.tilookup.src_ip.status == "matched")'
  tilookup enrich --input ndjson --column file_hash events.ndjson`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			opts.OutputSet = cmd.Flags().Changed("output")
			if err := cmdutil.CheckPace(opts.Concurrency, opts.Rate); err != nil {
				return err
			}
			if opts.Limit < 0 {
				return cmdutil.UsageError("--limit must be a positive number")
			}
			_, ok := enrich.ParseFormat(opts.Format)
			if err := cmdutil.CheckInput(cmd, opts.IO.ErrOut, opts.Format, ok, enrich.Formats); err != nil {
				return err
			}
			for _, c := range opts.Columns {
				if strings.TrimSpace(c) == "" {
					return cmdutil.UsageError("--column needs a column name")
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.Columns, "column", nil, "a column (NDJSON: field) of indicators; repeatable")
	cmdutil.AddInputFlag(cmd, &opts.Format, enrich.Formats, true)
	fl.String("allowlist", "", "skip the values, CIDR blocks, domains in `FILE`")
	fl.String("warninglists", "", "skip values on the MISP warning lists under `DIR`")
	fl.BoolVar(&opts.NoSkip, "no-skip", false, "look up every indicator (no address or list rule)")
	fl.IntVar(&opts.Limit, "limit", 0, "ask for at most `N` results per value")
	cmdutil.AddPaceFlags(cmd, &opts.Concurrency, &opts.Rate, "requests in flight at once")
	fl.BoolVar(&opts.CSVRaw, "csv-raw", false, "CSV: keep added cells a spreadsheet would run")
	fl.BoolVar(&opts.Sandbox, "sandbox", false, "use the built-in demo server (no account)")
	cmdutil.AddCacheFlags(cmd, &opts.Refresh)
	_ = cmd.RegisterFlagCompletionFunc("column", cobra.NoFileCompletions)
	_ = cmd.MarkFlagDirname("warninglists")
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	in := io.Reader(opts.IO.In)
	size := int64(-1)
	if opts.File != "" && opts.File != "-" {
		f, err := cmdutil.OpenInput(opts.File)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	} else if opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("give a FILE, or pipe an export on stdin")
	}
	if st, ok := statOf(in); ok && st.Mode().IsRegular() {
		size = st.Size()
		if out, ok := statOf(opts.IO.Out); ok && os.SameFile(st, out) {
			// `enrich FILE >> FILE` would read its own output back and
			// grow FILE until the disk is full.
			return failure.New(failure.Usage, "input file is output file: write the output to another file")
		}
	}
	var skipper *triage.Skipper
	if !opts.NoSkip {
		var err error
		if skipper, err = triage.ConfiguredSkipper(opts.Setting); err != nil {
			return err
		}
	}
	outOpts, err := opts.Output()
	if err != nil {
		return err
	}
	format, _ := enrich.ParseFormat(opts.Format)
	src, layout, err := enrich.Open(in, format, opts.Columns, skipper)
	if err != nil {
		return err
	}
	toNDJSON, err := outputFormat(opts.OutputSet, outOpts.Format, layout.Format)
	if err != nil {
		return err
	}
	if layout.Detected {
		fmt.Fprintf(opts.IO.ErrOut, "enrich: indicator columns: %s (name them with --column to choose)\n", describe(layout.Columns))
	}

	// Decoded answers: the added cells need the labels and the links.
	// Dedup outermost, so that Run can join copies of a value in flight.
	service, err := opts.Start(online.Chain{Wrap: func(s lookup.Searcher) lookup.Searcher {
		return enrich.Remember(s, enrich.DefaultRemember)
	}})
	if err != nil {
		return err
	}
	defer service.Close()
	// No cmdutil.BulkGC: at its GOGC=400 the peak RSS of a 100 MiB export
	// was 54-64 MB against 33 at the default, for some 10% less CPU; the
	// 60 MB bound matters more here.

	out := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	w := enrich.NewWriter(out, layout, toNDJSON)
	outOpts.CSVRaw = opts.CSVRaw
	w.Cell = outOpts.CSVCell
	w.Terminal = outOpts.TTY
	sink := enrich.NewSink(w)
	sink.FlushOut = out.Flush
	if opts.IO.IsStderrTTY() && !opts.IO.IsStdoutTTY() {
		bar := newProgress(opts.IO.ErrOut, size)
		defer bar.finish()
		sink.Progress = bar.set
	}
	runErr := w.Header()
	if runErr == nil {
		runErr = service.Run(ctx, src, sink)
	}
	if err := out.Flush(); err != nil && runErr == nil {
		runErr = failure.Wrap(failure.IO, err, "cannot write the output: "+err.Error())
	}
	report(opts.IO.ErrOut, sink)
	return sink.Tally.Err(runErr, true)
}

// statOf describes the file behind a stream: an *os.File, or the process's
// stdout behind the writer pkg/cli wraps it in (which has its Fd).
func statOf(stream any) (os.FileInfo, bool) {
	f, ok := stream.(*os.File)
	if !ok {
		fd, hasFd := stream.(interface{ Fd() uintptr })
		if !hasFd || fd.Fd() != os.Stdout.Fd() {
			return nil, false
		}
		f = os.Stdout
	}
	st, err := f.Stat()
	return st, err == nil
}

// outputFormat says whether the records go out as NDJSON objects: the
// input's own format unless -o asks for JSON.
func outputFormat(set bool, f output.Format, in enrich.Format) (toNDJSON bool, err error) {
	if !set {
		return in == enrich.NDJSON, nil
	}
	switch f {
	case output.JSON, output.NDJSON:
		return true, nil
	case output.CSV:
		if in == enrich.NDJSON {
			return false, cmdutil.UsageError("-o csv needs a CSV or TSV input: NDJSON is written back as NDJSON")
		}
		return false, nil
	case output.Table:
		return in == enrich.NDJSON, nil
	}
	return false, cmdutil.UsageError("enrich writes the input's format, or -o json|ndjson: not -o %s", f)
}

func describe(cols []enrich.Column) string {
	var parts []string
	for _, c := range cols {
		parts = append(parts, fmt.Sprintf("%s (%s)", sanitize.Line(c.Name), c.Kind))
	}
	return strings.Join(parts, ", ")
}

// report says on stderr what the added cells alone would not: cells that
// failed, and records written back without them. Each line may quote the
// input or the service: one sanitized line each.
func report(w io.Writer, s *enrich.Sink) {
	for _, e := range s.BadRows {
		fmt.Fprintln(w, sanitize.Line("enrich: "+e.Error()))
	}
	switch {
	case s.Failed == 1:
		fmt.Fprintln(w, sanitize.Line("enrich: 1 cell failed: "+s.FirstErr))
	case s.Failed > 1:
		fmt.Fprintln(w, sanitize.Line(fmt.Sprintf("enrich: %d cells failed; the first: %s", s.Failed, s.FirstErr)))
	}
}
