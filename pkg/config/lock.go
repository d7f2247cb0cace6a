package config

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// LockTimeout bounds the wait for another tilookup process that is
// writing the config file. A write takes milliseconds; a wait this long
// means a process is stuck (a hung keyring call inside `auth login`).
var LockTimeout = 10 * time.Second

// errLocked is returned by tryLock when another process holds the lock.
var errLocked = errors.New("locked")

// lockPath is the lock file beside the config file. It is a separate file
// because the config file itself is replaced by rename on every write, and
// a lock on a replaced file guards nothing.
func lockPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // two links to one file share one lock
	}
	return path + ".lock"
}

// lock takes the exclusive lock on the config file at path, waiting up to
// LockTimeout; the returned function releases it. The operating system
// drops the lock when the process dies, so a crash never leaves it held.
func lock(path string) (func(), error) {
	lp := lockPath(path)
	if err := os.MkdirAll(filepath.Dir(lp), 0o700); err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot create "+filepath.Dir(lp)+": "+err.Error())
	}
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot open the lock file: "+err.Error())
	}
	deadline := time.Now().Add(LockTimeout)
	for wait := time.Millisecond; ; wait = min(wait*2, 5*time.Millisecond) {
		err = tryLock(f)
		if err == nil {
			return func() { unlock(f); f.Close() }, nil
		}
		if !errors.Is(err, errLocked) {
			f.Close()
			return nil, failure.Wrap(failure.Config, err, "cannot lock "+lp+": "+err.Error())
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, failure.New(failure.Config, "another tilookup process has held %s for %s; nothing was written", lp, LockTimeout).
				WithHint("wait for it to finish (a hung `auth login` waiting for the keyring?) and try again")
		}
		time.Sleep(wait)
	}
}
