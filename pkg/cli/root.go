package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmd/auth"
	browsecmd "github.com/tilookup/tilookup/pkg/cmd/browse"
	"github.com/tilookup/tilookup/pkg/cmd/cachecmd"
	"github.com/tilookup/tilookup/pkg/cmd/completion"
	"github.com/tilookup/tilookup/pkg/cmd/configcmd"
	"github.com/tilookup/tilookup/pkg/cmd/detect"
	"github.com/tilookup/tilookup/pkg/cmd/enrich"
	"github.com/tilookup/tilookup/pkg/cmd/events"
	"github.com/tilookup/tilookup/pkg/cmd/extract"
	"github.com/tilookup/tilookup/pkg/cmd/mcp"
	"github.com/tilookup/tilookup/pkg/cmd/pivot"
	"github.com/tilookup/tilookup/pkg/cmd/push"
	"github.com/tilookup/tilookup/pkg/cmd/sandboxcmd"
	"github.com/tilookup/tilookup/pkg/cmd/search"
	"github.com/tilookup/tilookup/pkg/cmd/triage"
	"github.com/tilookup/tilookup/pkg/cmd/version"
	"github.com/tilookup/tilookup/pkg/cmd/watch"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// NewRootCmd builds the command tree. It only declares flags and commands:
// nothing here reads files, the keyring or the network.
func NewRootCmd(f *online.Factory) *cobra.Command { return newRootCmd(f, "") }

// newRootCmd builds the root with only the command named only, or with
// all of them when only is "".
func newRootCmd(f *online.Factory, only string) *cobra.Command {
	root := newRoot(f.Factory)
	addCommands(root, f, only)
	return root
}

