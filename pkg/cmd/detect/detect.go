// Package detect is `tilookup detect`: offline, the refanged value and the
// type of each value, exactly as search would send it.
package detect

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/output"
)

// Options is what detect needs to run.
type Options struct {
	In  io.Reader
	Out io.Writer
	// StdinTTY says whether In is a terminal, where nobody pipes values.
	StdinTTY bool
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
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
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
		RunE: func(_ *cobra.Command, args []string) error {
			opts.In, opts.Out, opts.StdinTTY = f.IO.In, f.IO.Out, f.IO.IsStdinTTY()
			opts.Values = args
			if runF != nil {
				return runF(opts)
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
	if fromStdin && opts.StdinTTY {
		return cmdutil.UsageError("give a VALUE, or pipe values on stdin")
	}
	if !fromStdin && len(opts.Values) == 1 {
		return one(opts, format, opts.Values[0])
	}
	w := cmdutil.NewListWriter(format, opts.Out, []string{"input", "value", "type"})
	code := 0
	write := func(in string) error {
		rec, shown, err := opts.detect(in)
		if err != nil {
			code = max(code, failure.ExitCode(err))
		}
		status := rec.Type
		if rec.Error != nil {
			status = "error: " + rec.Error.Message
		}
		return w.Write(rec, []string{in, shown, status})
	}
	if fromStdin {
		err = eachLine(opts.In, write)
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
	if err != nil {
		return err
	}
	return cmdutil.ExitWith(code)
}

// one is detect for a single VALUE: a JSON object rather than an array, and
// a value that is refused is the command's error.
func one(opts *Options, format output.Format, in string) error {
	rec, shown, err := opts.detect(in)
	if err != nil {
		return err
	}
	if format == output.JSON {
		return cmdutil.WriteJSON(opts.Out, rec)
	}
	w := cmdutil.NewListWriter(format, opts.Out, []string{"input", "value", "type"})
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
