package cmdutil

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/failure"
)

// SilentError carries an exit code whose explanation was already printed
// (per-value errors in a stream, or -e with no match).
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return "exit status" }

// ExitWith returns nil for 0, else a SilentError with the code.
func ExitWith(code int) error {
	if code == failure.ExitOK {
		return nil
	}
	return &SilentError{Code: code}
}

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

// CodeError is an error reported as usual whose exit code is raised to
// Code: a stream that fails part-way still exits with the largest code of
// the values it did answer.
type CodeError struct {
	Err  error
	Code int
}

func (e *CodeError) Error() string { return e.Err.Error() }
func (e *CodeError) Unwrap() error { return e.Err }

// AtLeast returns err with its exit code raised to code when code is larger.
func AtLeast(err error, code int) error {
	if err == nil || code <= failure.ExitCode(err) {
		return err
	}
	return &CodeError{Err: err, Code: code}
}
