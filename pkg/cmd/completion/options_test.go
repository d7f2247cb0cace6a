package completion

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

func TestNewCmdFillsOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got []Options
	cmd := NewCmd(&cmdutil.Factory{IO: ios}, func(_ context.Context, o *Options) error { got = append(got, *o); return nil })
	for _, args := range [][]string{{"zsh", "--no-descriptions"}, {"install", "--shell", "fish"}} {
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(args, err)
		}
	}
	if len(got) != 2 || got[0].Shell != "zsh" || got[0].Descriptions || got[0].Install || got[0].Script == nil {
		t.Errorf("completion zsh: %+v", got)
	}
	if got[1].Shell != "fish" || !got[1].Install || !got[1].Descriptions {
		t.Errorf("completion install: %+v", got[1])
	}
}

func fakeScript(shell string, w io.Writer, descriptions bool) error {
	_, err := fmt.Fprintf(w, "script for %s, descriptions %v\n", shell, descriptions)
	return err
}

func TestRunPrintsScript(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	if err := run(&Options{IO: ios, Script: fakeScript, Shell: "bash"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "script for bash, descriptions false\n" {
		t.Errorf("got %q", out.String())
	}
}

func TestRunInstallsFish(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "cfg"))
	ios, _, out, _ := iostreams.Test()
	if err := run(&Options{IO: ios, Script: fakeScript, Shell: "fish", Descriptions: true, Install: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cfg", "fish", "completions", "tilookup.fish")
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "script for fish, descriptions true\n" {
		t.Errorf("installed %q, %v", data, err)
	}
	if !strings.Contains(out.String(), "Wrote the fish completion script to "+path) {
		t.Errorf("output %q", out.String())
	}
}
