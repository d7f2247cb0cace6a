package cmdutil

import "github.com/tilookup/tilookup/pkg/failure"

// ArgError is a mistake on the command line: a flag, an argument, a
// subcommand. It is the one kind of error whose message points to the
// command's --help; a usage error found later (a --jq expression failing on
// a record, a token too large) does not.
type ArgError struct{ err *failure.Error }

// ArgErrorf returns an ArgError of kind failure.Usage.
func ArgErrorf(format string, args ...any) *ArgError {
	return &ArgError{failure.New(failure.Usage, format, args...)}
}

func (e *ArgError) Error() string             { return e.err.Error() }
func (e *ArgError) Unwrap() error             { return e.err }
func (e *ArgError) FailureKind() failure.Kind { return failure.Usage }
