//go:build unix

package statefile

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNoFollow opens without following a final link (ELOOP), and with
// O_NONBLOCK so that a FIFO put where a file was expected is refused by
// the mode check instead of blocking the open (and with it SIGTERM's
// handling) until a writer appears.
func openNoFollow(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func isLoop(err error) bool { return errors.Is(err, unix.ELOOP) }

// checkOwner refuses a directory owned by another user, or one that the
// group or others can write: either could replace an entry under us.
func checkOwner(dir string, st os.FileInfo) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if ok && int(sys.Uid) != os.Geteuid() {
		return &UnsafeDirError{Dir: dir, Reason: fmt.Sprintf("it is owned by another user (uid %d)", sys.Uid),
			Fix: "remove it or point XDG_STATE_HOME / XDG_CACHE_HOME elsewhere"}
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		return &UnsafeDirError{Dir: dir, Reason: fmt.Sprintf("it is writable by others (mode %04o)", perm),
			Fix: "run: chmod 700 " + dir}
	}
	return nil
}
