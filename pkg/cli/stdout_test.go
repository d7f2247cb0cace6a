package cli

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// fullWriter fails every write the way /dev/full does.
type fullWriter struct{ calls int }

func (w *fullWriter) Write([]byte) (int, error) {
	w.calls++
	return 0, &writeError{syscall.ENOSPC}
}

type writeError struct{ err error }

func (e *writeError) Error() string { return "write /dev/stdout: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

func TestWriteErrorsExit2OnEveryCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(dir, "config.yaml"))
	t.Setenv("TILOOKUP_TOKEN", "tok-write-test")
	t.Setenv("TILOOKUP_BASE_URL", "http://127.0.0.1:1")
	for _, args := range [][]string{
		{"version"}, {"--help"}, {"help", "search"}, {"auth", "token"},
		{"auth", "status", "--no-check"}, {"config", "get", "base_url"}, {"config", "path"},
		{"config", "list"}, {"completion", "bash"}, {"detect", "192.0.2.1"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ios, _, _, errOut := iostreams.Test()
			full := &fullWriter{}
			ios.Out = full
			code := Run(args, ios)
			if code != failure.ExitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, failure.ExitUsage, errOut)
			}
			if want := "tilookup: cannot write the output: write /dev/stdout: no space left on device\n"; errOut.String() != want {
				t.Errorf("stderr %q, want %q", errOut, want)
			}
			if full.calls == 0 {
				t.Error("the command wrote nothing, so the test proves nothing")
			}
		})
	}
}

func TestStdoutCheck(t *testing.T) {
	ok := &stdout{w: &strings.Builder{}}
	if _, err := ok.Write([]byte("x")); err != nil || ok.check(nil) != nil {
		t.Fatal("a good write must not fail the run")
	}
	bad := &stdout{w: &fullWriter{}}
	_, _ = bad.Write([]byte("x"))
	if n, err := bad.Write([]byte("y")); n != 0 || err == nil {
		t.Error("writes after the first failure must be refused")
	}
	service := failure.New(failure.Server, "search: 503")
	if got := bad.check(service); got != service {
		t.Errorf("a service error was replaced: %v", got)
	}
	got := bad.check(errors.New("unknown flag"))
	if failure.KindOf(got) != failure.IO || !errors.Is(got, syscall.ENOSPC) {
		t.Errorf("check = %v (%s), want the write error", got, failure.KindOf(got))
	}
}
