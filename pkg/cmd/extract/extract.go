// Package extract is `tilookup extract`: every indicator in free text,
// offline, so that `tilookup extract report.txt | tilookup search` looks
// them all up.
package extract

import (
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
}

// NewCmd is `tilookup extract`. runF replaces the run in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{Format: func() (output.Format, error) { return cmdutil.Format(f, "extract") }}
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
<footer> (an article's header and footer are read). A UTF-16 or UTF-32 file with a byte
order mark is decoded; a file in an encoding that is not read is named on
stderr. A binary file (an executable, an archive) is refused.

--types takes md5, sha1, sha256, sha512, ipv4, ipv6, domain, url, cve, email
and cidr (an address block such as 203.0.113.0/24), and the groups hash (the
four digests), ip (ipv4, ipv6) and all.`,
		Example: `  tilookup extract report.txt | tilookup search
  pbpaste | tilookup extract --types ip,domain
  tilookup extract -o json mail.eml | jq -r '.[] | select(.type=="url") | .value'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.IO = f.IO
			opts.Warn = func(msg string) { fmt.Fprintf(f.IO.ErrOut, "tilookup: warning: %s\n", msg) }
			opts.Files = args
			_, ok := triage.ParseFormat(opts.Input)
			if err := cmdutil.CheckInput(cmd, f.IO.ErrOut, opts.Input, ok, triage.Formats); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Types, "types", "", "only these comma-separated `types`: ipv4,domain,hash,...")
	cmd.Flags().BoolVar(&opts.Defang, "defang", false, "defang values in table and CSV output, for tickets")
	cmdutil.AddInputFlag(cmd, &opts.Input, triage.Formats, true)
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
	if len(opts.Files) == 0 && opts.IO.IsStdinTTY() {
		return cmdutil.UsageError("give a FILE, or pipe text on stdin")
	}
	r, closeAll, err := open(opts)
	if err != nil {
		return err
	}
	defer closeAll()
	w := cmdutil.NewListWriter(cmdutil.ListOptions(opts.IO, format), []string{"value", "type"})
	table := format == output.Table
	err = triage.Scan(r, triage.ScanOptions{Types: types, TextOnly: true}, func(ind triage.Found) error {
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
		err = cmdutil.ReadError(err)
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

// open joins the inputs into one stream, each read as text or HTML on its
// own, as triage reads them.
func open(opts *Options) (io.Reader, func(), error) {
	format, _ := triage.ParseFormat(opts.Input)
	return triage.OpenInputs(opts.IO.In, opts.Files, format, opts.Warn, cmdutil.OpenInput)
}
