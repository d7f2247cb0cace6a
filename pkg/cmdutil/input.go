package cmdutil

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// AddInputFlag is --input FORMAT: how a command that reads files reads
// them (extract and triage: auto, text or html; enrich: auto, csv, tsv or
// ndjson); formats[0] is the default. former adds --format, the name
// extract and enrich gave it first, out of the help; CheckInput warns of
// it.
func AddInputFlag(cmd *cobra.Command, input *string, formats []string, former bool) {
	fl := cmd.Flags()
	fl.StringVar(input, "input", formats[0], "`FORMAT`: "+strings.Join(formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("input", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return formats, cobra.ShellCompDirectiveNoFileComp
	})
	if former {
		fl.StringVar(input, "format", formats[0], "same as --input")
		_ = fl.MarkHidden("format")
	}
}

// CheckInput refuses an --input that its parser did not take (ok false),
// naming the formats, and says on stderr that --format is now --input
// where the former name was used: pflag's own deprecation notice goes to
// stdout, into the values a pipe reads.
func CheckInput(cmd *cobra.Command, errOut io.Writer, input string, ok bool, formats []string) error {
	if f := cmd.Flags().Lookup("format"); f != nil && f.Hidden && f.Changed {
		fmt.Fprintln(errOut, "tilookup: warning: --format is now --input")
	}
	if !ok {
		last := len(formats) - 1
		return UsageError("invalid --input %q: use %s or %s", input, strings.Join(formats[:last], ", "), formats[last])
	}
	return nil
}
