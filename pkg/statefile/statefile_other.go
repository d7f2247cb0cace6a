//go:build !unix

package statefile

import "os"

// openNoFollow: without O_NOFOLLOW, a link is refused by Lstat first;
// the mode check after the open catches what was swapped in between.
func openNoFollow(name string) (*os.File, error) {
	st, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: name, Err: ErrNotRegular}
	}
	return os.Open(name)
}

func isLoop(error) bool { return false }

// checkOwner: ownership and POSIX modes do not describe Windows ACLs; the
// user's profile directory is private by default.
func checkOwner(string, os.FileInfo) error { return nil }
