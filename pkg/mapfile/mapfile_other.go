//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package mapfile

import "os"

func mmap(*os.File, int) ([]byte, func() error, error) { return nil, nil, ErrUnsupported }
