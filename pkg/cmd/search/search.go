// Package search is `tilookup search`: one exact value, a list of values, or
// a stream of thousands, looked up concurrently and printed in input order.
package search

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/browser"
	browsecmd "github.com/tilookup/tilookup/pkg/cmd/browse"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Options are the parsed command line of one search and what it needs
// from its environment, as functions so that tests can replace them.
type Options struct {
	IO *iostreams.IOStreams
	// Lookups is how the values are looked up (the one chain).
	online.Lookups
	// Output resolves the output format and terminal facts.
	Output func(jq string) (output.Options, error)
	// BulkGC tunes the collector for a streaming bulk run (nil: leave it).
	BulkGC func()
	// StartPager sends stdout through the pager when it is a terminal.
	StartPager func() (stop func())
	// OpenWeb opens the detail page of a result (resource "" = the first).
	OpenWeb func(resp *api.SearchResponse, resource string) error
	// Wait shows a spinner while one value is looked up at a terminal
	// (online.Factory.Waiting); nil = none.
	Wait func(what string) *online.Waiting

	Args       []string
	Files      []string
	NoRefang   bool
	ExitStatus bool
	JQ         string
	Preview    bool
	Defang     bool
	DefangSet  bool // --defang was given: Markdown defangs unless --defang=false
	CSVRaw     bool
	TLP        string
	ToIDS      bool
	Web        bool
	Resource   string
	NoPager    bool
	Skip       int

	// Interactive (-i) browses the JSON document (pkg/cmd/browse).
	Interactive bool
}

