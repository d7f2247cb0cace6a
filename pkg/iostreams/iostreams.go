// Package iostreams holds the process's standard streams and what is known
// about them: whether each is a terminal, whether colour and hyperlinks are
// wanted, the width, and the pager. Commands write through it so that tests
// can swap in buffers.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// IOStreams is the terminal a command talks to.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	// stdoutPipe: stdout is a pipe or a socket, whose reader is another
	// program (less, head, fzf) that may share the terminal.
	stdoutPipe bool
	colorMode  string // auto, always, never
	stdinFd    int
	// terminal is the process's stdout, for the pager: Out may be wrapped
	// (pkg/cli records write errors), and a pager handed a wrapper would
	// write to a pipe, not the terminal, and page nothing.
	terminal *os.File
	getenv   func(string) string
	// termWidth asks the terminal for stdout's width; nil when there is no
	// terminal to ask (tests).
	termWidth func() (int, error)

	pager pagerState
}

// System returns the process's own streams. It only asks the OS whether each
// stream is a terminal (one ioctl each), so it is cheap enough for start-up;
// the width is asked for when a printer needs it.
func System() *IOStreams {
	return &IOStreams{
		In:         os.Stdin,
		Out:        os.Stdout,
		ErrOut:     os.Stderr,
		stdinTTY:   term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY:  term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY:  term.IsTerminal(int(os.Stderr.Fd())),
		stdoutPipe: isPipe(os.Stdout),
		colorMode:  "auto",
		stdinFd:    int(os.Stdin.Fd()),
		terminal:   os.Stdout,
		getenv:     os.Getenv,
		termWidth: func() (int, error) {
			w, _, err := term.GetSize(int(os.Stdout.Fd()))
			return w, err
		},
	}
}

// Test returns streams backed by buffers, none of them a terminal, with an
// empty environment (see SetEnv).
func Test() (ios *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	ios = &IOStreams{In: in, Out: out, ErrOut: errOut, colorMode: "auto", stdinFd: -1,
		getenv: func(string) string { return "" }}
	return ios, in, out, errOut
}

// isPipe costs one fstat, as cheap as the terminal checks.
func isPipe(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0
}

// SetStdoutPipe marks stdout as a pipe to another program or not; for tests.
func (s *IOStreams) SetStdoutPipe(pipe bool) { s.stdoutPipe = pipe }

// ProgressAllowed is the one rule for drawing a progress bar on stderr: a
// person is at the terminal (stderr is one), and no other program can be
// drawing on it. That is never so when stdout is a pipe: its reader may be
// a pager that owns the screen (`| less`), or end early and leave the bar
// behind (`| head -1`). gh draws progress only when stdout and stderr are
// both terminals; a bulk run into a file (`search -f big.txt >
// out.ndjson`), the main bulk use, keeps its bar here. stdoutTTY says
// whether the caller wants a bar when stdout is the terminal too: a
// document printed at the end does, a stream whose rows show the progress
// does not.
func (s *IOStreams) ProgressAllowed(stdoutTTY bool) bool {
	if !s.stderrTTY || s.stdoutPipe {
		return false
	}
	return stdoutTTY || !s.stdoutTTY
}

// SetTTY marks the streams as terminals or not; for tests.
func (s *IOStreams) SetTTY(stdin, stdout, stderr bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = stdin, stdout, stderr
}

// SetEnv replaces the environment the streams consult (NO_COLOR, COLUMNS,
// TERM, PAGER...); for tests.
func (s *IOStreams) SetEnv(env map[string]string) {
	s.getenv = func(k string) string { return env[k] }
}

// SetTerminalWidth makes the terminal report width w; for tests.
func (s *IOStreams) SetTerminalWidth(w int) {
	s.termWidth = func() (int, error) { return w, nil }
}

func (s *IOStreams) IsStdinTTY() bool  { return s.stdinTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

func (s *IOStreams) env(k string) string {
	if s.getenv == nil {
		return ""
	}
	return s.getenv(k)
}

// SetColorMode records --color: auto, always or never.
func (s *IOStreams) SetColorMode(mode string) { s.colorMode = mode }

// ColorEnabled reports whether stdout gets colour, in gh's order: --color
// always or never decides; then CLICOLOR_FORCE (set, not "0") forces it on
// even when piped; then NO_COLOR (non-empty, https://no-color.org),
// CLICOLOR=0 (https://bixense.com/clicolors/) and TERM=dumb turn it off;
// otherwise colour follows whether stdout is a terminal.
func (s *IOStreams) ColorEnabled() bool {
	switch s.colorMode {
	case "always":
		return true
	case "never":
		return false
	}
	if v := s.env("CLICOLOR_FORCE"); v != "" && v != "0" {
		return true
	}
	if s.env("NO_COLOR") != "" || s.env("CLICOLOR") == "0" || s.isDumb() {
		return false
	}
	return s.stdoutTTY
}

func (s *IOStreams) isDumb() bool { return s.env("TERM") == "dumb" }

// HyperlinksEnabled reports whether stdout may carry OSC 8 hyperlinks. A
// terminal that declares true colour (COLORTERM or TERM naming truecolor or
// 24bit) is taken as one recent enough to handle them, as are the terminals
// known to support them that do not say so (iTerm2, VS Code, WezTerm,
// Ghostty, kitty, Windows Terminal, VTE 0.50+, Konsole); an older terminal
// would print the link's text and drop the target, so nothing is lost.
// FORCE_HYPERLINK=1 turns them on and FORCE_HYPERLINK=0 off, as in the
// supports-hyperlinks convention. Never when stdout is not a terminal or
// TERM=dumb: a pipe or a dumb terminal would show the escape codes.
func (s *IOStreams) HyperlinksEnabled() bool {
	if !s.stdoutTTY || s.isDumb() {
		return false
	}
	switch s.env("FORCE_HYPERLINK") {
	case "0":
		return false
	case "":
	default:
		return true
	}
	for _, v := range []string{s.env("COLORTERM"), s.env("TERM")} {
		if strings.Contains(v, "truecolor") || strings.Contains(v, "24bit") {
			return true
		}
	}
	switch s.env("TERM_PROGRAM") {
	case "iTerm.app", "vscode", "WezTerm", "ghostty":
		return true
	}
	if s.env("WT_SESSION") != "" || s.env("KITTY_WINDOW_ID") != "" || s.env("KONSOLE_VERSION") != "" {
		return true
	}
	vte, err := strconv.Atoi(s.env("VTE_VERSION"))
	return err == nil && vte >= 5000
}

// TerminalWidth is the width output must fit in: 0 when stdout is not a
// terminal (nothing is cut then), else COLUMNS when it is a positive number,
// else the terminal's own width, else 80.
func (s *IOStreams) TerminalWidth() int {
	if !s.stdoutTTY {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(s.env("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if s.termWidth != nil {
		if w, err := s.termWidth(); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// ReadPassword reads a line from the terminal on stdin without echo.
func (s *IOStreams) ReadPassword() ([]byte, error) {
	return term.ReadPassword(s.stdinFd)
}
