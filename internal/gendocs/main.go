// Command gendocs writes the files that ship in release archives and are
// generated from the command tree: the completion scripts in completions/,
// the man pages in docs/man/ and the Markdown command docs in docs/md/.
// They are committed; TestGeneratedFilesAreCurrent fails when they are stale.
//
//	go generate ./internal/gendocs   (or go generate ./...)
package main

//go:generate go run . -root ../..

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/tilookup/tilookup/pkg/cli"
	"github.com/tilookup/tilookup/pkg/cmd/completion"
)

// The generated folders, relative to the repository root. Each is emptied
// and rewritten as a whole, so that a removed command leaves no page behind.
var outputs = []struct {
	dir string
	gen func(root *cobra.Command, dir string) error
}{
	{"completions", genCompletions},
	{filepath.Join("docs", "man"), genMan},
	{filepath.Join("docs", "md"), genMarkdown},
}

func main() {
	root := flag.String("root", ".", "the repository root to write into")
	flag.Parse()
	if err := generate(*root); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func generate(repoRoot string) error {
	for _, o := range outputs {
		dir := filepath.Join(repoRoot, o.dir)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		// A fresh tree each time: the generators initialise help commands
		// and flags on what they are given.
		if err := o.gen(cli.NewRootCmdForDocs(), dir); err != nil {
			return fmt.Errorf("%s: %w", o.dir, err)
		}
	}
	return nil
}

var completionFiles = map[string]string{
	"bash":       "tilookup.bash",
	"zsh":        "tilookup.zsh",
	"fish":       "tilookup.fish",
	"powershell": "tilookup.ps1",
}

func genCompletions(root *cobra.Command, dir string) error {
	for _, shell := range completion.Shells {
		var buf bytes.Buffer
		if err := completion.Script(root, shell, &buf, true); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, completionFiles[shell]), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// thDate is the date field of a man page's .TH line. cobra fills it with the
// month of generation; it is emptied so that regenerating an unchanged tree
// gives the same bytes in any month.
var thDate = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*" )"[^"]*"`)

func genMan(root *cobra.Command, dir string) error {
	header := &doc.GenManHeader{Title: "TILOOKUP", Section: "1", Source: "tilookup", Manual: "tilookup manual"}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root || c.IsAdditionalHelpTopicCommand() {
			return nil
		}
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		h := *header
		h.Title = strings.ToUpper(strings.ReplaceAll(c.CommandPath(), " ", "-"))
		var buf bytes.Buffer
		if err := doc.GenMan(c, &h, &buf); err != nil {
			return err
		}
		page := thDate.ReplaceAll(buf.Bytes(), []byte(`$1""`))
		page = addSections(page)
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		return os.WriteFile(filepath.Join(dir, name), page, 0o644)
	}
	return walk(root)
}

// addSections puts EXIT STATUS and ENVIRONMENT, which cobra does not
// write, before SEE ALSO, where man-pages(7) has them: every command
// exits and reads the environment by the same rules.
func addSections(page []byte) []byte {
	var b bytes.Buffer
	b.WriteString(".SH EXIT STATUS\n.PP\n" + roff(cli.ExitCodesIntro) + "\n")
	for _, e := range cli.ExitCodes() {
		b.WriteString(".TP\n\\fB" + roff(e.Name) + "\\fP\n" + roff(e.Text) + "\n")
	}
	b.WriteString(".PP\n" + roff(cli.ExitCodesOutro) + "\n\n\n")
	b.WriteString(".SH ENVIRONMENT\n.PP\n" + roff(cli.EnvironmentIntro) + "\n")
	for _, e := range cli.Environment() {
		b.WriteString(".TP\n\\fB" + roff(e.Name) + "\\fP\n" + roff(e.Text) + "\n")
	}
	b.WriteString("\n\n")
	at := bytes.Index(page, []byte(".SH SEE ALSO"))
	if at < 0 {
		at = len(page)
	}
	return append(page[:at:at], append(b.Bytes(), page[at:]...)...)
}

// roff escapes text for a man page: backslashes and hyphens, and a dot or
// quote that would start a request. Line breaks are filled like spaces.
func roff(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func genMarkdown(root *cobra.Command, dir string) error {
	return doc.GenMarkdownTree(root, dir)
}
