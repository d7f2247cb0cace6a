// Package flock is tilookup's one file lock, for the files that processes
// of tilookup rewrite (the config file, a watch list's state): an
// exclusive lock on a lock file beside the file it guards, taken with
// flock (LockFileEx on Windows) and waited for up to a deadline. The
// operating system drops it when the process dies, so a crash or a
// SIGKILL never leaves it held.
//
// The lock file is a file of its own because the guarded file is replaced
// by rename on every write, and a lock on a replaced file guards nothing.
package flock

import (
	"errors"
	"os"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// ErrTimeout is Lock's answer when another process held the lock for the
// whole wait. The caller says what was held, and by whom, in its words.
var ErrTimeout = errors.New("the lock is held by another process")

// errLocked is tryLock's answer when another process holds the lock.
var errLocked = errors.New("locked")

// maxPoll caps the pause between two tries: the holders write for
// milliseconds, so a waiter should notice the release soon after.
const maxPoll = 5 * time.Millisecond

// Lock opens the lock file at path (created 0600; never through a final
// symbolic link, where the platform can refuse one: a lock file is
// tilookup's own) and takes its exclusive lock, waiting at most timeout;
// release frees it. A lock still held at the deadline is ErrTimeout; a
// file that cannot be opened or locked is a failure.Config.
func Lock(path string, timeout time.Duration) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot open the lock file: "+err.Error())
	}
	deadline := time.Now().Add(timeout)
	for wait := time.Millisecond; ; wait = min(wait*2, maxPoll) {
		err = tryLock(f)
		if err == nil {
			return func() { unlock(f); f.Close() }, nil
		}
		if !errors.Is(err, errLocked) {
			f.Close()
			return nil, failure.Wrap(failure.Config, err, "cannot lock "+path+": "+err.Error())
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, ErrTimeout
		}
		time.Sleep(wait)
	}
}
