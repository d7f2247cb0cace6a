// Package watch is `tilookup watch`: a list of values looked up again and
// compared with their last good answers, printing only what changed, with
// grep-like exit codes for cron; and `watch list`, `watch forget`.
package watch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmd/search"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/watch"
)

// Options are the parsed command line of one watch run and what it needs
// from its environment, as functions so that tests can replace them.
type Options struct {
	IO *iostreams.IOStreams
	// Lookups is how the values are looked up (the one chain, without
	// the answer cache: a watch run must ask the service).
	online.Lookups
	// Format is the -o setting.
	Format func() (output.Format, error)
	// Scope is the profile and the base URL, which pick the directory.
	Scope  func() (profile, baseURL string, err error)
	Getenv func(string) string
	Now    func() time.Time

	Name      string
	Files     []string
	NoRefang  bool
	Defang    bool
	DefangSet bool
	CSVRaw    bool
	TLP       string
	ToIDS     bool
	Every     time.Duration
}

// NewCmd is `tilookup watch`. runF replaces the run function in tests.
func NewCmd(f *online.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := newOptions(f)
	cmd := &cobra.Command{
		Use:   "watch --name NAME [FILE...]",
		Short: "Look a list up again and report only what changed since the last run",
		Long: `Watch looks every value of the FILEs (stdin when none, "-" too; the input
rules of search) up, compares each answer with the last good answer of that
value under NAME, and reports only the changes:

  new      matched now, not at the last answer (the first run of a NAME
           compares with nothing, so every matched value is new)
  gone     matched at the last answer, not now
  changed  matched both times, and a resource appeared or went, or its
           count or preview records changed

Each change lists the resources that differ with their count before and
after (null where the resource did not match). A value whose lookup fails is
reported as an error and keeps its last good answer for the next run.

The state is kept per profile and base URL under $XDG_STATE_HOME/tilookup/watch/
(~/.local/state/tilookup/watch/ when unset; the base URL without its user,
password, query and fragment, so no secret is kept and rotating one keeps the
lists), one file per NAME: per value
and resource, the count and a digest of the preview records, never the
answers (see tilookup watch list). It is replaced atomically at the end of a
run; an interrupted run (Ctrl-C, SIGTERM) keeps the values it finished and
the old state of the others. A run whose output cannot be written (a full
disk, a closed pipe) keeps the whole state as it was and fails (exit 2): the
next run reports those changes again. A value no longer in the input is
dropped from the list at the end of a complete run. Two runs of one NAME never overlap:
the second waits up to 30s, then fails (exit 3). A damaged or foreign state
file is an error, never silently started again: move it away, or
tilookup watch forget NAME.

Watch never reads the answer cache (--cache and the cache setting do not
apply): comparing with a stored answer would report no change at all. Use
-c and --rate to pace the service, as with search.

Output: a table, one line per change and resource, fitted to the terminal; -o json one array of
changes, -o ndjson one change per line: {"value", "type", "change",
"resources": [{"resource", "label", "before", "after"}], "checked_at",
"previous_checked_at"}, and for a failed value "change": "error" with
"error": {"kind", "message"}; -o csv one row per change and resource; -o md
Markdown for a mail or a ticket (indicators defanged unless --defang=false);
-o misp one MISP event of the new and changed values, each attribute's
comment saying what changed with the counts before and after (a gone or
failed value is no attribute; --tlp tags the event, --to-ids flags the
attributes).

--every DURATION runs again every DURATION (at least 1m) in one process,
until Ctrl-C; each run prints its own changes.

Exit status, for cron: 0 when something changed, 1 when nothing did; a
failed lookup wins with its code (2-6), 130 on Ctrl-C.`,
		Example: `  tilookup extract --skip-noise report.txt | tilookup watch --name case-42
  tilookup extract --skip-noise report.txt | tilookup watch --name ours -o md
  tilookup extract --skip-noise report.txt | tilookup watch --name mine -o ndjson | jq -c 'select(.change=="new")'
  tilookup watch list`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			opts.DefangSet = cmd.Flags().Changed("defang")
			if opts.Name == "" {
				// Without --name, watch is the parent of list and
				// forget: a word after it is a mistyped subcommand,
				// and nothing at all asks for the help.
				// A cron line that forgot --name must not pass for a
				// run that found changes (help, exit 0): values piped
				// in, or a flag of a run, ask for one.
				if len(args) == 0 && opts.IO.IsStdinTTY() && cmd.Flags().NFlag() == 0 {
					return cmd.Help()
				}
				if len(args) == 0 {
					return cmdutil.UsageError("watch needs --name NAME: the list the values are compared with (tilookup watch list names them)")
				}
				return cmdutil.ArgErrorf("unknown command %q for %q (to watch a list: --name NAME FILE...)", args[0], cmd.CommandPath())
			}
			if err := watch.CheckName(opts.Name); err != nil {
				return cmdutil.UsageError("%v", err)
			}
			if err := cmdutil.CheckPace(opts.Concurrency, opts.Rate); err != nil {
				return err
			}
			if opts.Every != 0 && opts.Every < time.Minute {
				return cmdutil.UsageError("--every must be at least 1m")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Name, "name", "", "the watch list's `NAME` (letters, digits, . _ -)")
	cmdutil.AddPaceFlags(cmd, &opts.Concurrency, &opts.Rate, "requests in flight at once")
	fl.BoolVar(&opts.NoRefang, "no-refang", false, "search values exactly as given")
	fl.BoolVar(&opts.Defang, "defang", false, "defang indicators (always in md unless =false)")
	fl.BoolVar(&opts.CSVRaw, "csv-raw", false, "CSV: keep cells a spreadsheet would run")
	fl.StringVar(&opts.TLP, "tlp", "", "-o misp: tag the event TLP:`LEVEL` (e.g. amber)")
	_ = cmd.RegisterFlagCompletionFunc("tlp", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return export.TLPLevels, cobra.ShellCompDirectiveNoFileComp
	})
	fl.BoolVar(&opts.ToIDS, "to-ids", false, "-o misp: set the attributes' to_ids flag")
	fl.BoolVar(&opts.Sandbox, "sandbox", false, "use the built-in demo server (no account)")
	fl.DurationVar(&opts.Every, "every", 0, "run again every `DURATION` (>= 1m) until Ctrl-C")
	cmdutil.AddNetworkFlags(cmd)
	cmd.AddCommand(newListCmd(f), newForgetCmd(f))
	return cmd
}

