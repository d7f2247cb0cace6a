package config

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/flock"
)

// LockTimeout bounds the wait for another tilookup process that is
// writing the config file. A write takes milliseconds; a wait this long
// means a process is stuck (a hung keyring call inside `auth login`).
var LockTimeout = 10 * time.Second

// lockPath is the lock file beside the config file (see pkg/flock).
func lockPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // two links to one file share one lock
	}
	return path + ".lock"
}

// lock takes the exclusive lock on the config file at path, waiting up to
// LockTimeout; the returned function releases it.
func lock(path string) (func(), error) {
	lp := lockPath(path)
	if err := os.MkdirAll(filepath.Dir(lp), 0o700); err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot create "+filepath.Dir(lp)+": "+err.Error())
	}
	release, err := flock.Lock(lp, LockTimeout)
	if errors.Is(err, flock.ErrTimeout) {
		return nil, failure.New(failure.Config, "another tilookup process has held %s for %s; nothing was written", lp, LockTimeout).
			WithHint("wait for it to finish (a hung `auth login` waiting for the keyring?) and try again")
	}
	return release, err
}