// NewCmd is `tilookup search`. runF replaces the run function in tests.
func NewCmd(f *online.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:      f.IO,
		Lookups: online.NewLookups(f),
		Output:  func(jq string) (output.Options, error) { return cmdutil.OutputOptions(f.Factory, "search", jq) },
		BulkGC:  func() { cmdutil.BulkGC(os.Getenv) },
		OpenWeb: func(resp *api.SearchResponse, resource string) error {
			return openWeb(f.Factory, browser.New(f.IO.Out), resp, resource)
		},
		Wait: f.Waiting,
	}
	opts.StartPager = func() func() { return cmdutil.StartPager(f.Factory, opts.NoPager) }
	cmd := &cobra.Command{
		Use:   "search [VALUE...]",
		Short: "Find exact values (hash, IP, domain, URL, CVE) across every resource",
		Long: `Search finds each exact value across every resource of the service and shows the
detected type, the search strategy, the reason a value is unsupported, and the
matches of each resource.

Values come from the arguments, from -f FILE (repeatable), or from stdin when
no VALUE is given and stdin is not a terminal (or with "-"), one per line;
blank lines and lines starting with # are skipped. A line starting with { or [
is the JSON that extract and detect write, so their output in any format can
be piped in. Defanged values such as hxxps://evil[.]example or 198.51.100[.]7
are refanged unless --no-refang.

Several values print one summary row each in table mode, a JSON array with
-o json, one line each with -o ndjson, always in input order. A value that
fails becomes an error record, so no input is lost.

-o md, -o stix and -o misp write one document for the whole run, once every
value has been looked up (nothing is printed before): Markdown to paste into
a ticket, with the indicators defanged unless --defang=false, a STIX 2.1
bundle for a threat-intelligence platform, or a MISP event (unpublished,
your organisation only) holding the matched values, with to_ids set only
with --to-ids. --tlp marks the bundle or tags the event.

Ctrl-C (or SIGTERM, SIGHUP) ends a run with its records so far, all in
input order, and a line such as "interrupted: 624 of 2000 values done";
the same command with --skip 624 and its output appended (>>, never the
same >, which would empty the file first) goes on from there without asking
again for what was answered.

With -e, the exit status is like grep's: 0 when at least one value matched,
1 when none did; an error (2-6, 130) wins over both.

With the cache on (--cache 24h, TILOOKUP_CACHE, or the cache setting), a
value answered before is not asked again: tables mark it "cached 3h ago",
JSON is the server's bytes as before. Answers without a match are kept at
most an hour, errors never. --refresh asks again; see tilookup cache.`,
		Example: `  tilookup search 44d88612fea8a8f36de82e1278abb02f
  tilookup search --sandbox 'hxxps://verify-check[.]example/login'
  tilookup search -o json CVE-2021-44228 | jq '.results[].label'
  tilookup extract --skip-noise report.txt | tilookup search -o ndjson -c 8 --rate 20
  tilookup extract --skip-noise report.txt | tilookup search --cache 24h
  tilookup extract --skip-noise report.txt | tilookup search -o md >ticket.md
  tilookup extract --skip-noise report.txt | tilookup search -o ndjson --skip 2 >>out.ndjson`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Args = args
			opts.DefangSet = cmd.Flags().Changed("defang")
			if err := cmdutil.CheckPace(opts.Concurrency, opts.Rate); err != nil {
				return err
			}
			if opts.Limit < 0 {
				return cmdutil.UsageError("--limit must be a positive number")
			}
			if opts.Skip < 0 {
				return cmdutil.UsageError("--skip must be 0 or more")
			}
			if opts.Resource != "" && !opts.Web {
				return cmdutil.UsageError("--resource goes with --web")
			}
			do := run
			if runF != nil {
				do = runF
			}
			return browsecmd.Interactive(cmd, f, opts.Interactive, strings.Join(args, ", "), func() error { return do(cmd.Context(), opts) })
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&opts.Files, "file", "f", nil, "read values from `FILE` (repeatable; - is stdin)")
	fl.IntVar(&opts.Limit, "limit", 0, "ask for at most `N` results per value")
	cmdutil.AddPaceFlags(cmd, &opts.Concurrency, &opts.Rate, "requests in flight at once")
	fl.IntVar(&opts.Skip, "skip", 0, "skip the first `N` values (to go on after Ctrl-C)")
	fl.BoolVar(&opts.NoRefang, "no-refang", false, "search values exactly as given")
	fl.BoolVarP(&opts.ExitStatus, "exit-status", "e", false, "exit 0 if any value matched, 1 if none")
	fl.StringVar(&opts.JQ, "jq", "", "filter the JSON output with a jq `expression`")
	fl.BoolVar(&opts.Preview, "preview", false, "table mode: show each resource's preview records")
	fl.BoolVar(&opts.Defang, "defang", false, "defang indicators (always in md unless =false)")
	fl.BoolVar(&opts.CSVRaw, "csv-raw", false, "CSV: keep cells a spreadsheet would run")
	fl.BoolVar(&opts.Sandbox, "sandbox", false, "use the built-in demo server (no account)")
	fl.BoolVar(&opts.Web, "web", false, "open the first result's detail page in the browser")
	fl.StringVar(&opts.Resource, "resource", "", "with --web: open this resource's page (`NAME`)")
	fl.BoolVar(&opts.NoPager, "no-pager", false, "do not send long output through the pager")
	cmdutil.AddCacheFlags(cmd, &opts.Refresh)
	fl.StringVar(&opts.TLP, "tlp", "", "TLP `level`: "+strings.Join(export.TLPLevels, "|"))
	fl.BoolVar(&opts.ToIDS, "to-ids", false, "-o misp: set the attributes' to_ids flag")
	_ = cmd.RegisterFlagCompletionFunc("tlp", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return export.TLPLevels, cobra.ShellCompDirectiveNoFileComp
	})
	browsecmd.AddInteractiveFlag(cmd, &opts.Interactive)
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	in, err := plan(opts)
	if err != nil {
		return err
	}
	defer in.close()
	args, multi := in.args, in.multi
	// A single bad value fails before any config, token or network work;
	// it is prepared once, here, and looked up as it is.
	var single lookup.Item
	if !multi {
		if single = prepare(input{text: args[0]}, !opts.NoRefang); single.Err != nil {
			return single.Err
		}
	} else if opts.Web {
		return cmdutil.UsageError("--web opens the page of one value; give exactly one")
	}
	if opts.Web {
		return web(ctx, opts, single)
	}
	outOpts, err := opts.Output(opts.JQ)
	if err != nil {
		return err
	}
	if err := export.CheckFlags("search", outOpts.Format, opts.TLP, opts.ToIDS); err != nil {
		return err
	}
	outOpts.Preview = opts.Preview
	outOpts.CSVRaw = opts.CSVRaw
	if opts.Defang {
		outOpts.Defang = func(s string) string { return ioc.Defang(s, ioc.Detect(s)) }
	}
	// json, ndjson and --jq print the server's bytes: fields are not needed.
	raw := outOpts.Format == output.JSON || outOpts.Format == output.NDJSON || outOpts.JQ != ""
	service, err := opts.Start(online.Chain{Raw: raw})
	if err != nil {
		return err
	}
	defer service.Close()
	if !multi {
		// One value shows nothing until its answer: a spinner says the
		// wait is on (a bulk run has its progress bar or its rows).
		service.Searcher = online.WaitingSearcher(service.Searcher, opts.Wait)
	}
	src := newSource(opts, in, single)
	total := func() int {
		if ss, ok := src.(*source); ok {
			// Only regular files can be read to their end at once.
			return ss.total(inputSize(in, opts.IO.In) >= 0)
		}
		return -1
	}
	if cmdutil.IsDocument(outOpts.Format) {
		var bar *progress
		if multi && opts.IO.ProgressAllowed(true) {
			// Nothing shows on stdout until the end: the bar shows
			// the run's progress even on a shared terminal.
			bar = newProgress(opts.IO.ErrOut, inputSize(in, opts.IO.In))
		}
		return runDocument(ctx, opts, outOpts.Format, src, service, multi, bar, total)
	}

	var w io.Writer = opts.IO.Out
	if !multi && opts.StartPager != nil {
		// One value's output is a page to read; a stream is not paged, as
		// a pager shows little of a slow one until its screen fills. The
		// pager starts with the first byte of output, so that an error or
		// a Ctrl-C during the lookup never leaves an empty pager behind.
		pw := &pagedWriter{ios: opts.IO, start: opts.StartPager}
		defer pw.stop()
		w = pw
	}
	out := bufio.NewWriterSize(w, 64<<10)
	outOpts.Out = out
	printer, err := output.NewSearchPrinter(outOpts, multi)
	if err != nil {
		return failure.New(failure.Usage, "%v", err)
	}
	s := &sink{io: opts.IO, printer: printer, multi: multi, skipped: opts.Skip, total: total}
	if multi && opts.BulkGC != nil {
		opts.BulkGC()
	}
	if multi && opts.IO.ProgressAllowed(false) {
		// The bar goes to a person watching stderr while the records go
		// to a file; on a shared terminal the rows show progress.
		s.bar = newProgress(opts.IO.ErrOut, inputSize(in, opts.IO.In))
	}

	runErr := service.Run(ctx, src, s)
	s.bar.finish()
	// The records first, then any line about them on stderr.
	if err := printer.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if errors.Is(runErr, iostreams.ErrClosedPager) {
		runErr = nil // the reader quit the pager: they have seen enough
	}
	if !multi {
		if runErr != nil {
			return runErr
		}
		return s.tally.Err(nil, opts.ExitStatus)
	}
	return s.finish(runErr, opts.ExitStatus)
}

