package browse

import (
	"context"
	"io"
	"os"

	tea "github.com/charmbracelet/bubbletea/v2"

	"github.com/tilookup/tilookup/pkg/browser"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// HasTerminal tells whether the browser can run: the screen is a
// terminal, and keys can be read from one (stdin, or /dev/tty when stdin
// is the document).
func HasTerminal(stdoutTTY, stdinTTY bool) bool {
	if !stdoutTTY {
		return false
	}
	if stdinTTY {
		return true
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	_ = tty.Close()
	return true
}

// NoTerminal is the usage error for a browser without a terminal.
func NoTerminal(what string) error {
	return cmdutil.UsageError("%s needs a terminal: stdout and the keyboard must be one (write -o json to a file and browse it there)", what)
}

// Run shows the browser on the terminal out (the process's stdout) until q; Ctrl-C is an interruption (exit 130).
// Bubble Tea restores the terminal on quit, on a signal and on a panic;
// when stdin is not a terminal (the document was piped), it reads the
// keys from the terminal itself.
func Run(ctx context.Context, doc *Document, opts Options, out io.Writer) error {
	m := New(doc, opts)
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithOutput(out), tea.WithAltScreen())
	if _, err := p.Run(); err != nil {
		if ctx.Err() != nil {
			return failure.Wrap(failure.Interrupted, err, "interrupted")
		}
		return err
	}
	if m.Interrupted {
		return failure.New(failure.Interrupted, "interrupted")
	}
	return nil
}

// OptionsFor are the browser's options for a command: colour as --color
// and NO_COLOR say, the project's browser launcher ($BROWSER, as --web),
// the project's exporters.
func OptionsFor(ios *iostreams.IOStreams, title string) Options {
	return Options{
		Color: ios.ColorEnabled(),
		Open: func(u string) string {
			// A URL no browser took is shown on the bottom line, not
			// printed over the screen.
			opened, err := browser.New(io.Discard).Open(u)
			switch {
			case err != nil:
				return "cannot open: " + err.Error()
			case !opened:
				return "no browser to open it; the URL: " + u
			}
			return "opened " + u
		},
		Export: func(name string, items []Item) (string, error) { return Export(name, title, items) },
	}
}
