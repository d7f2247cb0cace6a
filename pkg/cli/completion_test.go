// The completion scripts, their install and dynamic completion, tested
// through the whole command tree: they live here, where the tree is linked
// anyway, rather than in pkg/cmd/completion, which would link it a second time.

package cli_test

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/cli"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// run executes tilookup in-process with a home directory of its own, so
// that nothing the tests install lands in the real one.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code = cli.Run(args, ios)
	return out.String(), errOut.String(), code
}

func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "USERPROFILE": home, "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": "",
		"ZDOTDIR": "", "BASH_COMPLETION_USER_DIR": "", "SHELL": "",
		"TILOOKUP_CONFIG": filepath.Join(home, "config.yaml"), "TILOOKUP_PROFILE": "",
	} {
		t.Setenv(k, v)
	}
	return home
}

func script(t *testing.T, shell string) string {
	t.Helper()
	out, errOut, code := run(t, "completion", shell)
	if code != 0 || out == "" {
		t.Fatalf("completion %s: exit %d, stderr %q", shell, code, errOut)
	}
	return out
}

func TestScripts(t *testing.T) {
	isolate(t)
	for shell, marker := range map[string]string{
		"bash":       "__start_tilookup",
		"zsh":        "#compdef tilookup",
		"fish":       "complete -c tilookup",
		"powershell": "Register-ArgumentCompleter",
	} {
		if s := script(t, shell); !strings.Contains(s, marker) {
			t.Errorf("completion %s lacks %q", shell, marker)
		}
	}
	_, errOut, code := run(t, "completion", "tcsh")
	if code != 2 {
		t.Errorf("completion tcsh: exit %d, want 2 (stderr %q)", code, errOut)
	}
}

