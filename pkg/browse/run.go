package browse

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	tea "github.com/charmbracelet/bubbletea/v2"

	"github.com/tilookup/tilookup/pkg/browser"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/sanitize"
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
		Open:  func(u string) string { return open(browser.New(io.Discard), u) },
		Export: func(name string, items []Item, overwrite bool) (string, error) {
			return Export(name, title, items, overwrite)
		},
	}
}

// launchWait is how long a browser command is given to fail before it is
// taken as started: xdg-open and the like hand the URL over and exit at
// once; a browser that stays in the foreground is still running then.
const launchWait = 1500 * time.Millisecond

// open opens u with b and says what happened, for the bottom line: a URL
// no browser took is shown there, not printed over the screen, and a
// browser command that fails (BROWSER=false, a program not installed) is
// a failure, not "opened".
func open(b *browser.Browser, u string) string {
	var failed error
	b.Launch = func(name string, args ...string) error {
		err := launch(name, args...)
		if err != nil {
			failed = fmt.Errorf("%s: %w", name, err)
		}
		return err
	}
	opened, err := b.Open(u)
	switch {
	case err != nil:
		return "cannot open: " + err.Error()
	case opened:
		return "opened " + u
	case failed != nil:
		return "cannot open " + u + ": " + sanitize.Line(failed.Error())
	}
	return "no browser to open it; the URL: " + u
}

// launch starts a browser command, its output discarded and its input
// none (the keys stay the browser's), and waits launchWait for it to fail.
func launch(name string, args ...string) error {
	path, err := exec.LookPath(name)
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // reaped either way
	select {
	case err := <-done:
		return err
	case <-time.After(launchWait):
		return nil
	}
}
