//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// The token file is refused, at once and with a clear line, when others
// may read it, when it is not a regular file (a FIFO would block, a link
// to /dev/zero would fill the memory) and when it is too large.
func TestTokenFileRefused(t *testing.T) {
	dir := t.TempDir()
	token := "0123456789abcdef-token\n"
	write := func(name string, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, want string
	}{
		{write("world", token, 0o644), "permissions 0644 are too open"},
		{write("group", token, 0o640), "permissions 0640 are too open"},
		{write("big", token+strings.Repeat("x", maxTokenFile), 0o600), "larger than 4096 bytes"},
		{fifo, "not a regular file"},
		{zero, "not a regular file"},
		{dir, "not a regular file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := readToken(c.file); done <- err }()
		select {
		case err := <-done:
			if failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v, want a config error saying %q", filepath.Base(c.file), err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: reading the token file blocks", filepath.Base(c.file))
		}
	}
	if tok, err := readToken(write("ok", token, 0o600)); err != nil || tok != strings.TrimSpace(token) {
		t.Fatalf("a private token file: %q %v", tok, err)
	}
}
