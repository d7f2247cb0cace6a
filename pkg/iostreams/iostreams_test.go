package iostreams

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func streams(tty bool, env map[string]string) *IOStreams {
	s, _, _, _ := Test()
	s.SetTTY(false, tty, false)
	s.SetEnv(env)
	return s
}

func TestColorEnabled(t *testing.T) {
	for _, tt := range []struct {
		name string
		tty  bool
		mode string
		env  map[string]string
		want bool
	}{
		{"terminal", true, "auto", nil, true},
		{"pipe", false, "auto", nil, false},
		{"NO_COLOR", true, "auto", map[string]string{"NO_COLOR": "1"}, false},
		{"empty NO_COLOR is unset", true, "auto", map[string]string{"NO_COLOR": ""}, true},
		{"CLICOLOR=0", true, "auto", map[string]string{"CLICOLOR": "0"}, false},
		{"CLICOLOR=1", true, "auto", map[string]string{"CLICOLOR": "1"}, true},
		{"TERM=dumb", true, "auto", map[string]string{"TERM": "dumb"}, false},
		{"CLICOLOR_FORCE on a pipe", false, "auto", map[string]string{"CLICOLOR_FORCE": "1"}, true},
		{"CLICOLOR_FORCE=0", false, "auto", map[string]string{"CLICOLOR_FORCE": "0"}, false},
		{"CLICOLOR_FORCE beats NO_COLOR (gh)", true, "auto", map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, true},
		{"--color never beats CLICOLOR_FORCE", true, "never", map[string]string{"CLICOLOR_FORCE": "1"}, false},
		{"--color always beats NO_COLOR and a pipe", false, "always", map[string]string{"NO_COLOR": "1", "TERM": "dumb"}, true},
	} {
		s := streams(tt.tty, tt.env)
		s.SetColorMode(tt.mode)
		if got := s.ColorEnabled(); got != tt.want {
			t.Errorf("%s: ColorEnabled = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestHyperlinksEnabled(t *testing.T) {
	for _, tt := range []struct {
		name string
		tty  bool
		env  map[string]string
		want bool
	}{
		{"truecolor terminal", true, map[string]string{"COLORTERM": "truecolor"}, true},
		{"iTerm2", true, map[string]string{"TERM_PROGRAM": "iTerm.app"}, true},
		{"VTE 0.50", true, map[string]string{"VTE_VERSION": "5000"}, true},
		{"old VTE", true, map[string]string{"VTE_VERSION": "4200"}, false},
		{"plain xterm", true, map[string]string{"TERM": "xterm"}, false},
		{"forced", true, map[string]string{"FORCE_HYPERLINK": "1"}, true},
		{"forced off", true, map[string]string{"FORCE_HYPERLINK": "0", "COLORTERM": "truecolor"}, false},
		{"pipe", false, map[string]string{"COLORTERM": "truecolor", "FORCE_HYPERLINK": "1"}, false},
		{"dumb", true, map[string]string{"TERM": "dumb", "FORCE_HYPERLINK": "1"}, false},
	} {
		if got := streams(tt.tty, tt.env).HyperlinksEnabled(); got != tt.want {
			t.Errorf("%s: HyperlinksEnabled = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTerminalWidth(t *testing.T) {
	s := streams(true, nil)
	s.SetTerminalWidth(132)
	if w := s.TerminalWidth(); w != 132 {
		t.Errorf("tty width = %d", w)
	}
	s.SetEnv(map[string]string{"COLUMNS": "90"})
	if w := s.TerminalWidth(); w != 90 {
		t.Errorf("COLUMNS does not override: %d", w)
	}
	s.SetEnv(map[string]string{"COLUMNS": "wide"})
	if w := s.TerminalWidth(); w != 132 {
		t.Errorf("a bad COLUMNS is not ignored: %d", w)
	}
	s.SetTerminalWidth(0)
	if w := s.TerminalWidth(); w != 80 {
		t.Errorf("unknown terminal width = %d, want 80", w)
	}
	piped := streams(false, map[string]string{"COLUMNS": "90"})
	if w := piped.TerminalWidth(); w != 0 {
		t.Errorf("piped width = %d, want 0 (nothing cut)", w)
	}
}

func TestPagerCommand(t *testing.T) {
	for _, tt := range []struct {
		configured string
		env        map[string]string
		want       string
	}{
		{"", nil, "less -FRX"},
		{"", map[string]string{"PAGER": "more"}, "more"},
		{"most -s", map[string]string{"PAGER": "more"}, "most -s"},
		{"cat", nil, ""},
		{"", map[string]string{"PAGER": "cat"}, ""},
	} {
		s := streams(true, tt.env)
		s.SetPager(tt.configured)
		if got := s.PagerCommand(); got != tt.want {
			t.Errorf("SetPager(%q) env %v: %q, want %q", tt.configured, tt.env, got, tt.want)
		}
	}
	s := streams(true, nil)
	s.DisablePager()
	if got := s.PagerCommand(); got != "" {
		t.Errorf("--no-pager: %q", got)
	}
}

// TestPagerRuns pipes output through a real pager program (cat into a
// file stands in for less) and checks that StopPager waits for it.
func TestPagerRuns(t *testing.T) {
	tee, err := exec.LookPath("tee")
	if err != nil {
		t.Skip("no tee")
	}
	file := t.TempDir() + "/paged"
	s := streams(true, nil)
	var screen bytes.Buffer
	s.Out = &screen
	s.SetPager(tee + " " + file)
	if err := s.StartPager(); err != nil {
		t.Fatal(err)
	}
	if s.Out == io.Writer(&screen) {
		t.Fatal("Out not redirected")
	}
	io.WriteString(s.Out, "page one\n")
	s.StopPager()
	if s.Out != io.Writer(&screen) {
		t.Error("Out not restored")
	}
	got, _ := os.ReadFile(file)
	if string(got) != "page one\n" || screen.String() != "page one\n" {
		t.Errorf("pager got %q, screen %q", got, screen.String())
	}

	// Not a terminal: no pager at all.
	piped := streams(false, nil)
	piped.SetPager(tee + " " + file)
	if err := piped.StartPager(); err != nil || piped.pager.proc != nil {
		t.Errorf("pager started on a pipe: %v", err)
	}
}

// TestPagerQuit: writes after the user quit the pager report
// ErrClosedPager, which callers treat as success.
func TestPagerQuit(t *testing.T) {
	if _, err := exec.LookPath("true"); err != nil {
		t.Skip("no true")
	}
	s := streams(true, nil)
	s.SetPager("true")
	if err := s.StartPager(); err != nil {
		t.Fatal(err)
	}
	s.pager.proc.Wait()
	var werr error
	for i := 0; i < 100 && werr == nil; i++ {
		_, werr = io.WriteString(s.Out, strings.Repeat("x", 4096))
	}
	if !errors.Is(werr, ErrClosedPager) {
		t.Errorf("write after quit: %v", werr)
	}
	s.pager.pipe.Close()
	s.pager.proc = nil // already waited for
}

func TestPagerMissing(t *testing.T) {
	s := streams(true, nil)
	s.SetPager("/nonexistent/pager")
	out := s.Out
	if err := s.StartPager(); err == nil {
		t.Error("a missing pager started")
	}
	if s.Out != out {
		t.Error("Out changed after a failed start")
	}
}

func TestProgressAllowed(t *testing.T) {
	tests := []struct {
		name                     string
		stdoutTTY, stderrTTY     bool
		pipe, wantAtTTY, wantBar bool
	}{
		{"search -f big.txt > out.ndjson", false, true, false, true, true},
		{"search -f big.txt | less", false, true, true, false, false},
		{"search -f big.txt | head -1", false, true, true, false, false},
		{"at a terminal: rows or a document", true, true, false, true, false},
		{"2>log", false, false, false, false, false},
		{"CI: 2>&1 | tee", false, false, true, false, false},
	}
	for _, tt := range tests {
		ios, _, _, _ := Test()
		ios.SetTTY(false, tt.stdoutTTY, tt.stderrTTY)
		ios.SetStdoutPipe(tt.pipe)
		if got := ios.ProgressAllowed(true); got != tt.wantAtTTY {
			t.Errorf("%s: ProgressAllowed(document) = %v", tt.name, got)
		}
		if got := ios.ProgressAllowed(false); got != tt.wantBar {
			t.Errorf("%s: ProgressAllowed(stream) = %v", tt.name, got)
		}
	}
}

// A real pipe is told from a real file.
func TestIsPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "out.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !isPipe(w) || isPipe(f) {
		t.Fatalf("isPipe(pipe) = %v, isPipe(file) = %v", isPipe(w), isPipe(f))
	}
}
