//go:build unix

package flock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

const noFollow = unix.O_NOFOLLOW

func tryLock(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

func unlock(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
