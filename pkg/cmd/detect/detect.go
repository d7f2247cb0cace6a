// Package detect is `tilookup detect`: offline, the refanged value and the
// type of each value, exactly as search would send it.
package detect

import (
	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
)

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

// NewCmd is `tilookup detect`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var noRefang, defang bool
	cmd := &cobra.Command{
		Use:   "detect VALUE...",
		Short: "Show the type of each value, and the refanged value search would send (offline)",
		Long: `Detect refangs each value (unless --no-refang), normalises it as search does,
and prints it with its type: md5, sha1, sha256, sha512, ipv4, ipv6, domain,
url, cve, email or unknown. Nothing is sent anywhere.`,
		Example: `  tilookup detect 'hxxps://evil[.]example[.]com/x' 198.51.100[.]7 cve-2021-44228
  tilookup detect -o json 'user[@]example.com'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			format, err := cmdutil.Format(f)
			if err != nil {
				return err
			}
			single := len(args) == 1
			w := cmdutil.NewListWriter(format, f.IO.Out, []string{"input", "value", "type"})
			code := 0
			for _, in := range args {
				value, t, err := ioc.Prepare(in, !noRefang)
				rec := record{Input: in, Value: value, Type: string(t)}
				if err != nil {
					if single {
						return err
					}
					code = max(code, failure.ExitCode(err))
					rec = record{Input: in, Error: &errRecord{Kind: string(failure.KindOf(err)), Message: err.Error()}}
				}
				shown := rec.Value
				if defang && err == nil {
					shown = ioc.Defang(value, t)
				}
				if single && format == "json" {
					return writeOne(f, rec)
				}
				status := rec.Type
				if rec.Error != nil {
					status = "error: " + rec.Error.Message
				}
				if err := w.Write(rec, []string{in, shown, status}); err != nil {
					return err
				}
			}
			if err := w.Close(); err != nil {
				return err
			}
			return cmdutil.ExitWith(code)
		},
	}
	cmd.Flags().BoolVar(&noRefang, "no-refang", false, "take values exactly as given")
	cmd.Flags().BoolVar(&defang, "defang", false, "defang values in table and CSV output, for pasting into tickets")
	return cmd
}

func writeOne(f *cmdutil.Factory, rec record) error {
	return cmdutil.WriteJSON(f.IO.Out, rec)
}
