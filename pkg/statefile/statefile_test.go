//go:build unix

package statefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "ok")
	os.WriteFile(regular, []byte("hello"), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	link := filepath.Join(dir, "link")
	os.Symlink(regular, link)
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 2000), 0o600)

	if b, err := ReadFile(regular, 100); err != nil || string(b) != "hello" {
		t.Fatalf("regular file: %q, %v", b, err)
	}
	tests := []struct {
		name string
		path string
		want error
	}{
		{"a FIFO (would block)", fifo, ErrNotRegular},
		{"a link to /dev/zero (would never end)", zero, ErrNotRegular},
		{"a link to a regular file", link, ErrNotRegular},
		{"a directory", dir, ErrNotRegular},
		{"a file over the bound", big, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ReadFile(tt.path, 1000); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile hangs")
			}
		})
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestEnsureDirRefusesAnUnsafeDirectory(t *testing.T) {
	base := t.TempDir()
	fresh := filepath.Join(base, "a", "b")
	if err := EnsureDir(fresh); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o700 {
		t.Fatalf("created with mode %o, want 0700", st.Mode().Perm())
	}
	for _, mode := range []os.FileMode{0o777, 0o770, 0o722} {
		d := filepath.Join(base, "m"+mode.String())
		os.Mkdir(d, 0o700)
		os.Chmod(d, mode)
		err := EnsureDir(d)
		var ue *UnsafeDirError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "chmod 700") {
			t.Errorf("mode %o: err = %v, want a refusal naming chmod 700", mode, err)
		}
	}
	target := filepath.Join(base, "target")
	os.Mkdir(target, 0o700)
	linked := filepath.Join(base, "linked")
	os.Symlink(target, linked)
	if err := CheckDir(linked); err == nil {
		t.Error("a link to a directory was accepted")
	}
}

func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	os.WriteFile(path, []byte("old"), 0o600)
	err := WriteFile(path, 0o600, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("the write's error was lost")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("a failed write left %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("a failed write left a temporary file: %v", ents)
	}
	if err := WriteFile(path, 0o600, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("got %q mode %o", b, st.Mode().Perm())
	}
}

func TestLockWaitsThenFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x")
	release, err := Lock(path, time.Second, "the list x")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = Lock(path, 200*time.Millisecond, "the list x")
	if err == nil || !strings.Contains(err.Error(), "the list x is in use") {
		t.Fatalf("second lock: %v", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 3*time.Second {
		t.Fatalf("waited %s", d)
	}
	go func() { time.Sleep(100 * time.Millisecond); release() }()
	r2, err := Lock(path, 5*time.Second, "the list x")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	r2()
}
