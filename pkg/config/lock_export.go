package config

import "os"

// ErrLocked is TryLock's answer when another process holds the lock.
var ErrLocked = errLocked

// TryLock takes the config file's kind of lock (flock, LockFileEx) on f
// without waiting, for the other files that tilookup serialises
// (pkg/statefile): one locking rule in one place.
func TryLock(f *os.File) error { return tryLock(f) }

// Unlock releases TryLock's lock.
func Unlock(f *os.File) { unlock(f) }
