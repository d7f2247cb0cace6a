package iostreams

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// DefaultPager is the pager when neither TILOOKUP_PAGER, the pager config
// key nor PAGER names one: -F quits when the output fits on one screen, -R
// passes colours and hyperlinks, -X leaves the output on the screen.
const DefaultPager = "less -FRX"

// ErrClosedPager is returned by writes after the user quit the pager: the
// rest of the output is not wanted, which is not a failure.
var ErrClosedPager = errors.New("pager closed")

type pagerState struct {
	command  string // "" until SetPager; "cat" or "-" for none
	disabled bool   // --no-pager
	proc     *exec.Cmd
	pipe     io.WriteCloser
	origOut  io.Writer
}

// SetPager records the configured pager command (TILOOKUP_PAGER or the
// pager config key, already resolved by the caller). Empty falls back to
// PAGER, then DefaultPager.
func (s *IOStreams) SetPager(cmd string) { s.pager.command = cmd }

// DisablePager records --no-pager.
func (s *IOStreams) DisablePager() { s.pager.disabled = true }

// PagerCommand is the pager StartPager would run, "" for none.
func (s *IOStreams) PagerCommand() string {
	if s.pager.disabled {
		return ""
	}
	cmd := strings.TrimSpace(s.pager.command)
	if cmd == "" {
		cmd = strings.TrimSpace(s.env("PAGER"))
	}
	if cmd == "" {
		cmd = DefaultPager
	}
	if cmd == "cat" || cmd == "-" {
		return ""
	}
	return cmd
}

// StartPager sends Out through the pager until StopPager, when stdout is a
// terminal and a pager is wanted; otherwise it does nothing. The command is
// split on spaces (no shell quoting). A pager that cannot be started is an
// error the caller may report and then go on without one: Out is unchanged.
func (s *IOStreams) StartPager() error {
	cmdline := s.PagerCommand()
	if !s.stdoutTTY || cmdline == "" || s.pager.proc != nil {
		return nil
	}
	args := strings.Fields(cmdline)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = pagerEnv(os.Environ())
	cmd.Stdout = s.Out
	if s.terminal != nil {
		cmd.Stdout = s.terminal
	}
	cmd.Stderr = s.ErrOut
	pipe, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	s.pager.proc, s.pager.pipe, s.pager.origOut = cmd, pipe, s.Out
	s.Out = &pagerWriter{pipe}
	return nil
}

// StopPager closes the pager's input and waits for the user to quit it, then
// restores Out. It does nothing when no pager runs.
func (s *IOStreams) StopPager() {
	if s.pager.proc == nil {
		return
	}
	_ = s.pager.pipe.Close()
	_ = s.pager.proc.Wait()
	s.Out = s.pager.origOut
	s.pager.proc, s.pager.pipe, s.pager.origOut = nil, nil, nil
}

// pagerEnv drops PAGER, so that a pager that itself looks at it does not
// start itself again, and sets less's and lv's flags when the user has not.
func pagerEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	hasLess, hasLV := false, false
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "PAGER="):
			continue
		case strings.HasPrefix(kv, "LESS="):
			hasLess = true
		case strings.HasPrefix(kv, "LV="):
			hasLV = true
		}
		out = append(out, kv)
	}
	if !hasLess {
		out = append(out, "LESS=FRX")
	}
	if !hasLV {
		out = append(out, "LV=-c")
	}
	return out
}

// pagerWriter turns the broken pipe of a pager the user quit into
// ErrClosedPager.
type pagerWriter struct{ io.WriteCloser }

func (w *pagerWriter) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	if err != nil && (errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)) {
		return n, ErrClosedPager
	}
	return n, err
}
