package credentials

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// PermProblem says, in one line, why a file holding a token is exposed:
// readable by others, or in a directory others can write to (they could
// swap the file). "" when it is fine, or on Windows, where the mode bits
// do not describe the ACLs. ssh refuses such key files; tilookup warns, on
// every use, because refusing would break a CI job over a umask.
func PermProblem(path string) string {
	if runtime.GOOS == "windows" || path == "" {
		return ""
	}
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return fmt.Sprintf("%s holds a token and is accessible by others (mode %04o); run `chmod 600 %s`", path, m, path)
	}
	dir := filepath.Dir(path)
	if dst, err := os.Stat(dir); err == nil && dst.Mode().Perm()&0o022 != 0 && dst.Mode()&os.ModeSticky == 0 {
		return fmt.Sprintf("%s holds a token and its directory %s is writable by others (mode %04o); run `chmod 700 %s`", path, dir, dst.Mode().Perm(), dir)
	}
	return ""
}
