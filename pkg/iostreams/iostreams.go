// Package iostreams holds the process's standard streams and what is known
// about them: whether each is a terminal, whether colour is wanted, and the
// width. Commands write through it so that tests can swap in buffers.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams is the terminal a command talks to.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	colorMode                      string // auto, always, never
	noColorEnv                     bool
	colorEnv                       envColor // CLICOLOR, CLICOLOR_FORCE
	stdinFd                        int
}

// System returns the process's own streams. It only asks the OS whether each
// stream is a terminal (one ioctl each), so it is cheap enough for start-up.
func System() *IOStreams {
	_, noColor := os.LookupEnv("NO_COLOR")
	return &IOStreams{
		In:         os.Stdin,
		Out:        os.Stdout,
		ErrOut:     os.Stderr,
		stdinTTY:   term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY:  term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY:  term.IsTerminal(int(os.Stderr.Fd())),
		colorMode:  "auto",
		noColorEnv: noColor && os.Getenv("NO_COLOR") != "",
		colorEnv:   colorFromEnv(os.Getenv("CLICOLOR"), os.Getenv("CLICOLOR_FORCE")),
		stdinFd:    int(os.Stdin.Fd()),
	}
}

// Test returns streams backed by buffers, none of them a terminal.
func Test() (ios *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, colorMode: "auto", stdinFd: -1}, in, out, errOut
}

// SetTTY marks the streams as terminals or not; for tests.
func (s *IOStreams) SetTTY(stdin, stdout, stderr bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = stdin, stdout, stderr
}

func (s *IOStreams) IsStdinTTY() bool  { return s.stdinTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetColorMode records --color: auto, always or never.
func (s *IOStreams) SetColorMode(mode string) { s.colorMode = mode }

// ColorEnabled reports whether stdout gets colour: always wins, never and a
// non-empty NO_COLOR (https://no-color.org) lose; then CLICOLOR_FORCE (not
// 0) gives colour and CLICOLOR=0 takes it away (https://bixense.com/clicolors),
// as gh reads them; else auto follows the terminal.
func (s *IOStreams) ColorEnabled() bool {
	switch s.colorMode {
	case "always":
		return true
	case "never":
		return false
	}
	switch {
	case s.noColorEnv:
		return false
	case s.colorEnv == colorForced:
		return true
	case s.colorEnv == colorOff:
		return false
	}
	return s.stdoutTTY
}

// envColor is what CLICOLOR and CLICOLOR_FORCE ask for.
type envColor int

const (
	colorAuto envColor = iota
	colorForced
	colorOff
)

func colorFromEnv(clicolor, force string) envColor {
	switch {
	case force != "" && force != "0":
		return colorForced
	case clicolor == "0":
		return colorOff
	}
	return colorAuto
}

// ReadPassword reads a line from the terminal on stdin without echo.
func (s *IOStreams) ReadPassword() ([]byte, error) {
	return term.ReadPassword(s.stdinFd)
}

// TerminalWidth is stdout's width, or 80 when it is not a terminal.
func (s *IOStreams) TerminalWidth() int {
	if f, ok := s.Out.(*os.File); ok && s.stdoutTTY {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}
