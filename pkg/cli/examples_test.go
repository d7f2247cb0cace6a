package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// exampleInputs stand in for the files and clipboard the examples read.
// Every indicator in them is in the sandbox's demo data, so a search of
// them must find something.
var exampleInputs = map[string]string{
	"report.txt": `Beacon to hxxps://verify-check[.]example/login from "203.0.113[.]66:8080";
dropper invoice.pdf (EICAR, 44D88612FEA8A8F36DE82E1278ABB02F), exploiting CVE-2021-44228.
Also seen: login-update.example.net/
`,
	"mail.eml":      "From: it@example.com\nSubject: verify\n\nPlease log in at https://verify-check.example/login today.\n",
	"firewall.csv":  "_time,src_ip,dest_domain,action\n2024-05-01T10:00:00Z,203.0.113.66,login-update.example.net,allowed\n",
	"events.ndjson": `{"time":1714557600,"file_hash":"44d88612fea8a8f36de82e1278abb02f"}` + "\n",
}

// skippedExamples change the machine or never end; each says why.
var skippedExamples = map[string]string{
	"auth login":    "stores a token in the OS keyring",
	"auth logout":   "removes a token from the OS keyring",
	"sandbox serve": "serves until interrupted",
	"mcp":           "serves an assistant until it closes stdin or is interrupted",
	"push misp":     "writes to a MISP instance, which the sandbox is not (pkg/cmd/push tests it against a stand-in)",
	"push taxii":    "writes to a TAXII server, which the sandbox is not (pkg/cmd/push tests it against a stand-in)",
	"browse":        "needs a terminal: .ci/browse.sh drives it in tmux",
}

// TestHelpExamplesWork runs every tilookup command line of every Example
// in the help, pipelines included, against a sandbox (the values of search
// examples must match: search runs with -e), so that no example shows
// something that fails or finds nothing.
func TestHelpExamplesWork(t *testing.T) {
	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	t.Chdir(dir)
	for name, text := range exampleInputs {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]string{
		"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_DATA_HOME": filepath.Join(dir, "data"),
		"XDG_CACHE_HOME": filepath.Join(dir, "cache"), "XDG_STATE_HOME": filepath.Join(dir, "state"), "TILOOKUP_CONFIG": filepath.Join(dir, "config.yaml"),
		"TILOOKUP_BASE_URL": srv.SearchURL, "TILOOKUP_EVENTS_BASE_URL": srv.EventsURL,
		"TILOOKUP_TOKEN": sandbox.DemoToken, "TILOOKUP_PROFILE": "", "TILOOKUP_OUTPUT": "", "SHELL": "/bin/bash",
	} {
		t.Setenv(k, v)
	}
	ran := 0
	walk(NewRootCmdForDocs(), func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			ran += runExample(t, c.CommandPath(), line)
		}
	})
	if ran < 20 {
		t.Errorf("only %d example command lines ran: is the parser missing them?", ran)
	}
}

func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// runExample runs the tilookup stages of one example line, each stage's
// output the next one's input, and returns how many ran.
func runExample(t *testing.T, where, line string) int {
	t.Helper()
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return 0
	}
	if i := strings.Index(line, "<("); i >= 0 { // source <(tilookup ...)
		line = strings.TrimSuffix(line[i+2:], ")")
	}
	stdin, ran := "", 0
	for _, stage := range pipeline(line) {
		if len(stage) == 0 || stage[0] != "tilookup" {
			if ran == 0 {
				stdin = stageInput(stage)
			}
			continue // jq, tee, source: not ours to run
		}
		args := stage[1:]
		if why := skipReason(args); why != "" {
			t.Logf("%s: skipped %q: %s", where, line, why)
			return ran
		}
		if len(args) > 0 && args[0] == "search" {
			args = append([]string{"search", "-e"}, args[1:]...)
		}
		ios, in, out, errOut := iostreams.Test()
		in.WriteString(stdin)
		if code := Run(args, ios); code != 0 {
			t.Errorf("%s example %q: tilookup %s exited %d: %s", where, line, strings.Join(args, " "), code, errOut.String())
			return ran
		}
		if out.Len() == 0 {
			t.Errorf("%s example %q: tilookup %s printed nothing", where, line, strings.Join(args, " "))
		}
		stdin = out.String()
		ran++
	}
	return ran
}

func skipReason(args []string) string {
	if len(args) >= 2 && skippedExamples[args[0]+" "+args[1]] != "" {
		return skippedExamples[args[0]+" "+args[1]]
	}
	if len(args) >= 1 {
		return skippedExamples[args[0]]
	}
	return ""
}

// stageInput is what a command before the first tilookup would print.
func stageInput(stage []string) string {
	switch {
	case len(stage) >= 2 && stage[0] == "printf":
		return strings.ReplaceAll(stage[1], `\n`, "\n")
	case len(stage) >= 1 && stage[0] == "pbpaste":
		return exampleInputs["report.txt"]
	}
	return ""
}

// pipeline splits a shell command line into the words of each stage, as sh
// would for the simple lines of examples: single and double quotes, | between
// stages, a # comment at the end, redirections dropped.
func pipeline(line string) [][]string {
	var stages [][]string
	var words []string
	var word strings.Builder
	inWord := false
	var quote byte
	end := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			word.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			end()
		case c == '|':
			end()
			stages = append(stages, words)
			words = nil
		case c == '#' && !inWord:
			i = len(line)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	end()
	stages = append(stages, words)
	for i, s := range stages {
		kept := s[:0]
		for _, w := range s {
			if !strings.HasPrefix(w, ">") {
				kept = append(kept, w)
			}
		}
		stages[i] = kept
	}
	return stages
}

// TestReadmeTriageExample runs the README's triage example at 80 columns
// and compares what it prints with what the README shows.
func TestReadmeTriageExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "$ tilookup triage --sandbox docs/examples/report.txt"
	_, block, ok := strings.Cut(string(readme), prompt)
	if !ok {
		t.Fatalf("the README has no %q example", prompt)
	}
	_, block, _ = strings.Cut(block, "\n")
	want, _, _ := strings.Cut(block, "```")

	t.Setenv("TILOOKUP_PAGER", "cat")
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	ios, _, out, _ := iostreams.Test()
	ios.SetTTY(false, true, false)
	ios.SetTerminalWidth(80)
	ios.SetColorMode("never")
	if code := Run([]string{"triage", "--sandbox", "../../docs/examples/report.txt"}, ios); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := out.String(); got != want {
		t.Errorf("the README shows\n%s\nthe command prints\n%s", want, got)
	}
}
