// Package triage is `tilookup triage`: every indicator of a report (text or
// HTML) extracted, the noise skipped with a reason, the rest looked up in
// bulk, and one report of what is known.
package triage

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	browsecmd "github.com/tilookup/tilookup/pkg/cmd/browse"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/triage"
)

// Options are the parsed command line of one triage and what it needs from
// its environment, as functions so that tests can replace them.
type Options struct {
	IO *iostreams.IOStreams
	// Lookups is how the values are looked up (the one chain).
	online.Lookups
	// Output resolves the output format and terminal facts.
	Output func() (output.Options, error)
	// Setting reads a config key (allowlist, warninglists) through every
	// layer: flag, environment, profile, file.
	Setting func(key string) (string, error)
	// Now is the time of the lookups, for the report.
	Now func() time.Time
	// StartPager sends stdout through the pager when it is a terminal
	// (cmdutil.StartPager); nil = never.
	StartPager func() (stop func())

	Files       []string
	Input       string // auto, text or html
	NoSkip      bool
	ShowSkipped bool
	Defang      bool
	DefangSet   bool // --defang was given: Markdown defangs unless --defang=false
	CSVRaw      bool
	NoPager     bool
	TLP         string
	ToIDS       bool

	// Interactive (-i) browses the JSON document (pkg/cmd/browse).
	Interactive bool
}

