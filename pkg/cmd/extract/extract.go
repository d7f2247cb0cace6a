// Package extract is `tilookup extract`: every indicator in free text,
// offline, so that `tilookup extract --skip-noise report.txt | tilookup
// search` looks them all up, the noise triage skips left out.
package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/triage"
)

// Options is what extract needs to run.
type Options struct {
	IO *iostreams.IOStreams
	// Format resolves the output format (flag, environment, config file).
	Format func() (output.Format, error)

	Files  []string
	Types  string // the --types list, "" for all
	Defang bool
	Input  string // --input: auto, text or html (how the input is read)
	// Warn says on stderr what an input loses (an encoding not read).
	Warn func(string)

	// SkipNoise leaves out what triage would skip (--skip-noise).
	SkipNoise bool
	// Setting reads a config key (allowlist, warninglists) through every
	// layer: flag, environment, profile, file.
	Setting func(key string) (string, error)
}

// NewCmd is `tilookup extract`. runF replaces the run in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Format: func() (output.Format, error) { return cmdutil.Format(f, "extract") }, Setting: f.Get}
	cmd := &cobra.Command{
		Use:   "extract [FILE...]",
		Short: "Pull every indicator out of free text (offline)",
		Long: `Extract reads reports, e-mails or notes (the FILEs, or stdin when none) and
prints every indicator found, refanged and normalised, de-duplicated, in order
of first appearance. Table output is one value per line, so it pipes into
tilookup search. File names such as invoice.pdf and version numbers such as
"version 1.2.3.4" are not taken for domains or addresses.

HTML (by its name, or by its first bytes; --input html|text to say so) is
read as triage reads it: the body's text and links, never the head (<link>,
<meta>, the title), scripts, styles, or the page's own <nav>, <header> and
<footer> (an article's header and footer are read). A UTF-16 or UTF-32 file
with a byte order mark is decoded; a file in an encoding that is not read is
named on stderr. A binary file (an executable, an archive) is refused.

--types takes md5, sha1, sha256, sha512, ipv4, ipv6, domain, url, cve, email
and cidr (an address block such as 203.0.113.0/24), and the groups hash (the
four digests), ip (ipv4, ipv6) and all.

--skip-noise leaves out what triage would skip, by the same rules: private,
loopback, link-local, CGNAT, multicast and reserved addresses, address
blocks, special-use and private-use names (.local, .localhost, .internal,
home.arpa, .alt, .lan, .corp, .home, .mail) with the e-mail addresses and
URLs at them, the values of --allowlist FILE and of the MISP warning lists
under --warninglists DIR (or the config's allowlist and warninglists), and
a URL without its scheme after the same URL with one (triage looks up the
one with its scheme; extract holds nothing back, so one that comes first
stays). So tilookup extract --skip-noise report.txt | tilookup search sends only what
triage would send, and never an internal name. Standard output holds the
kept values only; when standard error is a terminal, a count of what was
left out, by reason, is written there at the end (nothing when it is not,
so that logs and scripts stay quiet).`,
		Example: `  tilookup extract --skip-noise report.txt | tilookup search
  pbpaste | tilookup extract --types ip,domain
  tilookup extract -o json mail.eml | jq -r '.[] | select(.type=="url") | .value'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IO = f.IO
			opts.Warn = func(msg string) { fmt.Fprintf(f.IO.ErrOut, "tilookup: warning: %s\n", msg) }
			opts.Files = args
			for _, name := range []string{"allowlist", "warninglists"} {
				if cmd.Flags().Changed(name) && !opts.SkipNoise {
					return cmdutil.UsageError("--%s goes with --skip-noise", name)
				}
			}
			_, ok := triage.ParseFormat(opts.Input)
			if err := cmdutil.CheckInput(cmd, f.IO.ErrOut, opts.Input, ok, triage.Formats); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Types, "types", "", "only these comma-separated `types`: ipv4,domain,...")
	cmd.Flags().BoolVar(&opts.Defang, "defang", false, "defang values in table and CSV output, for tickets")
	cmdutil.AddInputFlag(cmd, &opts.Input, triage.Formats, true)
	cmd.Flags().BoolVar(&opts.SkipNoise, "skip-noise", false, "leave out what triage would skip (noise, lists)")
	cmd.Flags().String("allowlist", "", "--skip-noise: also skip the allow-list `FILE`")
	cmd.Flags().String("warninglists", "", "--skip-noise: also skip MISP warning lists under `DIR`")
	_ = cmd.MarkFlagDirname("warninglists")
	_ = cmd.RegisterFlagCompletionFunc("types", completeTypes)
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	var types []ioc.Type
	if opts.Types != "" {
		var err error
		if types, err = ioc.ParseTypes(opts.Types); err != nil {
			return err
		}
	}
	format, err := opts.Format()
	if err != nil {
		return err
	}
	if len(opts.Files) == 0 && opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("give a FILE, or pipe text on stdin")
	}
	var skipper *triage.Skipper
	if opts.SkipNoise {
		if skipper, err = triage.ConfiguredSkipper(opts.Setting); err != nil {
			return err
		}
	}
	r, closeAll, err := open(opts)
	if err != nil {
		return err
	}
	defer closeAll()
	if readsPipe(opts) {
		r = interruptible(ctx, r)
	}
	cmdutil.ExtractGC(os.Getenv)
	out := newDelayedWriter(opts.IO.Out)
	lo := cmdutil.ListOptions(opts.IO, format)
	lo.Out = out
	w := cmdutil.NewListWriter(lo, []string{"value", "type"})
	table := format == output.Table
	jsonOut := format == output.JSON || format == output.NDJSON
	var left leftOut
	var cells [2]string // reused: one value is written before the next comes
	emit := func(ind ioc.Indicator) error {
		if jsonOut {
			return w.Write(struct {
				Value string `json:"value"`
				Type  string `json:"type"`
			}{ind.Value, string(ind.Type)}, nil)
		}
		v := ind.Value
		if opts.Defang {
			v = ioc.Defang(v, ind.Type)
		}
		if table {
			// What ListWriter writes for a one-column table, without its
			// line built first and handed over through io.Writer: printing
			// was a few hundred instructions a value.
			return failure.WriteError(out.writeLine(sanitize.String(v)))
		}
		cells[0], cells[1] = v, string(ind.Type)
		return w.Write(nil, cells[:])
	}
	if opts.SkipNoise {
		err = triage.Scan(r, triage.ScanOptions{Skip: skipper, Types: types, TextOnly: true, Done: ctx.Done()}, func(ind triage.Found) error {
			if ind.Skip != "" {
				left.add(ind.Skip)
				return nil
			}
			return emit(ind.Indicator)
		})
	} else {
		// What triage.Scan finds with TextOnly, without its verdicts: they
		// would go unused, and judging each value was a tenth of what
		// printing it cost.
		err = ioc.Extract(r, ioc.ExtractOptions{Types: types, Done: ctx.Done()}, emit)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if cerr := out.Close(); err == nil && cerr != nil {
		err = failure.WriteError(cerr)
	}
	if opts.IO.IsStderrTTY() {
		left.print(opts.IO.ErrOut)
	}
	if ctx.Err() != nil && (err == nil || errors.Is(err, ioc.ErrStopped) || errors.Is(err, ctx.Err())) {
		// Ctrl-C, SIGTERM or SIGHUP: what was found is out, and the
		// exit code says it is not all.
		return failure.New(failure.Interrupted, "interrupted")
	}
	var kinded failure.Kinded
	if err != nil && !errors.As(err, &kinded) {
		err = cmdutil.ReadError(err)
	}
	return err
}

// leftOut counts what --skip-noise left out, by reason, in the order the
// reasons first came.
type leftOut struct {
	reasons []string
	count   map[string]int
	total   int
}

func (l *leftOut) add(reason string) {
	if l.count == nil {
		l.count = map[string]int{}
	}
	if l.count[reason] == 0 {
		l.reasons = append(l.reasons, reason)
	}
	l.count[reason]++
	l.total++
}

// print says what was left out, for a person at a terminal: stdout is
// the kept values only, for the next command of the pipeline.
func (l *leftOut) print(w io.Writer) {
	if l.total == 0 {
		return
	}
	fmt.Fprintf(w, "tilookup: --skip-noise left out, by reason (%d in all):\n", l.total)
	for _, r := range l.reasons {
		fmt.Fprintf(w, "  %4d  %s\n", l.count[r], r)
	}
}

// completeTypes completes the last name of a --types list.
func completeTypes(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	prefix := ""
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		prefix = toComplete[:i+1]
	}
	names := []string{"hash", "ip"}
	for _, t := range ioc.AllTypes {
		names = append(names, string(t))
	}
	for i := range names {
		names[i] = prefix + names[i]
	}
	return names, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// open joins the inputs into one stream, each read as text or HTML on its
// own, as triage reads them.
func open(opts *Options) (io.Reader, func(), error) {
	format, _ := triage.ParseFormat(opts.Input)
	return triage.OpenInputs(opts.IO.In, opts.Files, format, opts.Warn, cmdutil.OpenInput)
}

// readsPipe tells whether the input includes stdin that is not a regular
// file: a pipe or a terminal, whose read can wait for input for ever.
func readsPipe(opts *Options) bool {
	if len(opts.Files) > 0 && !slices.Contains(opts.Files, "-") {
		return false
	}
	f, ok := opts.IO.In.(*os.File)
	if !ok {
		return true
	}
	st, err := f.Stat()
	return err != nil || !st.Mode().IsRegular()
}

// interruptible is r whose Read gives up when ctx ends, even while a read
// is waiting for input (a pipe from tail -f that has nothing more for
// now): the read goes on in the background, and its bytes are dropped. A
// file mapped into memory is never read (ioc.Lines): it is stopped
// between blocks (ioc.ExtractOptions.Done).
func interruptible(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r
	}
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte // what the background read reads into; p is never written after Read returns
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		return copy(p, buf[:res.n]), res.err
	case <-c.ctx.Done():
		// The read goes on with buf, which is dropped with it.
		c.buf = nil
		return 0, c.ctx.Err()
	}
}
