// Package extract is `tilookup extract`: every indicator in free text,
// offline, so that `tilookup extract report.txt | tilookup search` looks
// them all up.
package extract

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/output"
)

// Options is what extract needs to run.
type Options struct {
	In  io.Reader
	Out io.Writer
	// StdinTTY says whether In is a terminal, where nobody pipes text.
	StdinTTY bool
	// Format resolves the output format (flag, environment, config file).
	Format func() (output.Format, error)

	Files  []string
	Types  string // the --types list, "" for all
	Defang bool
}

// NewCmd is `tilookup extract`. runF replaces the run in tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{Format: func() (output.Format, error) { return cmdutil.Format(f) }}
	cmd := &cobra.Command{
		Use:   "extract [FILE...]",
		Short: "Pull every indicator out of free text (offline)",
		Long: `Extract reads reports, e-mails or notes (the FILEs, or stdin when none) and
prints every indicator found, refanged and normalised, de-duplicated, in order
of first appearance. Table output is one value per line, so it pipes into
tilookup search. File names such as invoice.pdf and version numbers such as
"version 1.2.3.4" are not taken for domains or addresses.

--types takes md5, sha1, sha256, sha512, ipv4, ipv6, domain, url, cve, email
and cidr (an address block such as 203.0.113.0/24), and the groups hash (the
four digests), ip (ipv4, ipv6) and all.`,
		Example: `  tilookup extract report.txt | tilookup search
  pbpaste | tilookup extract --types ip,domain
  tilookup extract -o json mail.eml | jq -r '.[] | select(.type=="url") | .value'`,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.In, opts.Out, opts.StdinTTY = f.IO.In, f.IO.Out, f.IO.IsStdinTTY()
			opts.Files = args
			if runF != nil {
				return runF(opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Types, "types", "", "only these comma-separated `types`: ipv4,domain,hash,...")
	cmd.Flags().BoolVar(&opts.Defang, "defang", false, "defang values in table and CSV output, for tickets")
	_ = cmd.RegisterFlagCompletionFunc("types", completeTypes)
	return cmd
}

func run(opts *Options) error {
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
	if len(opts.Files) == 0 && opts.StdinTTY {
		return cmdutil.UsageError("give a FILE, or pipe text on stdin")
	}
	r, closeAll, err := open(opts.In, opts.Files)
	if err != nil {
		return err
	}
	defer closeAll()
	w := cmdutil.NewListWriter(format, opts.Out, []string{"value", "type"})
	table := format == output.Table
	err = ioc.ExtractReader(r, types, func(ind ioc.Indicator) error {
		v := ind.Value
		if opts.Defang {
			v = ioc.Defang(v, ind.Type)
		}
		obj := struct {
			Value string `json:"value"`
			Type  string `json:"type"`
		}{ind.Value, string(ind.Type)}
		cells := []string{v, string(ind.Type)}
		if table {
			cells = cells[:1]
		}
		return w.Write(obj, cells)
	})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	var kinded failure.Kinded
	if err != nil && !errors.As(err, &kinded) {
		err = readError(err)
	}
	return err
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

// readError explains a failed read once: "cannot read /tmp: is a
// directory", not the *PathError's "read /tmp: is a directory" again.
func readError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return cmdutil.CannotRead(pe.Path, pe.Err)
	}
	return cmdutil.CannotRead("the input", err)
}

// open joins the inputs into one stream, a newline between files so that
// the last word of one never runs into the first of the next.
func open(stdin io.Reader, names []string) (io.Reader, func(), error) {
	if len(names) == 0 {
		return stdin, func() {}, nil
	}
	var readers []io.Reader
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, name := range names {
		if name == "-" {
			readers = append(readers, stdin, bytes.NewReader([]byte("\n")))
			continue
		}
		fh, err := cmdutil.OpenInput(name)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		files = append(files, fh)
		readers = append(readers, fh, bytes.NewReader([]byte("\n")))
	}
	return io.MultiReader(readers...), closeAll, nil
}
