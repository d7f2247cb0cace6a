// Package detect is `tilookup detect`: offline, the refanged value and the
// type of each value, exactly as search would send it.
package detect

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

// Options is what detect needs to run.
type Options struct {
	IO *iostreams.IOStreams
	// Format resolves the output format (flag, environment, config file).
	Format func() (output.Format, error)

	Values   []string
	NoRefang bool
	Defang   bool
}

type record struct {
	Input string     `json:"input"`
	Value string     `json:"value,omitempty"`
	Type  string     `json:"type,omitempty"`
	Error *errRecord `json:"error,omitempty"`
}

// errRecord has the shape of search's error records.
type errRecord struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// NewCmd is `tilookup detect`. runF replaces the run in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Format: func() (output.Format, error) { return cmdutil.Format(f, "detect") }}
	cmd := &cobra.Command{
		Use:   "detect [VALUE...]",
		Short: "Show the type and the refanged value search would send (offline)",
		Long: `Detect refangs each value (unless --no-refang), takes off the quotes, brackets
and punctuation that cling to a pasted value, normalises it as search does,
and prints it with its type: md5, sha1, sha256, sha512, ipv4, ipv6, domain,
url, cve, email or unknown. With no VALUE (or -), values are read from stdin,
one per line; blank lines and lines starting with # are skipped. Nothing is
sent anywhere.`,
		Example: `  tilookup detect 'hxxps://evil[.]example[.]com/x' 198.51.100[.]7 cve-2021-44228
  tilookup detect -o json 'user[@]example.com'
  printf '203.0.113[.]66:8080\ninvoice.pdf\n' | tilookup detect`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IO = f.IO
			opts.Values = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.NoRefang, "no-refang", false, "take values exactly as given")
	cmd.Flags().BoolVar(&opts.Defang, "defang", false, "defang values in table and CSV output, for tickets")
	return cmd
}

func run(opts *Options) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	fromStdin := len(opts.Values) == 0 || len(opts.Values) == 1 && opts.Values[0] == "-"
	if fromStdin && opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("give a VALUE, or pipe values on stdin")
	}
	if !fromStdin && len(opts.Values) == 1 {
		return one(opts, format, opts.Values[0])
	}
	w := newWriter(opts.IO, format)
	var tally failure.Tally
	write := func(in string) error {
		rec, shown, err := opts.detect(in)
		tally.Add(err, err == nil)
		status := rec.Type
		if rec.Error != nil {
			status = "error: " + rec.Error.Message
		}
		return w.Write(rec, []string{in, shown, status})
	}
	if fromStdin {
		err = eachLine(opts.IO.In, write)
	} else {
		for _, in := range opts.Values {
			if err = write(in); err != nil {
				break
			}
		}
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return tally.Err(err, false)
}

// one is detect for a single VALUE: a JSON object rather than an array, and
// a value that is refused is the command's error.
func one(opts *Options, format output.Format, in string) error {
	rec, shown, err := opts.detect(in)
	if err != nil {
		return err
	}
	if format == output.JSON {
		return cmdutil.WriteJSON(cmdutil.ListOptions(opts.IO, format), rec)
	}
	w := newWriter(opts.IO, format)
	if err := w.Write(rec, []string{in, shown, rec.Type}); err != nil {
		return err
	}
	return w.Close()
}

// detect prepares one value and returns its record, the value as the table
// shows it (defanged with --defang), and the error that refused it.
func (opts *Options) detect(in string) (record, string, error) {
	value, t, err := ioc.Prepare(in, !opts.NoRefang)
	if err != nil {
		return record{Input: in, Error: &errRecord{Kind: string(failure.KindOf(err)), Message: err.Error()}}, "", err
	}
	shown := value
	if opts.Defang {
		shown = ioc.Defang(value, t)
	}
	return record{Input: in, Value: value, Type: string(t)}, shown, nil
}

// writer takes the records: as JSON, NDJSON or CSV through the common
// list writer, streamed; a table waits for its last row, since its columns
// fit the widest values and the terminal.
type writer interface {
	Write(obj any, cells []string) error
	Close() error
}

func newWriter(ios *iostreams.IOStreams, format output.Format) writer {
	o := cmdutil.ListOptions(ios, format)
	if format != output.Table && format != "" {
		return cmdutil.NewListWriter(o, []string{"input", "value", "type"})
	}
	if o.TTY {
		o.Width = ios.TerminalWidth()
	}
	return &tableWriter{o: o}
}

// tableColumns: the refanged value is the news; the input, as typed, goes
// first when the terminal is too narrow for both. TYPE also holds a
// refused value's error, cut at its end.
var tableColumns = []output.Column{
	{Title: "INPUT", Min: 16, Token: true, Drop: 1},
	{Title: "VALUE", Min: 20, Token: true},
	{Title: "TYPE", Min: 8},
}

type tableWriter struct {
	o    output.Options
	rows [][]string
}

func (w *tableWriter) Write(_ any, cells []string) error {
	w.rows = append(w.rows, cells)
	return nil
}

func (w *tableWriter) Close() error {
	if len(w.rows) == 0 {
		return nil
	}
	return output.WriteTable(w.o, tableColumns, w.rows)
}

// maxLine bounds a line read from stdin; a longer one is refused by
// Prepare's length limit anyway.
const maxLine = 1 << 20

// eachLine calls fn for each value line of r, skipping blank lines and
// comments, as search does.
func eachLine(r io.Reader, fn func(string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return failure.New(failure.Input, "a line on stdin is longer than %d MiB", maxLine>>20)
		}
		return cmdutil.CannotRead("stdin", err)
	}
	return nil
}