// finish prints the closing line of a multi-value run and returns its
// error. An interrupted run's line says all there is to say (how far it
// got, how to go on): the interrupt is not printed again.
func (s *sink) finish(runErr error, exitStatus bool) error {
	interrupted := failure.KindOf(runErr) == failure.Interrupted
	s.report(interrupted)
	if interrupted {
		s.tally.RaiseCode(failure.ExitInterrupted)
		return &failure.Reported{Code: s.tally.Code(exitStatus)}
	}
	return s.tally.Err(runErr, exitStatus)
}

// web looks one value up and opens its detail page instead of printing.
func web(ctx context.Context, opts *Options, it lookup.Item) error {
	one := opts.Lookups
	one.Concurrency, one.Rate = 1, 0
	service, err := one.Start(online.Chain{})
	if err != nil {
		return err
	}
	defer service.Close()
	resp, err := online.WaitingSearcher(service.Searcher, opts.Wait).Search(ctx, it.Value)
	if err != nil {
		return err
	}
	if err := opts.OpenWeb(resp, opts.Resource); err != nil || !opts.Sandbox || !opts.IO.IsStderrTTY() {
		return err
	}
	// The page lives on the sandbox, which ends with this process: keep it
	// up for the person reading it.
	fmt.Fprintln(opts.IO.ErrOut, "The built-in sandbox serves this page until you press Ctrl-C.")
	<-ctx.Done()
	return nil
}