// NewCmd is `tilookup triage`. runF replaces the run function in tests.
func NewCmd(f *online.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:      f.IO,
		Lookups: online.NewLookups(f),
		Output:  func() (output.Options, error) { return cmdutil.OutputOptions(f.Factory, "triage", "") },
		Setting: f.Get,
		Now:     time.Now,
	}
	opts.StartPager = func() func() { return cmdutil.StartPager(f.Factory, opts.NoPager) }
	cmd := &cobra.Command{
		Use:   "triage [FILE...]",
		Short: "Look up every indicator of a report, skipping the noise",
		Long: `Triage reads a report, an e-mail or a ticket (the FILEs, or stdin when none;
"-" is stdin too), extracts every indicator with the rules of extract, skips
the ones not worth a lookup, searches the rest in bulk and reports what is
known about them.

Each URL's host is looked up too, as a domain or an address, so that a
report naming hxxps://evil[.]example/x/y gets the answers for evil.example
as well as for the URL. The table marks such a value "domain (URL host)" and
names the URL, -o json, ndjson and csv carry the URL as from_url, and the
summary counts them; the skip rules apply to a host as to any value.

HTML (by its name, or by its first bytes; --input html|text to say so) is read
as a reader sees it: text and href values only, so an address in a script, a
style or a tracking pixel's src is not taken for an indicator; the head and
the page's own <nav>, <header> and <footer> (the vendor's menu, banner and
footer; an article's header and footer are read) are left out. For a PDF:
pdftotext report.pdf - | tilookup triage

Skipped before any request, each with its reason: private, loopback,
link-local, CGNAT, multicast, reserved and unspecified addresses (not the
documentation ranges); special-use and private-use names, which never resolve
on the Internet and would tell the service your network's layout (.local,
.localhost, .internal, home.arpa, .alt, .lan, .corp, .home, .mail; not
.example, .test or .invalid), and the e-mail addresses and URLs at them;
the values of --allowlist FILE (config allowlist: one value, address, CIDR
block or domain per line, a domain covering its subdomains, # comments);
and the values on the MISP warning lists under
--warninglists DIR (config warninglists: a checkout of MISP's
misp-warninglists; string, hostname and substring lists), as in
tilookup triage --allowlist ours.txt --warninglists ~/misp-warninglists FILE.
An address on a cidr list (hosting, cloud, VPN ranges) is looked up all the
same and marked with the list's name. --no-skip looks everything up.

The table shows a summary line, the matched indicators with the resources
that matched, the others in short, and the skipped ones with --show-skipped.
-o json is one document {"indicators", "skipped", "summary"}, written as the
answers come (the summary last; its total counts the skipped too); -o ndjson
one line per indicator, then one per skipped value, then {"summary": ...};
-o csv one row per indicator and matching resource. --defang applies to table
and CSV. -o md is Markdown for a ticket (defanged unless --defang=false) and
-o stix one STIX 2.1 bundle (marked with --tlp); -o misp one MISP event
(unpublished, your organisation only, tagged with --tlp) holding the matched
values only, never the skipped ones, with to_ids set only with --to-ids. All
three are written once the last answer is in.

The exit status is like grep's: 0 when any indicator matched, 1 when none
did; a failed search wins with its code (the largest), 130 on Ctrl-C, after
the report of what finished.`,
		Example: `  tilookup triage --sandbox report.txt
  pbpaste | tilookup triage --show-skipped
  tilookup triage -o json mail.eml | jq -r '.indicators[] | select(.status=="matched") | .value'
  tilookup triage -o csv --defang report.txt | head -5`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			opts.DefangSet = cmd.Flags().Changed("defang")
			if err := cmdutil.CheckPace(opts.Concurrency, opts.Rate); err != nil {
				return err
			}
			if opts.Limit < 0 {
				return cmdutil.UsageError("--limit must be a positive number")
			}
			_, ok := triage.ParseFormat(opts.Input)
			if err := cmdutil.CheckInput(cmd, opts.IO.ErrOut, opts.Input, ok, triage.Formats); err != nil {
				return err
			}
			do := run
			if runF != nil {
				do = runF
			}
			return browsecmd.Interactive(cmd, f, opts.Interactive, strings.TrimPrefix(reportTitle(args), "Triage of "), func() error { return do(cmd.Context(), opts) })
		},
	}
	fl := cmd.Flags()
	cmdutil.AddInputFlag(cmd, &opts.Input, triage.Formats, false)
	fl.String("allowlist", "", "skip the values, CIDR blocks, domains in `FILE`")
	fl.String("warninglists", "", "MISP warning lists under `DIR`: skip (cidr: mark)")
	fl.BoolVar(&opts.NoSkip, "no-skip", false, "look up every indicator (no address or list rule)")
	fl.BoolVar(&opts.ShowSkipped, "show-skipped", false, fmt.Sprintf("table: list the first %d skipped, with reasons", skipSample))
	fl.IntVar(&opts.Limit, "limit", 0, "ask for at most `N` results per value")
	cmdutil.AddPaceFlags(cmd, &opts.Concurrency, &opts.Rate, "requests in flight at once")
	fl.BoolVar(&opts.Defang, "defang", false, "defang indicators in table and CSV output")
	fl.BoolVar(&opts.CSVRaw, "csv-raw", false, "CSV: keep cells a spreadsheet would run")
	fl.BoolVar(&opts.NoPager, "no-pager", false, "do not send the table through the pager")
	fl.StringVar(&opts.TLP, "tlp", "", "TLP `level`: "+strings.Join(export.TLPLevels, "|"))
	fl.BoolVar(&opts.ToIDS, "to-ids", false, "-o misp: set the attributes' to_ids flag")
	_ = cmd.RegisterFlagCompletionFunc("tlp", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return export.TLPLevels, cobra.ShellCompDirectiveNoFileComp
	})
	fl.BoolVar(&opts.Sandbox, "sandbox", false, "use the built-in demo server (no account)")
	cmdutil.AddCacheFlags(cmd, &opts.Refresh)
	_ = cmd.MarkFlagDirname("warninglists")
	browsecmd.AddInteractiveFlag(cmd, &opts.Interactive)
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	if len(opts.Files) == 0 && opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("give a FILE, or pipe a report on stdin")
	}
	skipper, err := newSkipper(opts)
	if err != nil {
		return err
	}
	outOpts, err := opts.Output()
	if err != nil {
		return err
	}
	if err := export.CheckFlags("triage", outOpts.Format, opts.TLP, opts.ToIDS); err != nil {
		return err
	}
	in, closeInputs, err := openInputs(opts)
	if err != nil {
		return err
	}
	defer closeInputs()
	// Decoded answers: the status (unsupported) and the resources of the
	// table and CSV need the fields; a report holds few enough values.
	service, err := opts.Start(online.Chain{})
	if err != nil {
		return err
	}
	defer service.Close()

	out := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	outOpts.Out = out
	w, err := newWriter(outOpts, opts, reportTitle(opts.Files), opts.Now())
	if err != nil {
		return err
	}
	src := newSource(in, skipper)
	defer src.stop()
	s := &sink{w: w, skip: skipper}
	if opts.IO.ProgressAllowed(true) {
		// Nothing shows on stdout before the end in most formats.
		s.bar = newProgress(opts.IO.ErrOut)
	}
	runErr := service.Run(ctx, src, s)
	src.settle()
	s.bar.finish()
	skipped := &src.skipped
	sum := s.summary(skipped)
	sum.Interrupted = failure.KindOf(runErr) == failure.Interrupted
	if err := w.Close(sum, skipped); err != nil && runErr == nil {
		runErr = err
	}
	if sum.Interrupted {
		// Whatever the format, say how far the run got: a document
		// written on a file or a pipe must not pass for the whole.
		fmt.Fprintln(opts.IO.ErrOut, interruptedLine(&s.tally, src.total(time.Second)))
		s.tally.RaiseCode(failure.ExitInterrupted)
		return &failure.Reported{Code: s.tally.Code(true)}
	}
	return s.tally.Err(runErr, true)
}

