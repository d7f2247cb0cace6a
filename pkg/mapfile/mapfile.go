// Package mapfile maps a file into memory to be read: extract reads a
// large report where it lies in the page cache instead of copying it into
// buffers of its own (docs/PERFORMANCE.md).
package mapfile

import (
	"errors"
	"os"
)

// ErrUnsupported is Map's error where files cannot be mapped (not a
// platform with mmap, or not a regular file).
var ErrUnsupported = errors.ErrUnsupported

// Map maps f's contents, read-only, and returns them with the function
// that unmaps them; f may be closed meanwhile. Reading the mapping past
// the end of a file that shrank since faults: read it where such a fault
// is recovered (ioc.ExtractText does). An empty file is ErrUnsupported:
// there is nothing to map.
func Map(f *os.File) ([]byte, func() error, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() || st.Size() == 0 || int64(int(st.Size())) != st.Size() {
		return nil, nil, ErrUnsupported
	}
	return mmap(f, int(st.Size()))
}

// Release gives back the pages of data[:n], data a mapping Map returned,
// that lie wholly within it: they leave the process's memory (they stay
// in the page cache, and reading them again maps them again), so that
// searching a file of gigabytes does not count them all as the process's
// own. Where it cannot be done it does nothing.
func Release(data []byte, n int) {
	n -= n % os.Getpagesize()
	if n > 0 {
		release(data[:n])
	}
}