// inputPlan is where a run's values come from: the arguments ("-" is
// stdin) and the -f files, each opened once.
type inputPlan struct {
	args  []string
	names []string   // the -f files as given
	files []*os.File // in the order of names; nil for "-" (stdin) and for a file opened when its turn comes
	multi bool       // a stream of values rather than one argument

	// The files opened when their turn came. The reader runs on a
	// goroutine of its own, which may still be opening one when the run
	// ends (Ctrl-C): close closes them too, and any opened later.
	mu     sync.Mutex
	late   []*os.File
	closed bool
}

// plan opens the -f files that are regular files before any request, so
// that an unreadable one fails at once rather than after the values
// before it were looked up. A named pipe (or a device) is only checked to
// exist, and opened when its turn comes: opening a pipe waits for its
// writer, who may still be writing an earlier one. Nothing is opened
// twice: a pipe opened to check it and closed again would lose what its
// writer sent in between.
func plan(opts *Options) (*inputPlan, error) {
	p := &inputPlan{args: opts.Args, names: opts.Files}
	if len(p.args) == 0 && len(p.names) == 0 {
		if opts.IO.IsStdinTTY() {
			return nil, cmdutil.UsageError("give a VALUE, -f FILE, or pipe values on stdin")
		}
		p.args = []string{"-"}
	}
	p.multi = len(p.names) > 0 || len(p.args) > 1 || p.args[0] == "-"
	for _, name := range p.names {
		f, err := openNow(name)
		if err != nil {
			p.close()
			return nil, err
		}
		p.files = append(p.files, f)
	}
	return p, nil
}

// openNow opens a regular file or a directory (which OpenInput refuses);
// it returns nil for stdin and for a pipe or a device, which wait.
func openNow(name string) (*os.File, error) {
	if name == "-" {
		return nil, nil
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, cmdutil.CannotRead(name, err)
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return nil, nil
	}
	return cmdutil.OpenInput(name)
}

// openLate opens a file whose turn has come, and keeps it for close. The
// lock is not held while opening: a pipe waits there for its writer.
func (p *inputPlan) openLate(name string) (*os.File, error) {
	f, err := cmdutil.OpenInput(name)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		f.Close()
		return nil, errRunOver
	}
	p.late = append(p.late, f)
	return f, nil
}

var errRunOver = errors.New("the run is over")

// close closes every file of the run (those finished already too: a
// second Close does nothing).
func (p *inputPlan) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, files := range [][]*os.File{p.files, p.late} {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}
}

// newSource is where the values come from: the one value already
// prepared, or the arguments, files and stdin, read as they are needed.
func newSource(opts *Options, in *inputPlan, single lookup.Item) lookup.Source {
	if !in.multi {
		return &one{item: single}
	}
	return &source{in: newInputs(in, opts.IO.In), refang: !opts.NoRefang, skip: opts.Skip}
}

// one is the Source of a single value given as the only argument.
type one struct {
	item lookup.Item
	done bool
}

