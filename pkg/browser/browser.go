// Package browser opens a URL in the user's web browser, as `gh browse`
// does: BROWSER first (a command, or several separated by ":" tried in
// turn, as in the sensible-browser convention), else the platform's opener
// (xdg-open, open, rundll32). When no browser can be started, the URL is
// printed instead, so that the user can copy it: never an error for that.
package browser

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Launcher starts a program and returns without waiting for the browser to
// close; tests replace it.
type Launcher func(name string, args ...string) error

// Browser opens URLs.
type Browser struct {
	Env    func(string) string // os.Getenv
	Launch Launcher
	Out    io.Writer // where the URL is printed when nothing can open it
	GOOS   string
}

// New returns a Browser for this process.
func New(out io.Writer) *Browser {
	return &Browser{Env: os.Getenv, Launch: start, Out: out, GOOS: runtime.GOOS}
}

func start(name string, args ...string) error {
	path, err := exec.LookPath(name)
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it; the browser outlives us
	return nil
}

// Open opens u, or prints it when no browser is available. opened says
// which happened. The URL is passed as one argument, never through a shell.
func (b *Browser) Open(u string) (opened bool, err error) {
	if strings.ContainsAny(u, "\x00\r\n") || strings.HasPrefix(u, "-") {
		return false, errors.New("refusing to open a malformed URL")
	}
	for _, c := range b.candidates() {
		args := append(c[1:len(c):len(c)], u)
		if err := b.Launch(c[0], args...); err == nil {
			return true, nil
		}
	}
	_, err = fmt.Fprintln(b.Out, u)
	return false, err
}

// candidates lists the commands to try, each as program and leading
// arguments. A BROWSER entry may hold "%s" where the URL goes (the
// convention's form); it is then dropped, as the URL is always last.
func (b *Browser) candidates() [][]string {
	var out [][]string
	if env := b.Env("BROWSER"); env != "" {
		for _, entry := range strings.Split(env, ":") {
			fields := strings.Fields(strings.ReplaceAll(entry, "%s", ""))
			if len(fields) > 0 {
				out = append(out, fields)
			}
		}
		return out
	}
	switch b.GOOS {
	case "darwin":
		return [][]string{{"open"}}
	case "windows":
		return [][]string{{"rundll32", "url.dll,FileProtocolHandler"}}
	}
	return [][]string{{"xdg-open"}, {"wslview"}}
}
