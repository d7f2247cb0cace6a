package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

func TestReportErrorPointsToHelpOnlyForCommandLineMistakes(t *testing.T) {
	root := NewRootCmdForDocs()
	events, _, _ := root.Find([]string{"events"})
	tests := []struct {
		err  error
		cmd  *cobra.Command
		want string
		code int
	}{
		{cmdutil.ArgErrorf("unknown flag: --x"), events, "tilookup: unknown flag: --x (see 'tilookup events --help')\n", 2},
		{errors.New("accepts 0 arg(s), received 1"), root, "tilookup: accepts 0 arg(s), received 1 (see 'tilookup --help')\n", 2},
		{cmdutil.UsageError("give a VALUE"), nil, "tilookup: give a VALUE (see 'tilookup --help')\n", 2},
		{failure.New(failure.Usage, "--jq: error: boom"), events, "tilookup: --jq: error: boom\n", 2},
		{failure.New(failure.Input, "empty value"), events, "tilookup: empty value\n", 2},
		{failure.New(failure.Config, "no base URL"), events, "tilookup: no base URL\n", 3},
		{cmdutil.ArgErrorf("bad; run 'tilookup config --help'"), events, "tilookup: bad; run 'tilookup config --help'\n", 2},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if code := reportError(&buf, tt.cmd, tt.err); code != tt.code || buf.String() != tt.want {
			t.Errorf("reportError(%v) = %d, %q; want %d, %q", tt.err, code, buf.String(), tt.code, tt.want)
		}
	}
}

func TestEveryParentRejectsUnknownSubcommands(t *testing.T) {
	root := NewRootCmdForDocs()
	n := 0
	walk(root, func(c *cobra.Command) {
		if !c.HasAvailableSubCommands() {
			return
		}
		n++
		args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "tilookup")), "bogus")
		ios, _, out, errOut := iostreams.Test()
		if code := Run(args, ios); code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), `unknown command "bogus" for "`+c.CommandPath()+`"`) {
			t.Errorf("%s bogus: exit %d, stdout %q, stderr %q", c.CommandPath(), code, out.String(), errOut.String())
		}
		ios, _, out, _ = iostreams.Test()
		ios.SetTTY(true, false, false) // a person typing the parent alone
		if code := Run(args[:len(args)-1], ios); code != 0 || !strings.Contains(out.String(), "Available Commands:") {
			t.Errorf("%s alone: exit %d, stdout %q", c.CommandPath(), code, out.String())
		}
	})
	if n < 5 {
		t.Errorf("only %d parent commands found", n)
	}
}

func TestDidYouMeanPicksTheClosest(t *testing.T) {
	root := NewRootCmdForDocs()
	config, _, _ := root.Find([]string{"config"})
	for typed, want := range map[string]string{
		"lst":  `. Did you mean "list"?`,
		"gett": `. Did you mean "get"?`,
		"zzzz": "",
	} {
		if got := didYouMean(config, typed); got != want {
			t.Errorf("didYouMean(%q) = %q, want %q", typed, got, want)
		}
	}
	if got := didYouMean(root, "exit"); got != `. Did you mean "exit-codes"?` {
		t.Errorf("a help topic: %q", got)
	}
}

func TestNetworkFlagsOnlyWhereTheServiceIsCalled(t *testing.T) {
	online := map[string]bool{"tilookup search": true, "tilookup pivot": true, "tilookup events me": true, "tilookup auth login": true, "tilookup auth status": true, "tilookup triage": true, "tilookup enrich": true, "tilookup mcp": true, "tilookup watch": true}
	walk(NewRootCmdForDocs(), func(c *cobra.Command) {
		for _, name := range []string{"base-url", "events-base-url", "timeout", "retries", "debug"} {
			want := online[c.CommandPath()]
			if strings.HasPrefix(c.CommandPath(), "tilookup push ") {
				// It calls MISP or TAXII, not the service: no base URL of the service.
				want = name != "base-url" && name != "events-base-url"
			}
			if has := c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil; has != want {
				t.Errorf("%s: --%s present: %v", c.CommandPath(), name, has)
			}
		}
	})
}

