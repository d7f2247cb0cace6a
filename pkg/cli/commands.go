package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/suggest"
)

// guardParents makes every command that only groups others (auth, config,
// events, ...) answer a mistyped subcommand with an error and exit 2, and
// print its help when given none. cobra's default for them is the help
// text and exit 0, which a script takes for success.
func guardParents(c *cobra.Command) {
	for _, sub := range c.Commands() {
		guardParents(sub)
	}
	if !c.HasSubCommands() {
		return
	}
	if c.Args == nil {
		c.Args = noUnknownSubcommand
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[groupsOnly] = "true"
	}
	if c.Run == nil && c.RunE == nil {
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
}

// groupsOnly marks a command whose words can only be subcommands: any
// other word there is a mistyped command.
const groupsOnly = "tilookup/groups-only"

// unknownCommand finds a mistyped command in args before cobra parses any
// flag: cobra, given `serach --sandbox`, stops at the root and reports the
// flag it does not know, and `serach --help` prints the root's help and
// exits 0. It walks the words down the tree, past each level's flags (and
// the values of those that take one), and stops at a command that takes
// arguments of its own.
func unknownCommand(root *cobra.Command, args []string) (*cobra.Command, error) {
	cmd := root
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return cmd, nil
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if !knownFlag(cmd, a) {
				// A flag of a command further on, given before it
				// (--debug search): cobra's own message says where it
				// belongs.
				return cmd, nil
			}
			if takesValue(cmd, a) {
				i++
			}
			continue
		case cmd.Annotations[groupsOnly] != "true":
			return cmd, nil // a command's own argument
		case a == "help" || a == cobra.ShellCompRequestCmd || a == cobra.ShellCompNoDescRequestCmd:
			return cmd, nil // cobra's own, added at Execute
		}
		sub := subcommand(cmd, a)
		if sub == nil {
			return cmd, noUnknownSubcommand(cmd, []string{a})
		}
		cmd = sub
	}
	return cmd, nil
}

func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, sub := range cmd.Commands() {
		if sub.Name() == name || sub.HasAlias(name) {
			return sub
		}
	}
	return nil
}

// takesValue tells whether the flag word a, as given at cmd's level, is
// followed by its value, as cobra decides when it looks for the command: a
// flag not written as --flag=value that is not a bool (nor a flag with an
// optional value) of cmd or of a parent.
func takesValue(cmd *cobra.Command, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	name := strings.TrimLeft(a, "-")
	var flag *pflag.Flag
	for c := cmd; c != nil && flag == nil; c = c.Parent() {
		if strings.HasPrefix(a, "--") {
			flag = c.Flags().Lookup(name)
			if flag == nil {
				flag = c.PersistentFlags().Lookup(name)
			}
		} else if len(name) == 1 {
			flag = c.Flags().ShorthandLookup(name)
			if flag == nil {
				flag = c.PersistentFlags().ShorthandLookup(name)
			}
		}
	}
	return flag != nil && flag.NoOptDefVal == ""
}

// knownFlag tells whether the flag word a is a flag of cmd or a parent.
func knownFlag(cmd *cobra.Command, a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	for c := cmd; c != nil; c = c.Parent() {
		if strings.HasPrefix(a, "--") && (c.Flags().Lookup(name) != nil || c.PersistentFlags().Lookup(name) != nil) ||
			!strings.HasPrefix(a, "--") && len(name) >= 1 && (c.Flags().ShorthandLookup(name[:1]) != nil || c.PersistentFlags().ShorthandLookup(name[:1]) != nil) {
			return true
		}
	}
	return false
}

func noUnknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return cmdutil.ArgErrorf("unknown command %q for %q%s", args[0], cmd.CommandPath(), didYouMean(cmd, args[0]))
}

// didYouMean suggests the subcommands and help topics of cmd close to typed.
func didYouMean(cmd *cobra.Command, typed string) string {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // what cobra uses for the root
	}
	names := cmd.SuggestionsFor(typed)
	for _, sub := range cmd.Commands() {
		if sub.IsAdditionalHelpTopicCommand() && strings.HasPrefix(sub.Name(), typed) {
			names = append(names, sub.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	names = suggest.Closest(typed, names, len(typed))
	for i, n := range names {
		names[i] = fmt.Sprintf("%q", n)
	}
	return ". Did you mean " + strings.Join(names, " or ") + "?"
}

// newHelpCmd is `tilookup help [command...]`. Unlike cobra's, it fails on
// an unknown command or topic, and knows the help topics.
func newHelpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command, or a topic: environment, exit-codes",
		Long: `Help about any command (tilookup help search), or one of the topics:
environment (the variables tilookup reads) and exit-codes.`,
		Example: `  tilookup help search
  tilookup help environment
  tilookup help exit-codes`,
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			parent, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range parent.Commands() {
				if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
					names = append(names, sub.Name()+"\t"+sub.Short)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil {
				return cmdutil.ArgErrorf("%v", err)
			}
			if len(rest) > 0 {
				return cmdutil.ArgErrorf("unknown help topic %q%s", strings.Join(args, " "), didYouMean(target, rest[0]))
			}
			return target.Help()
		},
	}
}

// usage writes a command's usage as cobra's default does, except that it
// drops the second usage line cobra shows for a command that has
// subcommands and runs too: every parent does, to report a mistyped
// subcommand, and its own line says <command> already.
//
// It lists commands without groups: tilookup defines none (cobra's
// default would print them under their titles).
//
// It is Go rather than a template on purpose: executing a text/template
// makes the linker keep every exported method of every type, which made
// the binary twice as large and every start-up (each TAB of completion)
// slower.
func usage(c *cobra.Command) error {
	var b strings.Builder
	b.WriteString("Usage:")
	if c.Runnable() {
		b.WriteString("\n  " + c.UseLine())
	}
	if c.HasAvailableSubCommands() && !c.Runnable() {
		b.WriteString("\n  " + c.CommandPath() + " [command]")
	}
	if len(c.Aliases) > 0 {
		b.WriteString("\n\nAliases:\n  " + c.NameAndAliases())
	}
	if c.HasExample() {
		b.WriteString("\n\nExamples:\n" + c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\n\nAvailable Commands:")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		b.WriteString("\n\nFlags:\n" + strings.TrimRightFunc(c.LocalFlags().FlagUsages(), unicode.IsSpace))
	}
	if c.HasAvailableInheritedFlags() {
		b.WriteString("\n\nGlobal Flags:\n" + strings.TrimRightFunc(c.InheritedFlags().FlagUsages(), unicode.IsSpace))
	}
	if c.HasHelpSubCommands() {
		b.WriteString("\n\nAdditional help topics:")
		for _, sub := range c.Commands() {
			if sub.IsAdditionalHelpTopicCommand() {
				fmt.Fprintf(&b, "\n  %-*s %s", sub.CommandPathPadding(), sub.CommandPath(), sub.Short)
			}
		}
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(&b, "\n\nUse \"%s [command] --help\" for more information about a command.", c.CommandPath())
	}
	b.WriteString("\n")
	_, err := io.WriteString(c.OutOrStderr(), b.String())
	return err
}
