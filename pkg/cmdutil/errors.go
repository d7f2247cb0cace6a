package cmdutil

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/failure"
)

// UsageError is a mistake on the command line, with a one-line message.
func UsageError(format string, args ...any) error {
	return ArgErrorf(format, args...)
}

// ExactArgs is cobra.ExactArgs with a message that says what is expected.
func ExactArgs(n int, what string) func(*cobra.Command, []string) error {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return UsageError("expected %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}

// CannotRead is the usage error for an input file that cannot be opened:
// the file's name once, and the reason without the *PathError's repetition.
func CannotRead(name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return failure.Wrap(failure.IO, err, fmt.Sprintf("cannot read %s: %v", name, err))
}

// ReadError explains a failed read of the inputs of extract, triage or
// browse once, naming the file: "cannot read /tmp: is a directory", not
// the *PathError's "read /tmp: is a directory" again. An error that
// already has its kind is kept: pkg/triage's reader explains its own (a
// binary file, an HTML token too long).
func ReadError(err error) error {
	var k failure.Kinded
	if errors.As(err, &k) {
		return err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return CannotRead(pe.Path, pe.Err)
	}
	return CannotRead("the input", err)
}

// OpenInput opens a file of values or text to read, and refuses a
// directory at once: os.Open takes one, and its first read would fail
// only after the values before it were looked up. The error is
// CannotRead's.
func OpenInput(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, CannotRead(name, err)
	}
	if st, err := f.Stat(); err != nil || st.IsDir() {
		f.Close()
		if err == nil {
			err = errors.New("is a directory")
		}
		return nil, CannotRead(name, err)
	}
	return f, nil
}