// TestNetworkFlagsReachTheConfig checks flag > env with the flags that live on
// one command: the config layer must read the running command's flags.
func TestNetworkFlagsReachTheConfig(t *testing.T) {
	t.Setenv("TILOOKUP_CONFIG", t.TempDir()+"/config.yaml")
	t.Setenv("TILOOKUP_TIMEOUT", "9s")
	t.Setenv("TILOOKUP_RETRIES", "")
	ios, _, _, _ := iostreams.Test()
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}}
	root := NewRootCmd(f)
	var timeout, retries string
	var debug bool
	search, _, _ := root.Find([]string{"search"})
	search.RunE = func(*cobra.Command, []string) error {
		timeout, _ = f.Get("timeout")
		retries, _ = f.Get("retries")
		debug = f.DebugFlag != nil && *f.DebugFlag
		return nil
	}
	root.SetArgs([]string{"search", "--timeout", "4s", "--debug", "x"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if timeout != "4s" || retries != "2" || !debug {
		t.Errorf("timeout %q (want the flag's 4s), retries %q (want the default 2), debug %v", timeout, retries, debug)
	}
}

func TestFlagHelpFits80Columns(t *testing.T) {
	walk(NewRootCmdForDocs(), func(c *cobra.Command) {
		check := func(fs *pflag.FlagSet) {
			for _, line := range strings.Split(fs.FlagUsages(), "\n") {
				if len(line) <= 80 {
					continue
				}
				t.Errorf("%s: %d columns: %s", c.CommandPath(), len(line), line)
			}
		}
		check(c.LocalFlags())
		check(c.InheritedFlags())
	})
}

func TestEnvironmentHelpNamesEveryVariable(t *testing.T) {
	help := EnvironmentHelp()
	want := []string{"TILOOKUP_TOKEN", "TILOOKUP_CONFIG", "TILOOKUP_CACHE", "TILOOKUP_PAGER", "PAGER", "NO_COLOR",
		"CLICOLOR", "CLICOLOR_FORCE", "BROWSER", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"}
	for _, k := range config.Keys {
		if k.Env != "" {
			want = append(want, k.Env)
		}
	}
	// The README documents the contract's variables; none may be missing.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, regexp.MustCompile(`TILOOKUP_[A-Z_]+[A-Z]`).FindAllString(string(readme), -1)...)
	for _, v := range want {
		if !regexp.MustCompile(`(?m)^(\S+, )*` + v + `\b`).MatchString(help) {
			t.Errorf("help environment does not list %s", v)
		}
	}
	for _, text := range []string{help, ExitCodesHelp()} {
		for _, line := range strings.Split(text, "\n") {
			if len(line) > 80 {
				t.Errorf("help topic line of %d columns: %s", len(line), line)
			}
		}
	}
}

func TestExitCodesHelpMatchesTheContract(t *testing.T) {
	help := ExitCodesHelp()
	for _, code := range []int{failure.ExitOK, failure.ExitNoMatch, failure.ExitUsage, failure.ExitConfig, failure.ExitAuth, failure.ExitNotFound, failure.ExitService, failure.ExitInterrupted} {
		if !regexp.MustCompile(`(?m)^    ` + strings.TrimSpace(strings.Repeat(" ", 0)+itoa(code)) + ` +\S`).MatchString(help) {
			t.Errorf("exit code %d is not in help exit-codes", code)
		}
	}
	if !strings.Contains(help, "one match among many values is success") {
		t.Error("help exit-codes does not say that -e is like grep")
	}
}

func itoa(n int) string {
	var b [8]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

func TestOnlyCommandsThatPrintSkipTheSignalWatch(t *testing.T) {
	root := NewRootCmdForDocs()
	root.InitDefaultCompletionCmd()
	for args, want := range map[string]bool{
		"":                        true,
		"version":                 true,
		"help search":             true,
		"completion bash":         true,
		cobra.ShellCompRequestCmd: true,
		"search":                  false,
		"triage":                  false,
		"auth login":              false,
		"events me":               false,
		"sandbox serve":           false,
		"mcp":                     false,
	} {
		cmd, _, err := root.Find(strings.Fields(args))
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := printsOnly(cmd); got != want {
			t.Errorf("printsOnly(%q) = %v, want %v", args, got, want)
		}
	}
}

func TestTheSignalWatchIsStoppedByRun(t *testing.T) {
	root := NewRootCmdForDocs()
	search, _, _ := root.Find([]string{"search"})
	search.SetContext(context.Background())
	watchInterrupts(search)
	if search.Context() != context.Background() {
		t.Fatal("a watch was started outside Run, with nobody to stop it")
	}

	w := &interrupts{}
	parent := context.WithValue(context.Background(), interruptsKey{}, w)
	search.SetContext(parent)
	watchInterrupts(search)
	if search.Context() == parent || w.stop == nil {
		t.Fatal("search runs without a signal watch")
	}
	w.stop()
}

func TestOnlyCommand(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	root := newRoot(&cmdutil.Factory{IO: ios})
	for args, want := range map[string]string{
		"":                                 "",
		"search x":                         "search",
		"-o json search x":                 "search",
		"--config search events me":        "events",
		"--config=x.yaml triage r.txt":     "triage",
		"--color never --version":          "",
		"serch x":                          "",
		"help auth login":                  "auth",
		"help":                             "",
		"__complete search --li":           "search",
		"__complete sea":                   "",
		"__complete search":                "",
		"__completeNoDesc help config get": "config",
		"completion bash":                  "",
		"-- search":                        "",
	} {
		if got := onlyCommand(root, strings.Fields(args)); got != want {
			t.Errorf("onlyCommand(%q) = %q, want %q", args, got, want)
		}
	}
}

// The table of commands is the tree: each entry builds the command it
// names, and building them all leaves nothing out.
func TestCommandsTableIsTheTree(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}}
	var names []string
	for _, c := range commands {
		if got := c.build(f).Name(); got != c.name {
			t.Errorf("the entry %q builds %q", c.name, got)
		}
		names = append(names, c.name)
	}
	var built []string
	for _, c := range NewRootCmd(f).Commands() {
		if c.Name() != "help" {
			built = append(built, c.Name())
		}
	}
	slices.Sort(names)
	if strings.Join(names, " ") != strings.Join(built, " ") {
		t.Errorf("table %v, tree %v", names, built)
	}
}

// A command line run on the root built for it alone prints and exits
// exactly as on the whole tree: help, mistakes, completion requests.
func TestOnlyTheNeededCommandChangesNothing(t *testing.T) {
	lines := []string{
		"", "--help", "help", "help search", "help auth login", "help environment", "search --help",
		"serch x", "auth logn", "config get nope", "version", "--version", "detect 1.2.3.4",
		"extract --types bogus", "search", "events", "cache", "sandbox serve --bogus",
		"-h search", "--help auth login", "search -h", "-o json help search", "--color=never search --help",
		"__complete ", "__complete se", "__complete search --o", "__complete search --output ",
		"__complete help ", "__complete help au", "__complete auth ", "__complete config get ",
		"__complete --color ", "__complete search", "__completeNoDesc triage --",
	}
	run := func(args []string, only string) string {
		ios, _, out, errOut := iostreams.Test()
		f := &online.Factory{Factory: &cmdutil.Factory{IO: ios, Version: "test"}}
		root := newRootCmd(f, only)
		root.SetArgs(args)
		root.SetIn(ios.In)
		root.SetOut(ios.Out)
		root.SetErr(ios.ErrOut)
		cmd, err := root.ExecuteC()
		code := reportError(ios.ErrOut, cmd, err)
		return fmt.Sprintf("exit %d\n%s\n--\n%s", code, out, errOut)
	}
	for _, line := range lines {
		args := strings.Split(line, " ")
		if line == "" {
			args = nil
		}
		ios, _, _, _ := iostreams.Test()
		only := onlyCommand(newRoot(&cmdutil.Factory{IO: ios}), args)
		if whole, lazy := run(args, ""), run(args, only); whole != lazy {
			t.Errorf("%q on the whole tree:\n%s\non the command alone (%q):\n%s", line, whole, only, lazy)
		}
	}
}

// onlyCommand reads the root's flags from the root itself: the value of
// each flag that takes one is never taken for the command, a switch's
// next word is, and a flag added to the root tomorrow is read alike.
func TestOnlyCommandReadsTheRootsFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	root := newRoot(&cmdutil.Factory{IO: ios})
	root.PersistentFlags().String("added-value", "", "")
	root.PersistentFlags().BoolP("added-switch", "A", false, "")
	var seen int
	for _, fs := range []*pflag.FlagSet{root.PersistentFlags(), root.Flags()} {
		fs.VisitAll(func(fl *pflag.Flag) {
			want := "triage" // "search" is the flag's value
			if fl.NoOptDefVal != "" {
				want = "search" // a switch: search is the command
			}
			words := []string{"--" + fl.Name}
			if fl.Shorthand != "" {
				words = append(words, "-"+fl.Shorthand)
			}
			for _, w := range words {
				seen++
				if got := onlyCommand(root, []string{w, "search", "triage", "x"}); got != want {
					t.Errorf("onlyCommand(%s search triage x) = %q, want %q", w, got, want)
				}
			}
		})
	}
	if seen < 2+5 { // the two added, and the root's own
		t.Fatalf("only %d flag words were tried", seen)
	}
}

