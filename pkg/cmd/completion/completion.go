// Package completion is `tilookup completion bash|zsh|fish|powershell|install`.
// It replaces cobra's default completion command so that `install` can sit
// beside the four script generators; the scripts themselves are cobra's.
package completion

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// Shells lists the shells a script can be generated for, in the order the
// help shows them.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// Script writes root's completion script for shell. The committed scripts in
// completions/ and `tilookup completion SHELL` both come from here, so they
// cannot drift apart.
func Script(root *cobra.Command, shell string, w io.Writer, descriptions bool) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, descriptions)
	case "zsh":
		if descriptions {
			return root.GenZshCompletion(w)
		}
		return root.GenZshCompletionNoDesc(w)
	case "fish":
		return root.GenFishCompletion(w, descriptions)
	case "powershell":
		if descriptions {
			return root.GenPowerShellCompletionWithDesc(w)
		}
		return root.GenPowerShellCompletion(w)
	}
	return cmdutil.UsageError("unknown shell %q: use bash, zsh, fish or powershell", shell)
}

// Options is what completion and completion install need to run.
type Options struct {
	IO *iostreams.IOStreams
	// Script writes the script of the whole command tree for a shell.
	Script func(shell string, w io.Writer, descriptions bool) error

	Shell        string // "" with Install: from $SHELL
	Descriptions bool
	Install      bool
}

// NewCmd is `tilookup completion`. runF replaces the run in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	if runF == nil {
		runF = func(_ context.Context, o *Options) error { return run(o) }
	}
	cmd := &cobra.Command{
		Use:   "completion <command>",
		Short: "Shell completion: print a script, or install it for your shell",
		Long: `Tab completion for bash, zsh, fish and PowerShell: subcommands, flags, the
values of --output and --color, config keys, profile names from your config
file and hosts for auth. Completing never touches the network or the keyring.

The quickest way is 'tilookup completion install', which puts the script where
your shell looks for it and prints what it did. 'tilookup completion SHELL'
prints the script, for setups that load it some other way.`,
		ValidArgsFunction: cobra.NoFileCompletions,
	}
	for _, shell := range Shells {
		cmd.AddCommand(newShellCmd(f, shell, runF))
	}
	cmd.AddCommand(newInstallCmd(f, runF))
	return cmd
}

// newOptions fills what every completion command shares.
func newOptions(f *cmdutil.Factory, cmd *cobra.Command) *Options {
	root := cmd.Root()
	return &Options{
		IO: f.IO,
		Script: func(shell string, w io.Writer, descriptions bool) error {
			return Script(root, shell, w, descriptions)
		},
	}
}

func run(opts *Options) error {
	if opts.Install {
		return install(opts)
	}
	return opts.Script(opts.Shell, opts.IO.Out, opts.Descriptions)
}

// shellHelp returns a shell's Long text and Example. Commands go in Example,
// which the man pages and Markdown docs render as code blocks. A switch, not
// a map, so that nothing is built at start-up.
func shellHelp(shell string) (long, example string) {
	switch shell {
	case "bash":
		return `Print the bash completion script. It needs the bash-completion package
(apt install bash-completion; on macOS, brew install bash-completion@2).
'tilookup completion install --shell bash' installs it for your user.`,
			`  # the current shell only
  source <(tilookup completion bash)
  # every user, every new shell
  tilookup completion bash | sudo tee /usr/share/bash-completion/completions/tilookup >/dev/null`
	case "zsh":
		return `Print the zsh completion script. 'tilookup completion install --shell zsh'
writes it to ~/.zsh/completions/_tilookup and prints the line ~/.zshrc needs.
Any directory in $fpath works, as long as the file is named _tilookup.`,
			`  # the current shell only (compinit must have run)
  source <(tilookup completion zsh)`
	case "fish":
		return `Print the fish completion script. 'tilookup completion install --shell fish'
writes it to ~/.config/fish/completions/tilookup.fish, where fish finds it.`,
			`  # the current shell only
  tilookup completion fish | source`
	case "powershell":
		return `Print the PowerShell completion script. To load it in every new shell, add
the line below to your profile ($PROFILE); 'tilookup completion install
--shell powershell' prints the steps.`,
			`  tilookup completion powershell | Out-String | Invoke-Expression`
	}
	return "", ""
}

func newShellCmd(f *cmdutil.Factory, shell string, runF func(context.Context, *Options) error) *cobra.Command {
	var noDesc bool
	long, example := shellHelp(shell)
	cmd := &cobra.Command{
		Use:               shell,
		Short:             "Print the completion script for " + shell,
		Long:              long,
		Example:           example,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := newOptions(f, cmd)
			opts.Shell, opts.Descriptions = shell, !noDesc
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "complete without a description beside each value")
	return cmd
}

// PlainFlagDescriptions rewrites the usage of every flag under root as
// the help reads it: a usage that names its value in backticks ("config
// `file`", for the help's "--config file") loses the backticks, which
// cobra's completion request would otherwise hand to the shell as they are
// (zsh and fish show them literally). Only a completion request may call
// it: it prints no help, so the value names are no longer needed.
func PlainFlagDescriptions(root *cobra.Command) {
	unquote := func(f *pflag.Flag) { _, f.Usage = pflag.UnquoteUsage(f) }
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(unquote)
		c.PersistentFlags().VisitAll(unquote)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
