package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmd/auth"
	"github.com/tilookup/tilookup/pkg/cmd/completion"
	"github.com/tilookup/tilookup/pkg/cmd/configcmd"
	"github.com/tilookup/tilookup/pkg/cmd/detect"
	"github.com/tilookup/tilookup/pkg/cmd/events"
	"github.com/tilookup/tilookup/pkg/cmd/extract"
	"github.com/tilookup/tilookup/pkg/cmd/sandboxcmd"
	"github.com/tilookup/tilookup/pkg/cmd/search"
	"github.com/tilookup/tilookup/pkg/cmd/version"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/failure"
)

// NewRootCmd builds the command tree. It only declares flags and commands:
// nothing here reads files, the keyring or the network.
func NewRootCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "tilookup <command>",
		Short: "Look up indicators in a threat-intelligence service",
		Long: `tilookup finds one exact value (a hash, IP, domain, URL or CVE ID) across every
resource of a threat-intelligence service, and calls its current-caller
events endpoint. Try it with no account: tilookup search --sandbox 44d88612fea8a8f36de82e1278abb02f`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			color, _ := cmd.Flags().GetString("color")
			if cmd.Flags().Changed("color") {
				if err := validateFlag("color", color); err != nil {
					return err
				}
				f.IO.SetColorMode(strings.ToLower(color))
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return failure.New(failure.Usage, "%s", plainFlagError(err.Error()))
	})

	pf := root.PersistentFlags()
	f.ConfigFlag = pf.String("config", "", "config `file` (default: $TILOOKUP_CONFIG or tilookup/config.yaml in the user config dir)")
	pf.String("profile", "", "use the named `profile` of the config file")
	pf.String("base-url", "", "service `URL` for search (may carry a path prefix)")
	pf.String("events-base-url", "", "service `URL` for events (default: the base URL)")
	pf.String("timeout", "", "per-request `duration`, or seconds (default "+config.DefaultOf("timeout")+")")
	pf.String("retries", "", "`N` extra tries for 429, 502, 503, 504 and connection errors (default "+config.DefaultOf("retries")+")")
	pf.StringP("output", "o", "", "output `format`: table, json, ndjson or csv (default "+config.DefaultOf("output")+")")
	pf.String("color", "auto", "colour `mode`: auto, always or never")
	f.DebugFlag = pf.Bool("debug", false, "log each request and response to stderr (credentials redacted)")
	f.Flags = pf

	for _, name := range []string{"output", "color"} {
		k, _ := config.Lookup(name)
		values := k.Values
		_ = root.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		})
	}
	_ = root.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg, err := f.ConfigUnchecked() // a bad value elsewhere should not hide the profiles
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return cfg.Profiles(), cobra.ShellCompDirectiveNoFileComp
	})

	root.AddCommand(
		search.NewCmd(f, nil),
		auth.NewCmd(f),
		detect.NewCmd(f),
		extract.NewCmd(f),
		events.NewCmd(f),
		configcmd.NewCmd(f, nil),
		sandboxcmd.NewCmd(f),
		version.NewCmd(f),
		completion.NewCmd(f),
	)
	return root
}

// plainFlagError drops the strconv detail pflag quotes for a bad number:
// `invalid argument "abc" for "--limit" flag: strconv.ParseInt: parsing
// "abc": invalid syntax` says no more than "want a number".
func plainFlagError(msg string) string {
	if i := strings.Index(msg, ": strconv."); i >= 0 {
		return msg[:i] + ": want a number"
	}
	return msg
}

func validateFlag(name, value string) error {
	k, _ := config.Lookup(name)
	if err := k.Validate(value); err != nil {
		return failure.New(failure.Usage, "--%s: %v", name, err)
	}
	return nil
}