// The root's pre-run binds the flags, the colour and the signal watch: a
// command with a pre-run of its own would hide it (cobra runs only the
// nearest).
func TestOnlyTheRootHasAPreRun(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasParent() && (c.PersistentPreRun != nil || c.PersistentPreRunE != nil) {
			t.Errorf("%s has a persistent pre-run of its own", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCmdForDocs())
}

// A mistyped command is caught before cobra parses a flag: cobra alone
// reports the flag (`unknown flag: --sandbox`), or prints the root's help
// and exits 0 for --help.
func TestMistypedCommandBeforeItsFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string // "" when the command line must get past the check
	}{
		{[]string{"serach", "--sandbox", "192.0.2.1"}, `unknown command "serach" for "tilookup". Did you mean "search"? (see 'tilookup --help')`},
		{[]string{"serach", "--help"}, `unknown command "serach" for "tilookup". Did you mean "search"?`},
		{[]string{"-o", "json", "serach", "x"}, `unknown command "serach" for "tilookup"`},
		{[]string{"--color=never", "trage", "r.txt"}, `Did you mean "triage"?`},
		{[]string{"config", "lst", "--bogus"}, `unknown command "lst" for "tilookup config". Did you mean "list"? (see 'tilookup config --help')`},
		{[]string{"auth", "stauts", "--host", "x"}, `unknown command "stauts" for "tilookup auth". Did you mean "status"?`},
		{[]string{"-o", "serach", "version"}, ""}, // a root flag's value is not a command
		{[]string{"--config", "/nonexistent", "version"}, ""},
		{[]string{"version", "extra-word-is-version's-business"}, ""},
		{[]string{"--timeout", "5", "search", "x"}, ""}, // a flag of the command, given before it
		{[]string{"--debug", "search", "x"}, ""},
	} {
		root := NewRootCmdForDocs()
		_, err := unknownCommand(root, tt.args)
		var buf bytes.Buffer
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case tt.want != "":
			ios, _, out, errOut := iostreams.Test()
			code := Run(tt.args, ios)
			buf.WriteString(errOut.String())
			if code != 2 || out.Len() != 0 || !strings.Contains(buf.String(), tt.want) || strings.Count(buf.String(), "\n") != 1 {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out.String(), buf.String(), tt.want)
			}
		}
	}
}

