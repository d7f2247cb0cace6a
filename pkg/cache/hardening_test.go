//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// entryPath makes the shard of key and returns where its entry lives.
func entryPath(t *testing.T, c *Cache, key string) string {
	p := c.path(hashKey(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEntryThatIsNotAFileIsAMissAtOnce(t *testing.T) {
	for _, kind := range []string{"fifo", "dev-zero", "link", "huge"} {
		t.Run(kind, func(t *testing.T) {
			c := Open(Options{Dir: t.TempDir(), MaxEntry: 1 << 20})
			p := entryPath(t, c, "k")
			switch kind {
			case "fifo":
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Fatal(err)
				}
			case "dev-zero":
				os.Symlink("/dev/zero", p)
			case "link":
				// A good entry elsewhere, linked in: still refused.
				other := Open(Options{Dir: t.TempDir()})
				other.Put("k", []byte(`{}`), time.Hour)
				os.Symlink(other.path(hashKey("k")), p)
			case "huge":
				f, _ := os.Create(p)
				f.Truncate(2 << 20)
				f.Close()
			}
			done := make(chan bool, 1)
			go func() { _, ok := c.Get("k"); done <- ok }()
			select {
			case ok := <-done:
				if ok {
					t.Fatal("a hit")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Get hangs")
			}
		})
	}
}

func TestUnsafeCacheDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	c := Open(Options{Dir: dir})
	if err := c.Put("k", []byte(`{"results":[]}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	c = Open(Options{Dir: dir})
	if err := c.Check(); err == nil {
		t.Fatal("a world-writable cache directory was accepted")
	}
	if _, ok := c.Get("k"); ok {
		t.Fatal("an entry was read from a world-writable directory")
	}
	if err := c.Put("k2", []byte(`{}`), time.Hour); err == nil {
		t.Fatal("an entry was written to a world-writable directory")
	}
	if _, _, err := c.Clear(0); err == nil {
		t.Fatal("clear went on in a world-writable directory")
	}
	// A shard that others can write is not used either.
	os.Chmod(dir, 0o700)
	c = Open(Options{Dir: dir})
	os.Chmod(filepath.Dir(c.path(hashKey("k"))), 0o777)
	if _, ok := c.Get("k"); ok {
		t.Fatal("an entry was read from a world-writable shard")
	}
	if err := c.Put("k", []byte(`{}`), time.Hour); err == nil {
		t.Fatal("an entry was written to a world-writable shard")
	}
}

func TestClearRemovesOnlyEntries(t *testing.T) {
	dir := t.TempDir()
	c := Open(Options{Dir: dir})
	c.Put("k", []byte(`{"results":[]}`), time.Hour)
	shard := filepath.Dir(c.path(hashKey("k")))
	notes := filepath.Join(shard, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o600)
	// An entry's name, not an entry's content.
	lookalike := filepath.Join(shard, "00000000000000000000000000000000000000000000000000000000000000")
	os.WriteFile(lookalike, []byte("mine too"), 0o600)
	n, _, err := c.Clear(0)
	if err != nil || n != 1 {
		t.Fatalf("Clear: %d, %v; want 1 entry", n, err)
	}
	for _, p := range []string{notes, lookalike} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
	if _, err := os.Stat(c.path(hashKey("k"))); err == nil {
		t.Error("the entry is still there")
	}
}
