// Package statefile is the one place where tilookup keeps files that
// outlive a run (the answer cache, the watch state) safe from another
// local user and from accidents: directories 0700 that must belong to the
// user and be writable by nobody else (refused as ssh refuses a key),
// files opened without following links, regular files only, read with a
// size bound, and writes that are atomic (write, fsync, rename, fsync of
// the directory).
package statefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/flock"
)

// ErrTooLarge is returned by ReadFile for a file over its bound.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is returned by ReadFile for a link, a FIFO, a device or a
// directory where a file was expected.
var ErrNotRegular = errors.New("not a regular file")

// UnsafeDirError says why a directory is refused; it names the fix.
type UnsafeDirError struct {
	Dir    string
	Reason string
	Fix    string
}

func (e *UnsafeDirError) Error() string {
	return fmt.Sprintf("refusing to use %s: %s; %s", e.Dir, e.Reason, e.Fix)
}

// FailureKind: an unsafe directory is the user's setup to fix (exit 3).
func (e *UnsafeDirError) FailureKind() failure.Kind { return failure.Config }

// EnsureDir creates dir (and its missing parents) with mode 0700, then
// checks that dir is a directory, not a link, owned by this user, and
// writable by nobody else. A directory that already existed is not
// chmod-ed behind the user's back: it is refused with the command to run.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return failure.Wrap(failure.Config, err, "cannot create "+dir+": "+err.Error())
	}
	return CheckDir(dir)
}

// CheckDir checks an existing directory as EnsureDir does.
func CheckDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return failure.Wrap(failure.Config, err, "cannot use "+dir+": "+err.Error())
	}
	if !st.IsDir() {
		return &UnsafeDirError{Dir: dir, Reason: "it is not a directory (a symbolic link?)", Fix: "remove it, and tilookup creates a directory of its own"}
	}
	return checkOwner(dir, st)
}

// Open opens name for reading without following a final symbolic link
// and without waiting on a FIFO; anything but a regular file is
// ErrNotRegular. A missing file is an error for which os.IsNotExist holds.
func Open(name string) (*os.File, os.FileInfo, error) {
	f, err := openNoFollow(name)
	if err != nil {
		if isLoop(err) {
			return nil, nil, fmt.Errorf("%s: %w (a symbolic link)", name, ErrNotRegular)
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	return f, st, nil
}

// ReadFile reads a regular file of at most max bytes, as Open opens it.
// A file that grows past max while it is read is ErrTooLarge too.
func ReadFile(name string, max int64) ([]byte, error) {
	f, st, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, at most %d)", name, ErrTooLarge, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", name, ErrTooLarge, max)
	}
	return b, nil
}

// WriteFile replaces name atomically with what write produces: a
// temporary file in the same directory, written, synced, closed and
// renamed over name, then the directory synced, so that a crash or a
// SIGKILL at any point leaves either the old file or the new one, whole.
func WriteFile(name string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = write(tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable. Not every platform can sync a
// directory; the rename is atomic all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// Lock takes the exclusive lock on the file path.lock (created 0600
// beside path), waiting at most timeout; release frees it. It is
// pkg/flock's lock, which the system drops when the process dies, so a
// SIGKILL never leaves it held. what names the holder in the error ("the
// watch list case-42").
func Lock(path string, timeout time.Duration, what string) (release func(), err error) {
	lp := path + ".lock"
	release, err = flock.Lock(lp, timeout)
	if errors.Is(err, flock.ErrTimeout) {
		return nil, failure.New(failure.Config, "%s is in use by another tilookup process (waited %s for %s)", what, timeout, lp).
			WithHint("let the other run finish, or run this one later")
	}
	return release, err
}