func newOptions(f *online.Factory) *Options {
	lookups := online.NewLookups(f)
	lookups.Cache = nil
	return &Options{
		IO:      f.IO,
		Lookups: lookups,
		Format:  func() (output.Format, error) { return cmdutil.Format(f.Factory, "watch") },
		Scope:   func() (string, string, error) { return scope(f) },
		Getenv:  os.Getenv,
		Now:     time.Now,
	}
}

// scope is the profile and base URL whose lists are used.
func scope(f *online.Factory) (string, string, error) {
	s, err := f.Settings()
	if err != nil {
		return "", "", err
	}
	return s.Profile, s.BaseURL, nil
}

// store is the directory of this profile and base URL, or the
// sandbox's (watch.StoreFor).
func store(opts *Options) (watch.Store, string, string, error) {
	return watch.StoreFor(opts.Getenv, opts.Sandbox, opts.Scope)
}

func run(ctx context.Context, opts *Options) error {
	if len(opts.Files) == 0 && opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("give a FILE, or pipe values on stdin")
	}
	if opts.Every == 0 {
		return runOnce(ctx, opts)
	}
	for {
		err := runOnce(ctx, opts)
		if ctx.Err() != nil || failure.KindOf(err) == failure.Interrupted {
			return err
		}
		// A run's changes and failed values are on screen already (exit
		// 0, 1 or a lookup's code): the next run comes. Anything else
		// (a bad flag, a damaged state, a lock held too long) would fail
		// the same way every time.
		if _, reported := err.(*failure.Reported); err != nil && !reported {
			return err
		}
		t := time.NewTimer(opts.Every)
		select {
		case <-ctx.Done():
			t.Stop()
			return failure.New(failure.Interrupted, "interrupted")
		case <-t.C:
		}
	}
}

// tuneGC lets the collector run as rarely as a streaming search's
// (cmdutil.BulkGC), with a soft memory limit, unless GOGC and GOMEMLIMIT
// say otherwise. A watch run keeps its state (some 6 bytes of heap per
// byte of the state file) besides the stream: at Go's default the
// collector marked that heap every few MB of answers, and a run took 1.3x
// search's time. Without a limit, GOGC=400 would let the heap grow to five
// times the state (120 MB at 100,000 values); the limit keeps it near
// 64 MiB + 4x the file, and never below 12x, so that a large list's live
// heap is never over the limit (where the collector would run nonstop).
func tuneGC(getenv func(string) string, stateSize int64) {
	cmdutil.BulkGC(getenv)
	if getenv("GOMEMLIMIT") == "" && getenv("GOGC") == "" {
		debug.SetMemoryLimit(max(64<<20+4*stateSize, 12*stateSize))
	}
}

