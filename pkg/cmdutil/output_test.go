package cmdutil

import (
	"testing"

	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

func TestOutputOptionsFromTerminal(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ios.SetTTY(false, true, false)
	ios.SetTerminalWidth(100)
	ios.SetEnv(map[string]string{"COLORTERM": "truecolor"})
	f := &Factory{IO: ios}
	f.Override("output", "table")
	opts, err := OutputOptions(f, "search", "")
	if err != nil {
		t.Fatal(err)
	}
	if opts.Width != 100 || !opts.Color || !opts.Hyperlinks || !opts.TTY || opts.Format != output.Table {
		t.Errorf("options = %+v", opts)
	}

	ios.SetTTY(false, false, false)
	opts, _ = OutputOptions(f, "search", ".x")
	if opts.Width != 0 || opts.Color || opts.Hyperlinks || opts.Format != output.JSON {
		t.Errorf("piped options = %+v", opts)
	}
}
