package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/suggest"
)

// flagErrors is the root's FlagErrorFunc (cobra hands it to every command)
// for the command line args (nil when unknown: then a flag given before
// its command is only explained for the network flags).
//
// A flag of a command given before the command is unknown to the root,
// and a bool one even takes the command's name for its value: the message
// says to give it after the command. It is not quietly accepted: gh
// rejects `gh --repo R issue list` the same way, and moving words of a
// command line around behind the user's back would make `tilookup --x cmd`
// mean one thing for a bool flag and another for a flag with a value.
// Any other unknown flag gets the nearest flags of the command, as a
// mistyped command gets the nearest commands.
func flagErrors(root *cobra.Command, args []string) func(*cobra.Command, error) error {
	return func(c *cobra.Command, err error) error {
		msg := plainFlagError(err.Error())
		name, unknown := strings.CutPrefix(msg, "unknown flag: --")
		if !unknown {
			return cmdutil.ArgErrorf("%s", msg)
		}
		if c == root {
			if cmdutil.IsNetworkFlag(name) {
				return cmdutil.ArgErrorf("--%s belongs to the commands that call the service: give it after the command, as in tilookup search --%s VALUE", name, name)
			}
			if named := commandNamed(root, args, name); named != nil {
				return cmdutil.ArgErrorf("--%s is a flag of %s: give it after the command, as in %s --%s ...", name, named.CommandPath(), named.CommandPath(), name)
			}
		}
		return cmdutil.ArgErrorf("%s%s", msg, didYouMeanFlag(c.Flags(), name))
	}
}

// commandNamed is the command that args name and that has the flag name,
// or nil. The flag's own word is left out before the command is looked
// for, since cobra would take the command's name for its value.
func commandNamed(root *cobra.Command, args []string, name string) *cobra.Command {
	rest := slices.DeleteFunc(slices.Clone(args), func(a string) bool {
		flag, _, _ := strings.Cut(a, "=")
		return flag == "--"+name
	})
	c, _, err := root.Find(rest)
	if err != nil || c == root || (c.Flags().Lookup(name) == nil && c.InheritedFlags().Lookup(name) == nil) {
		return nil
	}
	return c
}

// didYouMeanFlag suggests the visible flags of flags close to typed (the
// name without its dashes), or "" when none is.
func didYouMeanFlag(flags *pflag.FlagSet, typed string) string {
	var names []string
	flags.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			names = append(names, f.Name)
		}
	})
	// A short name is close to too many others for one edit in three to
	// be a typo.
	near := suggest.Closest(typed, names, min(2, max(1, len(typed)/3)))
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = "--" + n
	}
	return ". Did you mean " + strings.Join(near, " or ") + "?"
}
