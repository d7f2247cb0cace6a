package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
)

// ReadError names the file once, whatever wrapped the read's failure, and
// keeps an error that already has its kind.
func TestReadError(t *testing.T) {
	kinded := failure.New(failure.Usage, "already explained")
	for _, tc := range []struct {
		err  error
		msg  string
		kind failure.Kind
	}{
		{&os.PathError{Op: "read", Path: "/tmp", Err: errors.New("is a directory")}, "cannot read /tmp: is a directory", failure.IO},
		{fmt.Errorf("extract: %w", &fs.PathError{Op: "open", Path: "r.txt", Err: fs.ErrNotExist}), "cannot read r.txt: file does not exist", failure.IO},
		{errors.New("boom"), "cannot read the input: boom", failure.IO},
		{kinded, "already explained", failure.Usage},
	} {
		got := ReadError(tc.err)
		if got.Error() != tc.msg || failure.KindOf(got) != tc.kind {
			t.Errorf("ReadError(%v) = %q (%s), want %q (%s)", tc.err, got, failure.KindOf(got), tc.msg, tc.kind)
		}
	}
}
