//go:build unix

package flock

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// A lock file put there as a link would have tilookup create or lock a
// file elsewhere: it is refused.
func TestLockRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, "x.lock")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(link, time.Second); failure.ExitCode(err) != 3 {
		t.Fatalf("a link as the lock file: %v, want a config failure", err)
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Fatalf("the link's target was created: %v", err)
	}
}
