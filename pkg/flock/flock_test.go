package flock

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestLockExcludesUntilReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	release, err := Lock(path, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Lock(path, 100*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("a second lock while the first is held: %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Fatalf("gave up after %s, before the timeout", d)
	}
	go func() { time.Sleep(50 * time.Millisecond); release() }()
	again, err := Lock(path, 5*time.Second)
	if err != nil {
		t.Fatalf("a lock waiting for the release: %v", err)
	}
	again()
}