func readInstalled(t *testing.T, path string) string {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("nothing installed at %s: %v", path, err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o644 {
		t.Errorf("%s has mode %v, want 0644", path, info.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	return string(data)
}

func TestInstallBash(t *testing.T) {
	home := isolate(t)
	out, errOut, code := run(t, "completion", "install", "--shell", "bash")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	path := filepath.Join(home, ".local", "share", "bash-completion", "completions", "tilookup")
	if got := readInstalled(t, path); got != script(t, "bash") {
		t.Error("the installed script differs from `completion bash`")
	}
	if !strings.Contains(out, path) {
		t.Errorf("output does not say where the script went:\n%s", out)
	}

	// Installing again replaces the file and leaves no temporary behind.
	if _, errOut, code := run(t, "completion", "install", "--shell", "bash"); code != 0 {
		t.Fatalf("second install: exit %d: %s", code, errOut)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("want only the script in %s, found %d entries", filepath.Dir(path), len(entries))
	}
}

func TestInstallHonoursXDG(t *testing.T) {
	home := isolate(t)
	data := filepath.Join(home, "data")
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", "relative/is/ignored")
	t.Setenv("SHELL", "/usr/local/bin/bash")
	if _, errOut, code := run(t, "completion", "install"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	readInstalled(t, filepath.Join(data, "bash-completion", "completions", "tilookup"))

	t.Setenv("SHELL", "/usr/bin/fish")
	if _, errOut, code := run(t, "completion", "install"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := readInstalled(t, filepath.Join(home, ".config", "fish", "completions", "tilookup.fish"))
	if got != script(t, "fish") {
		t.Error("the installed fish script differs from `completion fish`")
	}
}

func TestInstallZsh(t *testing.T) {
	fpathLine := "fpath=(~/.zsh/completions $fpath)"
	compinitLine := "autoload -Uz compinit && compinit"
	for _, tc := range []struct {
		name, zshrc string
		want, not   []string
	}{
		{"no zshrc", "", []string{fpathLine, compinitLine}, nil},
		{"compinit only", "autoload -U compinit\ncompinit\n", []string{fpathLine, "above the line that runs compinit"}, []string{compinitLine}},
		{"both", "fpath=(~/.zsh/completions $fpath)\nautoload -U compinit; compinit\n", []string{"already"}, []string{fpathLine, compinitLine}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			t.Setenv("SHELL", "/bin/zsh")
			if tc.zshrc != "" {
				if err := os.WriteFile(filepath.Join(home, ".zshrc"), []byte(tc.zshrc), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, errOut, code := run(t, "completion", "install")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if got := readInstalled(t, filepath.Join(home, ".zsh", "completions", "_tilookup")); got != script(t, "zsh") {
				t.Error("the installed zsh script differs from `completion zsh`")
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("output should not contain %q:\n%s", n, out)
				}
			}
			if rc, _ := os.ReadFile(filepath.Join(home, ".zshrc")); string(rc) != tc.zshrc {
				t.Error("install changed .zshrc")
			}
		})
	}
}

func TestInstallPowerShellOnlyPrints(t *testing.T) {
	home := isolate(t)
	out, errOut, code := run(t, "completion", "install", "--shell", "powershell")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "tilookup completion powershell | Out-String | Invoke-Expression") {
		t.Errorf("no profile line in:\n%s", out)
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 0 {
		t.Errorf("powershell install wrote into the home directory: %v", entries)
	}
}

func TestInstallUnknownShell(t *testing.T) {
	isolate(t)
	t.Setenv("SHELL", "/bin/tcsh")
	_, errOut, code := run(t, "completion", "install")
	if code != 2 || !strings.Contains(errOut, "--shell") {
		t.Errorf("exit %d, stderr %q: want 2 and advice to pass --shell", code, errOut)
	}
}

// complete asks cobra's hidden completion command, which every shell's
// script calls, for the candidates at the end of args.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	out, errOut, code := run(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, errOut)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, ":") {
			continue // the directive
		}
		name, _, _ := strings.Cut(line, "\t")
		got = append(got, name)
	}
	return got
}

func TestDynamicCompletion(t *testing.T) {
	home := isolate(t)
	cfg := "base_url: https://ti.example.com\nprofiles:\n  staging:\n    base_url: https://ti.staging.example\n  prod-eu:\n    base_url: https://eu.ti.example:8443\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"se"}, []string{"search"}},
		{[]string{"search", "--output", ""}, []string{"table", "json", "ndjson", "csv", "md", "stix"}},
		{[]string{"--color", ""}, []string{"auto", "always", "never"}},
		{[]string{"--profile", ""}, []string{"prod-eu", "staging"}},
		{[]string{"completion", ""}, []string{"bash", "fish", "install", "powershell", "zsh"}},
		{[]string{"completion", "install", "--shell", ""}, []string{"bash", "zsh", "fish", "powershell"}},
	} {
		got := complete(t, tc.args...)
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("tilookup %s<TAB>: got %q, want it to include %q", strings.Join(tc.args, " "), got, w)
			}
		}
	}
	if got := complete(t, "config", "get", ""); !slices.Contains(got, "base_url") || !slices.Contains(got, "timeout") {
		t.Errorf("config get <TAB>: got %q, want the config keys", got)
	}
	if got := complete(t, "auth", "login", "--host", ""); !slices.Contains(got, "ti.example.com") {
		t.Errorf("auth login --host <TAB>: got %q, want ti.example.com", got)
	}
}

// Flag descriptions in completions read as the help's words: a usage that
// names its value `FILE` for the help's "--allowlist FILE" shows FILE,
// never the backticks (zsh and fish print them literally). Every command's
// flags are asked for, from the tree itself.
func TestFlagDescriptionsHaveNoBackticks(t *testing.T) {
	isolate(t)
	quoted := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.Fields(c.CommandPath())[1:]
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(f.Usage, "`") || f.Hidden {
				return
			}
			quoted++
			_, plain := pflag.UnquoteUsage(f)
			out, errOut, code := run(t, append(append([]string{"__complete"}, path...), "--"+f.Name[:len(f.Name)-1])...)
			if code != 0 {
				t.Fatalf("%v --%s: exit %d: %s", path, f.Name, code, errOut)
			}
			want := "--" + f.Name + "\t" + plain
			if !slices.Contains(strings.Split(out, "\n"), want) || strings.Contains(out, "`") {
				t.Errorf("tilookup %s --%s<TAB>: want the line %q, got:\n%s", strings.Join(path, " "), f.Name, want, out)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(cli.NewRootCmdForDocs())
	if quoted == 0 {
		t.Fatal("no flag names its value in backticks: the test checks nothing")
	}
}
