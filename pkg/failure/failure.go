// Package failure gives every error tilookup reports a kind, and maps kinds to
// the exit codes documented in the interface contract. It is the one place
// where an exit code is decided.
package failure

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the user should do about it.
type Kind string

const (
	Usage       Kind = "usage"        // bad flags or arguments
	Input       Kind = "input"        // a value rejected locally (empty, control characters, too long)
	BadRequest  Kind = "bad_request"  // the service answered 400
	Config      Kind = "config"       // no base URL, no token, or a URL that would leak the token
	Auth        Kind = "auth"         // 401
	Forbidden   Kind = "forbidden"    // 403
	NotFound    Kind = "not_found"    // 404
	RateLimited Kind = "rate_limited" // 429 after every retry
	Server      Kind = "server"       // 5xx
	Network     Kind = "network"      // connection refused, reset, DNS, TLS
	Timeout     Kind = "timeout"      // the per-request or overall deadline passed
	Decode      Kind = "decode"       // a response that could not be read as the spec says
	NoMatch     Kind = "no_match"     // nothing matched, reported only with --exit-status
	Interrupted Kind = "interrupted"  // SIGINT or SIGTERM
	IO          Kind = "io"           // reading input or writing output failed (disk full, a directory given as a file)
)

// Exit codes, as documented in the README and shared/interface.md.
const (
	ExitOK          = 0
	ExitNoMatch     = 1
	ExitUsage       = 2
	ExitConfig      = 3
	ExitAuth        = 4
	ExitNotFound    = 5
	ExitService     = 6
	ExitInterrupted = 130
)

// ExitCode maps a kind to its process exit code.
func (k Kind) ExitCode() int {
	switch k {
	case "":
		return ExitOK
	case NoMatch:
		return ExitNoMatch
	case Usage, Input, BadRequest, IO:
		return ExitUsage
	case Config:
		return ExitConfig
	case Auth, Forbidden:
		return ExitAuth
	case NotFound:
		return ExitNotFound
	case Interrupted:
		return ExitInterrupted
	default: // RateLimited, Server, Network, Timeout, Decode and anything unknown
		return ExitService
	}
}

// Error is an error with a kind and an optional hint saying what to do next.
type Error struct {
	Kind Kind
	Msg  string
	Hint string // "what to do", appended after the message
	Err  error  // the cause, if any
}

func (e *Error) Error() string {
	s := e.Msg
	if s == "" && e.Err != nil {
		s = e.Err.Error()
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Kinded is implemented by errors that know their kind (failure.Error,
// api.APIError).
type Kinded interface {
	error
	FailureKind() Kind
}

func (e *Error) FailureKind() Kind { return e.Kind }

// New returns an error of the given kind with a formatted message.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an error of kind k that explains err with msg.
func Wrap(k Kind, err error, msg string) *Error {
	return &Error{Kind: k, Msg: msg, Err: err}
}

// WithHint sets the hint and returns e, for chaining.
func (e *Error) WithHint(h string) *Error { e.Hint = h; return e }

// KindOf returns the kind of err. An error of no known kind comes from flag
// or argument parsing (cobra), so it counts as a usage error.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var k Kinded
	if errors.As(err, &k) {
		return k.FailureKind()
	}
	return Usage
}

// ExitCode returns the exit code for err (0 for nil).
func ExitCode(err error) int { return KindOf(err).ExitCode() }

// Max returns the larger of two exit codes, the rule for several queries.
func Max(a, b int) int {
	if b > a {
		return b
	}
	return a
}