func (o *one) Next() (lookup.Item, bool, error) {
	if o.done {
		return lookup.Item{}, false, nil
	}
	o.done = true
	return o.item, true, nil
}

// sink takes the results in order: it counts them, prints them, and keeps
// the progress bar moving.
type sink struct {
	io      *iostreams.IOStreams
	printer output.SearchPrinter
	multi   bool
	bar     *progress
	tally   failure.Tally
	cached  int // answers that came from the on-disk cache
	why     whyFailed
	// skipped is --skip: the values before these records, answered by
	// an earlier run; total counts the input's values (-1: unknown), for
	// the "N of M" of an interrupted run.
	skipped int
	total   func() int
}

// count takes a result into the closing line and the progress bar.
func (s *sink) count(r lookup.Result) {
	// Counted as the documents count (report.Indicator.Status), so that
	// the closing line and -o md agree.
	if (report.Indicator{Resp: r.Resp, Err: r.Err}).Status() == report.Unsupported {
		s.tally.AddUnsupported()
	} else {
		s.tally.Add(r.Err, r.Resp.ResultCount() > 0)
	}
	s.why.add(r.Err)
	if r.Resp != nil && !r.Resp.CachedAt.IsZero() {
		s.cached++
	}
	s.bar.add(r.Item.Offset)
}

func (s *sink) Add(r lookup.Result) error {
	s.count(r)
	rec := output.Record{Input: r.Item.Input, Query: r.Item.Value, Resp: r.Resp, Err: r.Err}
	if !s.multi {
		if r.Err != nil {
			return r.Err
		}
		s.noticeTrimmed(rec)
	}
	err := s.printer.Add(rec)
	var recErr *output.RecordError
	if s.multi && errors.As(err, &recErr) {
		// One value's output failed (--jq on an error record, say): say
		// so and go on, so that no other value is lost.
		fmt.Fprintf(s.io.ErrOut, "tilookup: %s: %s\n", sanitize.String(rec.Query), recErr.Error())
		s.tally.Raise(recErr)
		return nil
	}
	return err
}

func (s *sink) Flush() error { return s.printer.Flush() }

// noticeTrimmed tells a person at a terminal which value was really
// searched, when refanging or trimming changed what was typed.
func (s *sink) noticeTrimmed(rec output.Record) {
	if s.io.IsStderrTTY() && rec.Query != strings.TrimSpace(rec.Input) {
		fmt.Fprintf(s.io.ErrOut, "Searching %s (from %s)\n", sanitize.String(rec.Query), sanitize.String(rec.Input))
	}
}

// report prints the closing line of a multi-value run: always when
// something failed (an error report belongs on stderr), otherwise only to
// a person at a terminal.
func (s *sink) report(interrupted bool) {
	t := &s.tally
	if t.Failed == 0 && !interrupted && !s.io.IsStderrTTY() {
		return
	}
	if interrupted && s.io.IsStderrTTY() {
		// The terminal echoed ^C where the cursor was: start a line of
		// our own.
		fmt.Fprintln(s.io.ErrOut)
	}
	fromCache := ""
	if s.cached > 0 {
		fromCache = fmt.Sprintf(" (%d from the cache)", s.cached)
	}
	if interrupted {
		fmt.Fprintln(s.io.ErrOut, s.interruptedLine(fromCache))
		return
	}
	fmt.Fprintf(s.io.ErrOut, "%s: %s%s%s\n", values(t.Total()), t.Counts(), fromCache, s.why.String())
}

// resumeHint says how to go on after the first done values: run again,
// skipping them, and append the output. The same command's ">" would
// truncate what was written before the new run starts.
func resumeHint(done int) string {
	return fmt.Sprintf("run the same command with --skip %d and its output appended (>>, not >)", done)
}

// values is "1 value" or "3 values".
func values(n int) string {
	if n == 1 {
		return "1 value"
	}
	return fmt.Sprintf("%d values", n)
}