// interruptedLine says how far an interrupted triage got, "N of M"
// indicators when the whole report could be counted (total < 0: not), as
// search's line does.
func interruptedLine(t *failure.Tally, total int) string {
	done := t.Total()
	count := plural(done, "indicator", "indicators")
	if total >= 0 {
		count = fmt.Sprintf("%d of %s", done, plural(total, "indicator", "indicators"))
	}
	// A report is one document, so there is no --skip to append to it as
	// search has: the way on is the same command again, and with the
	// cache on, the answers it already has are not asked again.
	return fmt.Sprintf("interrupted: %s looked up (%s); the report covers those only. To finish, run the same command again: with the cache on (--cache 24h), answers it already received are not asked again", count, t.Counts())
}

// warn says on stderr, whatever stderr is, what the report loses: an
// input in an encoding that is not read.
func (opts *Options) warn(msg string) {
	fmt.Fprintf(opts.IO.ErrOut, "tilookup: warning: %s\n", msg)
}

// newSkipper builds the skip rules from the flags and the config.
func newSkipper(opts *Options) (*triage.Skipper, error) {
	if opts.NoSkip {
		return nil, nil
	}
	return triage.ConfiguredSkipper(opts.Setting)
}

// reportTitle names the run for the report's heading.
func reportTitle(files []string) string {
	if len(files) == 0 || len(files) == 1 && files[0] == "-" {
		return "Triage of stdin"
	}
	return "Triage of " + strings.Join(files, ", ")
}

// sink takes the answers in input order and counts them.
type sink struct {
	w     writer
	skip  *triage.Skipper // to mark the values on CIDR warning lists
	bar   *progress
	tally failure.Tally
	sum   report.Summary
}

func (s *sink) Add(r lookup.Result) error {
	ind := indicatorOf(r)
	// The scan judged the value already; judging it again here is a few
	// lookups, where carrying the marks through the run would cost every
	// value a field.
	ind.Warninglists = s.skip.Judge(ind.Value, r.Item.Type).Warninglists
	s.tally.Add(r.Err, ind.Status() == report.Matched)
	s.count(ind)
	s.bar.add()
	return s.w.Add(ind)
}

func (s *sink) Flush() error { return s.w.Flush() }

func (s *sink) count(ind report.Indicator) {
	if s.sum.ByType == nil {
		s.sum.ByType = map[string]int{}
	}
	s.sum.Total++
	s.sum.ByType[ind.Type]++
	if ind.FromURL != "" {
		s.sum.URLHosts++
	}
	switch ind.Status() {
	case report.Matched:
		s.sum.Matched++
	case report.NoMatch:
		s.sum.NoMatch++
	case report.Unsupported:
		s.sum.Unsupported++
	case report.Failed:
		s.sum.Failed++
	}
}

// summary is the run's counts; ByType covers every indicator found, the
// skipped ones included, as the report's total does.
func (s *sink) summary(skipped *skipList) report.Summary {
	sum := s.sum
	if sum.ByType == nil {
		sum.ByType = map[string]int{}
	}
	skipped.Count(&sum)
	return sum
}