// The README names every fuzz target there is, and only those.
func TestReadmeNamesTheFuzzTargets(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bFuzz[A-Z]\w*`).FindAllString(string(readme), -1) {
		named[m] = true
	}
	exist := map[string]bool{}
	decl := regexp.MustCompile(`(?m)^func (Fuzz[A-Z]\w*)\(`)
	for path, src := range goSources(t) {
		if strings.HasSuffix(path, "_test.go") {
			for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
				exist[m[1]] = true
			}
		}
	}
	for name := range named {
		if !exist[name] {
			t.Errorf("the README names %s, which does not exist", name)
		}
	}
	for name := range exist {
		if !named[name] {
			t.Errorf("the README does not name the fuzz target %s", name)
		}
	}
}

// The README's lists of the commands with the network flags name every
// one of them.
func TestReadmeNamesTheCommandsThatCallTheService(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	var lists []string
	for _, start := range []string{"are on the commands that call the service (", "`--debug` (on "} {
		_, rest, ok := strings.Cut(text, start)
		if !ok {
			t.Fatalf("the README has no %q", start)
		}
		list, _, _ := strings.Cut(rest, ")")
		lists = append(lists, list)
	}
	walk(NewRootCmdForDocs(), func(c *cobra.Command) {
		if c.Flags().Lookup("debug") == nil {
			return
		}
		name := "`" + strings.TrimPrefix(c.CommandPath(), "tilookup ") + "`"
		for _, list := range lists {
			if !strings.Contains(list, name) {
				t.Errorf("the README's list %q leaves out %s", list, name)
			}
		}
	})
}

// Nothing compiles a regexp at start-up: a package variable of
// regexp.MustCompile runs in every process, each TAB of completion
// included (one in pkg/watch cost a tenth of `tilookup version`).
func TestNoRegexpCompiledAtStartUp(t *testing.T) {
	decl := regexp.MustCompile(`(?m)^(var\s+\w+\s*=|\s+\w+\s*=)\s*regexp\.MustCompile`)
	for path, src := range goSources(t) {
		if strings.HasSuffix(path, "_test.go") || strings.Contains(path, "/bench/") {
			continue
		}
		if loc := decl.FindIndex(src); loc != nil && !inFunc(src[:loc[0]]) {
			t.Errorf("%s compiles a regexp in a package variable: %q", path, src[loc[0]:loc[1]])
		}
	}
}

// goSources yields every .go file of the module and its contents. It stays
// out of hidden directories (.git above all): the test cache keeps a result
// only while every directory a test read is unchanged, and git changes its
// own at every command.
func goSources(t *testing.T) iter.Seq2[string, []byte] {
	const root = "../.."
	return func(yield func(string, []byte) bool) {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata"):
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go"):
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if !yield(path, src) {
				return filepath.SkipAll
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// inFunc tells, roughly, whether the end of src is inside a function:
// the last top-level declaration before it starts with func.
func inFunc(src []byte) bool {
	i := bytes.LastIndex(src, []byte("\nfunc "))
	j := max(bytes.LastIndex(src, []byte("\nvar ")), bytes.LastIndex(src, []byte("\nvar(")))
	return i > j
}

// A cron line that forgot --name (values piped in, or a flag of a run)
// fails instead of printing help with exit 0, which would read as
// "something changed".
func TestWatchWithoutANameFails(t *testing.T) {
	for _, args := range [][]string{{"watch"}, {"watch", "-o", "md"}} {
		ios, in, out, errOut := iostreams.Test()
		in.WriteString("203.0.113.66\n")
		if code := Run(args, ios); code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "watch needs --name NAME") {
			t.Errorf("%q piped: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}

// A mistyped flag gets the nearest flag of its command, as a mistyped
// command gets the nearest command; a flag far from every other gets none.
func TestMistypedFlagSuggestsTheNearest(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"triage", "--show-skiped", "r.txt"}, "unknown flag: --show-skiped. Did you mean --show-skipped? (see 'tilookup triage --help')"},
		{[]string{"search", "--limt", "3", "x"}, "unknown flag: --limt. Did you mean --limit? (see 'tilookup search --help')"},
		{[]string{"search", "--outptu", "json", "x"}, "Did you mean --output?"}, // an inherited flag
		{[]string{"config", "list", "--zzzzzz"}, "unknown flag: --zzzzzz (see 'tilookup config list --help')"},
	} {
		wantUsageError(t, tt.args, tt.want)
	}
}

// A flag of one command given before it is unknown to the root: the
// message names the command it belongs to and says where to put it,
// whatever the flag, not only the network ones.
func TestCommandFlagBeforeTheCommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--sandbox", "search", "x"}, "tilookup: --sandbox is a flag of tilookup search: give it after the command, as in tilookup search --sandbox ... (see 'tilookup --help')\n"},
		{[]string{"--show-skipped", "triage", "r.txt"}, "--show-skipped is a flag of tilookup triage: give it after the command"},
		{[]string{"--sandbox", "events", "me"}, "--sandbox is a flag of tilookup events me: give it after the command, as in tilookup events me --sandbox ..."},
		{[]string{"--debug", "search", "x"}, "--debug belongs to the commands that call the service: give it after the command, as in tilookup search --debug VALUE"},
		{[]string{"--bogus", "search", "x"}, "tilookup: unknown flag: --bogus (see 'tilookup --help')\n"},
	} {
		wantUsageError(t, tt.args, tt.want)
	}
}

// Every XDG base-directory variable the code reads itself (a string literal
// in a non-test source file) is in help environment, and says what tilookup
// keeps there.
func TestEnvironmentHelpNamesTheXDGVariablesTheCodeReads(t *testing.T) {
	read := map[string]bool{}
	literal := regexp.MustCompile(`"(XDG_[A-Z_]+)"`)
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			read[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !read["XDG_STATE_HOME"] || !read["XDG_DATA_HOME"] {
		t.Fatalf("the scan found %v: it should find watch's XDG_STATE_HOME and completion install's XDG_DATA_HOME", read)
	}
	help := EnvironmentHelp()
	for v := range read {
		if !regexp.MustCompile(`(?m)^(\S+, )*` + v + `\b`).MatchString(help) {
			t.Errorf("help environment does not list %s, which the code reads", v)
		}
	}
}

// wantUsageError runs args and wants exit 2, nothing on stdout and one
// line on stderr that holds want.
func wantUsageError(t *testing.T, args []string, want string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code := Run(args, ios)
	if code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), want) || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out.String(), errOut.String(), want)
	}
}
