package completion

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
)

func newInstallCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	var shell string
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the completion script where your shell looks for it",
		Long: `Write the completion script for your shell (from $SHELL, or --shell) to the
per-user place that shell loads completions from, and print what was done and
anything left for you to do. Nothing outside your home directory is touched.

    bash        ${XDG_DATA_HOME:-~/.local/share}/bash-completion/completions/tilookup
    zsh         ~/.zsh/completions/_tilookup, and the line ~/.zshrc needs
    fish        ${XDG_CONFIG_HOME:-~/.config}/fish/completions/tilookup.fish
    powershell  nothing is written: the line to add to $PROFILE is printed`,
		Example: `  tilookup completion install
  tilookup completion install --shell zsh`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := newOptions(f, cmd)
			opts.Shell, opts.Descriptions, opts.Install = shell, true, true
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&shell, "shell", "", "the `shell`: bash, zsh, fish or powershell (default: $SHELL)")
	_ = cmd.RegisterFlagCompletionFunc("shell", cobra.FixedCompletions(Shells, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// install writes the script where opts.Shell (or $SHELL's shell) loads it
// and says what is left to do.
func install(opts *Options) error {
	shell := opts.Shell
	if shell == "" {
		var err error
		if shell, err = detectShell(); err != nil {
			return err
		}
	}
	var script bytes.Buffer
	if err := opts.Script(shell, &script, opts.Descriptions); err != nil {
		return err
	}
	plan, err := planFor(shell)
	if err != nil {
		return err
	}
	if plan.path != "" {
		if err := writeScript(plan.path, script.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(opts.IO.Out, "Wrote the %s completion script to %s\n", shell, plan.path)
	}
	for _, line := range plan.advice {
		fmt.Fprintln(opts.IO.Out, line)
	}
	return nil
}

// detectShell names the user's login shell. Windows has no $SHELL outside
// of MSYS-like environments, and PowerShell is its shell there.
func detectShell() (string, error) {
	sh := strings.TrimSuffix(filepath.Base(os.Getenv("SHELL")), ".exe")
	switch sh {
	case "bash", "zsh", "fish":
		return sh, nil
	case "pwsh", "powershell":
		return "powershell", nil
	}
	if os.Getenv("SHELL") == "" && runtime.GOOS == "windows" {
		return "powershell", nil
	}
	return "", cmdutil.UsageError("cannot tell your shell from $SHELL (%q): pass --shell bash, zsh, fish or powershell", os.Getenv("SHELL"))
}

type plan struct {
	path   string   // where the script goes; empty when nothing is written
	advice []string // printed after the script is written
}

func planFor(shell string) (plan, error) {
	home, err := os.UserHomeDir()
	if err != nil && shell != "powershell" {
		return plan{}, failure.Wrap(failure.Config, err, "cannot find your home directory: "+err.Error()).
			WithHint("set HOME, or save the output of 'tilookup completion " + shell + "' yourself")
	}
	switch shell {
	case "bash":
		// bash-completion looks here on demand, the first time a command
		// is completed, so no rc file needs to change.
		dir := filepath.Join(xdgDir("XDG_DATA_HOME", home, ".local", "share"), "bash-completion", "completions")
		if d := os.Getenv("BASH_COMPLETION_USER_DIR"); filepath.IsAbs(d) {
			dir = filepath.Join(d, "completions")
		}
		return plan{path: filepath.Join(dir, "tilookup"), advice: []string{
			"Open a new shell to use it. It is loaded by the bash-completion package;",
			"if 'type _init_completion' says it is not found, install bash-completion",
			"(apt install bash-completion, dnf install bash-completion, brew install bash-completion@2).",
		}}, nil
	case "zsh":
		dir := filepath.Join(home, ".zsh", "completions")
		return plan{path: filepath.Join(dir, "_tilookup"), advice: zshAdvice(home, dir)}, nil
	case "fish":
		dir := filepath.Join(xdgDir("XDG_CONFIG_HOME", home, ".config"), "fish", "completions")
		return plan{path: filepath.Join(dir, "tilookup.fish"), advice: []string{
			"fish loads it by itself: open a new shell, or just press Tab.",
		}}, nil
	case "powershell":
		// PowerShell has no per-user directory it loads completers from:
		// the profile script has to run ours.
		return plan{advice: []string{
			"PowerShell loads completion from your profile script. Add this line to it:",
			"",
			"    tilookup completion powershell | Out-String | Invoke-Expression",
			"",
			"To open the profile (created if missing), run in PowerShell:",
			"",
			"    if (!(Test-Path $PROFILE)) { New-Item -Type File -Force $PROFILE }; notepad $PROFILE",
			"",
			"then open a new PowerShell window.",
		}}, nil
	}
	return plan{}, cmdutil.UsageError("unknown shell %q: use bash, zsh, fish or powershell", shell)
}

// xdgDir honours an XDG base-directory variable, which the spec says to
// ignore unless it holds an absolute path.
func xdgDir(env, home string, fallback ...string) string {
	if d := os.Getenv(env); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(append([]string{home}, fallback...)...)
}

// zshAdvice says what .zshrc needs: zsh only finds _tilookup if its
// directory is in fpath before compinit runs. It reads .zshrc to leave out
// what is already there, and never edits it.
func zshAdvice(home, dir string) []string {
	rcDir := home
	if d := os.Getenv("ZDOTDIR"); filepath.IsAbs(d) {
		rcDir = d
	}
	rcPath := filepath.Join(rcDir, ".zshrc")
	rc, _ := os.ReadFile(rcPath)
	shownDir := "~/.zsh/completions"
	shownRC := rcPath
	if rcDir == home {
		shownRC = "~/.zshrc"
	}
	fpathLine := "fpath=(" + shownDir + " $fpath)"
	hasFpath := bytes.Contains(rc, []byte(".zsh/completions")) || bytes.Contains(rc, []byte(dir))
	hasCompinit := bytes.Contains(rc, []byte("compinit"))

	var advice []string
	switch {
	case hasFpath && hasCompinit:
		advice = append(advice, shownRC+" already adds "+shownDir+" to fpath and runs compinit.")
	case hasFpath:
		advice = append(advice, "Add this line to "+shownRC+", after the fpath line:", "",
			"    autoload -Uz compinit && compinit", "")
	case hasCompinit:
		advice = append(advice, "Add this line to "+shownRC+", above the line that runs compinit:", "",
			"    "+fpathLine, "")
	default:
		advice = append(advice, "Add these lines to "+shownRC+":", "",
			"    "+fpathLine,
			"    autoload -Uz compinit && compinit", "")
	}
	return append(advice,
		"Then open a new shell. If Tab still completes nothing, zsh is using an old",
		"cache: rm -f ~/.zcompdump* and open a new shell again.")
}

// writeScript replaces the file in one step, so that a shell starting
// meanwhile never loads half a script.
func writeScript(path string, data []byte) error {
	fail := func(err error) error {
		return failure.Wrap(failure.Config, err, "cannot install the completion script: "+err.Error())
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tilookup-completion-*")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}
