//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package mapfile

import (
	"os"
	"syscall"
)

func mmap(f *os.File, size int) ([]byte, func() error, error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	advise(data)
	return data, func() error { return syscall.Munmap(data) }, nil
}