// newRoot declares the root command and its flags, without the commands
// under it: onlyCommand reads a command line with these flags to know
// which command to add.
func newRoot(f *cmdutil.Factory) *cobra.Command {
	var showVersion bool
	root := &cobra.Command{
		Use:   "tilookup <command>",
		Short: "Look up indicators in a threat-intelligence service",
		Long: `tilookup finds one exact value (a hash, IP, domain, URL or CVE ID) across every
resource of a threat-intelligence service, and calls its current-caller
events endpoint. Try it with no account:

  tilookup search --sandbox 44d88612fea8a8f36de82e1278abb02f`,
		Example: `  tilookup search --sandbox 44d88612fea8a8f36de82e1278abb02f
  tilookup detect 'hxxps://evil[.]example[.]com/x'
  tilookup help exit-codes`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if isCompletionRequest(cmd) {
				completion.PlainFlagDescriptions(cmd.Root())
			}
			bindFlags(f, cmd)
			watchInterrupts(cmd)
			color, _ := cmd.Flags().GetString("color")
			if cmd.Flags().Changed("color") {
				if err := validateFlag("color", color); err != nil {
					return err
				}
				f.IO.SetColorMode(strings.ToLower(color))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showVersion {
				format, err := cmdutil.ResolveFormat(f, "version")
				if err != nil {
					return err
				}
				return version.Run(&version.Options{IO: f.IO, JSON: format != output.Table, Info: version.Get})
			}
			return cmd.Help()
		},
	}
	root.SetFlagErrorFunc(flagErrors(root, nil))
	root.Flags().BoolVar(&showVersion, "version", false, "print the version, as tilookup version does")

	pf := root.PersistentFlags()
	f.ConfigFlag = pf.String("config", "", "config `file` (see tilookup help environment)")
	pf.String("profile", "", "use the named `profile` of the config file")
	// Every format is more than a help line holds, and most commands
	// write only some: TAB completes the ones the command writes.
	pf.StringP("output", "o", "", "`format`: table, json, csv... (TAB lists them)")
	pf.String("color", "auto", "colour `mode`: auto, always or never")
	// Until a command runs, the persistent flags are all there is (shell
	// completion of --profile reads the config with them).
	f.Flags = pf

	colors, _ := config.Lookup("color")
	_ = root.RegisterFlagCompletionFunc("color", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return colors.Values, cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.RegisterFlagCompletionFunc("output", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		return outputFormats(c), cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.RegisterFlagCompletionFunc("profile", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cfg, err := f.ConfigUnchecked() // a bad value elsewhere should not hide the profiles
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return cfg.Profiles(), cobra.ShellCompDirectiveNoFileComp
	})
	return root
}

// addCommands adds to root the command named only, or all of them when
// only is "", with the help command, usage and guards that see them.
func addCommands(root *cobra.Command, f *online.Factory, only string) {
	for _, c := range commands {
		if only == "" || c.name == only {
			root.AddCommand(c.build(f))
		}
	}
	// tilookup has its own completion command; a root built without it
	// must not gain cobra's.
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetHelpCommand(newHelpCmd(root))
	root.SetUsageFunc(usage)
	guardParents(root)
}

// command is one of the root's commands. An offline one is given only
// f.Factory, so that its package need not import pkg/cmdutil/online.
type command struct {
	name  string
	build func(*online.Factory) *cobra.Command
}

// commands are the root's commands, in the order help lists them.
// Building one declares its flags, which is most of what a start-up costs
// over the libraries' own (and each TAB of shell completion pays it), so a
// command line builds only the command it runs: see onlyCommand.
var commands = []command{
	{"search", func(f *online.Factory) *cobra.Command { return search.NewCmd(f, nil) }},
	{"triage", func(f *online.Factory) *cobra.Command { return triage.NewCmd(f, nil) }},
	{"pivot", func(f *online.Factory) *cobra.Command { return pivot.NewCmd(f, nil) }},
	{"enrich", func(f *online.Factory) *cobra.Command { return enrich.NewCmd(f, nil) }},
	{"watch", func(f *online.Factory) *cobra.Command { return watch.NewCmd(f, nil) }},
	{"browse", func(f *online.Factory) *cobra.Command { return browsecmd.NewCmd(f, nil) }},
	{"auth", auth.NewCmd},
	{"detect", func(f *online.Factory) *cobra.Command { return detect.NewCmd(f.Factory, nil) }},
	{"extract", func(f *online.Factory) *cobra.Command { return extract.NewCmd(f.Factory, nil) }},
	{"events", events.NewCmd},
	{"push", push.NewCmd},
	{"config", func(f *online.Factory) *cobra.Command { return configcmd.NewCmd(f.Factory, nil) }},
	{"sandbox", func(f *online.Factory) *cobra.Command { return sandboxcmd.NewCmd(f.Factory, nil) }},
	{"cache", func(f *online.Factory) *cobra.Command { return cachecmd.NewCmd(f.Factory, nil) }},
	{"mcp", func(f *online.Factory) *cobra.Command { return mcp.NewCmd(f, nil) }},
	{"version", func(f *online.Factory) *cobra.Command { return version.NewCmd(f.Factory, nil) }},
	{"completion", func(f *online.Factory) *cobra.Command { return completion.NewCmd(f.Factory, nil) }},
	{"environment", func(*online.Factory) *cobra.Command {
		return newTopic("environment", "Environment variables that tilookup reads", EnvironmentHelp)
	}},
	{"exit-codes", func(*online.Factory) *cobra.Command {
		return newTopic("exit-codes", "What each exit status means", ExitCodesHelp)
	}},
}

// onlyCommand is the one root command a command line needs built, or ""
// when it needs them all: the root's own help and completions list every
// command, a mistyped one is answered with the names close to it, and a
// completion script is made from the whole tree. It reads past the flags
// of root (and the value of those that take one, as cobra tells them: see
// takesValue), and past help and the shell's completion requests to the
// command they are about.
func onlyCommand(root *cobra.Command, args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--" || a == "-h" || a == "--help":
			return "" // the root's help lists every command
		case takesValue(root, a):
			i++ // its value
		case strings.HasPrefix(a, "-"):
		case a == "help":
			return onlyCommand(root, args[i+1:])
		case a == cobra.ShellCompRequestCmd || a == cobra.ShellCompNoDescRequestCmd:
			// The last word is the one being completed: a command name
			// there may be the start of a longer one.
			words := args[i+1:]
			if name := onlyCommand(root, words); name != "" && name != words[len(words)-1] {
				return name
			}
			return ""
		case a == "completion":
			return ""
		default:
			for _, c := range commands {
				if c.name == a {
					return a
				}
			}
			return ""
		}
	}
	return ""
}

// isCompletionRequest tells cobra's hidden command that the shells'
// completion scripts call on every TAB.
func isCompletionRequest(cmd *cobra.Command) bool {
	return cmd.Parent() == cmd.Root() && (cmd.Name() == cobra.ShellCompRequestCmd || cmd.Name() == cobra.ShellCompNoDescRequestCmd)
}

// bindFlags hands the running command's flags, its own and the inherited
// persistent ones, to the config layer: the network flags live only on the
// commands that call the service.
func bindFlags(f *cmdutil.Factory, cmd *cobra.Command) {
	f.Flags = cmd.Flags()
	if debug, err := cmd.Flags().GetBool("debug"); err == nil {
		f.DebugFlag = &debug
	}
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
		return cmdutil.ArgErrorf("--%s: %v", name, err)
	}
	return nil
}

// outputFormats are the formats the command c writes (every format before
// a command is named), for the completion of -o: the registry's row for a
// subcommand ("watch list"), else its top-level command's.
func outputFormats(c *cobra.Command) []string {
	if ns := format.For(strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")); len(ns) > 0 {
		return names(ns)
	}
	for c.HasParent() && c.Parent().HasParent() {
		c = c.Parent()
	}
	if !c.HasParent() {
		return format.Names()
	}
	return names(format.For(c.Name()))
}

func names(ns []format.Name) []string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = string(n)
	}
	return s
}