// interruptedLine says how far an interrupted run got, "N of M" values
// in input order (every record before the N-th is written), and how to go
// on without asking again for what was answered: --skip N skips the
// values that have their records.
func (s *sink) interruptedLine(fromCache string) string {
	t := &s.tally
	done := s.skipped + t.Total()
	count := values(done)
	if s.total != nil {
		if m := s.total(); m >= 0 {
			count = fmt.Sprintf("%d of %s", done, values(m))
		}
	}
	why := ""
	if t.Failed > 0 {
		why = s.why.String()
	}
	return fmt.Sprintf("interrupted: %s done (%s%s%s); to go on, %s", count, t.Counts(), fromCache, why, resumeHint(done))
}

// whyFailed keeps why values failed, for the closing line: a table has no
// room for the reason (a narrow STATUS column shows "error: search: …"),
// and a person should not have to run again with -o json to learn that
// the token was refused. The contract is one line on stderr, so the line
// names the most common reason.
//
// Failures are told apart by kind and HTTP status, not by their words:
// values that each fail in their own words (a 400 or a bad line naming the
// value) are one reason, shown by its first message.
type whyFailed struct {
	reasons []reason
	n       int // failures counted
	// stopped: the run stopped sending (a refused token, a service that
	// cannot be reached); that is the news, however many values it cost.
	stopped string
}

type reason struct {
	kind   failure.Kind
	status int
	msg    string // the first failure's
	n      int
}

func (w *whyFailed) add(err error) {
	kind := failure.KindOf(err)
	if err == nil || kind == failure.Interrupted {
		return
	}
	w.n++
	if line, ok := lookup.NothingMoreSent(err); ok && w.stopped == "" {
		w.stopped = sanitize.Line(line)
	}
	status := 0
	var withStatus interface{ HTTPStatus() int }
	if errors.As(err, &withStatus) {
		status = withStatus.HTTPStatus()
	}
	for i := range w.reasons {
		if w.reasons[i].kind == kind && w.reasons[i].status == status {
			w.reasons[i].n++
			return
		}
	}
	w.reasons = append(w.reasons, reason{kind: kind, status: status, msg: sanitize.Line(err.Error()), n: 1})
}

// String is the end of the closing line: ": REASON" when every failure had
// the same, ", N of them: REASON" for the most common one otherwise.
func (w *whyFailed) String() string {
	if len(w.reasons) == 0 {
		return ""
	}
	if w.stopped != "" {
		return ": " + w.stopped
	}
	top := w.reasons[0]
	for _, r := range w.reasons[1:] {
		if r.n > top.n {
			top = r
		}
	}
	if top.n == w.n {
		return ": " + top.msg
	}
	return fmt.Sprintf(", %d of them: %s", top.n, top.msg)
}

// pagedWriter starts the pager at its first write and writes through it.
type pagedWriter struct {
	ios   *iostreams.IOStreams
	start func() (stop func())
	done  func()
}

func (p *pagedWriter) Write(b []byte) (int, error) {
	if p.done == nil {
		p.done = p.start()
	}
	return p.ios.Out.Write(b)
}

// stop waits for the reader to quit the pager, if it was started.
func (p *pagedWriter) stop() {
	if p.done != nil {
		p.done()
	}
}

// openWeb is `search --web`: it opens the page of the result for resource
// (the first result with a detail_url when resource is "") with b, e.g.
// browser.New(f.IO.Out), which prints the URL instead when no browser can
// be started. On a terminal, stderr says which page is being opened.
func openWeb(f *cmdutil.Factory, b *browser.Browser, resp *api.SearchResponse, resource string) error {
	u, err := output.WebURL(resp, resource)
	if err != nil {
		return err
	}
	opened, err := b.Open(u)
	if err != nil {
		return failure.Wrap(failure.IO, err, "cannot open "+sanitize.String(u)+": "+err.Error())
	}
	if opened && f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Opening %s in your browser.\n", sanitize.String(u))
	}
	return nil
}