// runOnce is one run: lock NAME, read its state, look every value up,
// print the changes as they come, and write the new state.
func runOnce(ctx context.Context, opts *Options) error {
	fm, err := opts.Format()
	if err != nil {
		return err
	}
	if err := export.CheckFlags("watch", fm, opts.TLP, opts.ToIDS); err != nil {
		return err
	}
	if opts.Every != 0 && len(opts.Files) == 0 {
		return cmdutil.UsageError("--every reads its FILEs again at each run: give a FILE, not stdin")
	}
	src, closeInputs, err := search.Values(opts.IO.In, opts.Files, !opts.NoRefang)
	if err != nil {
		return err
	}
	defer closeInputs()
	// Decoded answers: the comparison needs each resource's count and
	// preview records.
	service, err := opts.Start(online.Chain{Raw: true, Wrap: watch.DecodeMatches})
	if err != nil {
		return err
	}
	defer service.Close()
	st, profile, base, err := store(opts)
	if err != nil {
		return err
	}
	state, release, err := st.Open(opts.Name, profile, base)
	if err != nil {
		return err
	}
	defer release()
	var size int64
	if fi, err := os.Stat(st.Path(opts.Name)); err == nil {
		size = fi.Size()
	}
	tuneGC(opts.Getenv, size)

	stdout := &failedWrites{w: opts.IO.Out}
	out := bufio.NewWriterSize(stdout, 64<<10)
	// A document for people (Markdown) is defanged unless asked otherwise.
	defang := opts.Defang || cmdutil.IsDocument(fm) && !opts.DefangSet
	width := 0
	if opts.IO.IsStdoutTTY() {
		width = opts.IO.TerminalWidth()
	}
	w, err := newWriter(fm, out, opts.Name, opts.IO.IsStdoutTTY(), opts.CSVRaw, width, export.Options{TLP: opts.TLP, ToIDS: opts.ToIDS, Defang: defang})
	if err != nil {
		return err
	}
	now := opts.Now()
	s := watch.NewCheck(state, w, now)
	runErr := service.Run(ctx, src, s)
	complete := runErr == nil
	if err := w.Close(now, !complete); err != nil && runErr == nil {
		runErr = err
	}
	if err := out.Flush(); err != nil && runErr == nil {
		runErr = failure.Wrap(failure.IO, err, "cannot write the output: "+err.Error())
	}
	if stdout.err != nil {
		// Some changes may never have reached the reader (a full disk, a
		// closed pipe): the state stays as it was, whole, so that the
		// next run reports every one of them again rather than none.
		runErr = failure.Wrap(failure.IO, stdout.err, "cannot write the output: "+stdout.err.Error()+
			"; the watch state is unchanged, the next run reports these changes again")
	} else {
		s.Finish(complete)
		if err := st.Save(state); err != nil {
			// The changes are printed but not kept: the next run reports them
			// again, which is better than losing them.
			if runErr == nil {
				runErr = err
			}
		}
	}
	// A person at a terminal always gets the closing line: a run that
	// found no change prints no change, and silence would look like a
	// hang or a failure. Cron (no terminal) hears only of failures.
	// A run whose output failed says so in its error's line alone.
	if stdout.err == nil && (s.Tally.Failed > 0 || runErr != nil && failure.KindOf(runErr) == failure.Interrupted || opts.IO.IsStderrTTY()) {
		kept := ""
		if s.Tally.Failed > 0 {
			kept = " (their last good answers are kept)"
		}
		fmt.Fprintf(opts.IO.ErrOut, "watch %s: %d values, %d changed, %d failed%s\n",
			sanitize.String(opts.Name), s.Tally.Total(), s.Tally.Matched, s.Tally.Failed, kept)
	}
	return s.Tally.Err(runErr, true)
}

// failedWrites remembers the first failed write to the output. The
// writers report a failure through whichever call meets it (a change's
// Add, the last Flush, Close), or not at all once lookup.Run has stopped;
// this is the one place that sees every byte, so that no run whose output
// failed can pass for one whose changes were all written.
type failedWrites struct {
	w   io.Writer
	err error
}

func (f *failedWrites) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}
