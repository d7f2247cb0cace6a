// Package failure gives every error tilookup reports a kind, and maps kinds to
// the exit codes documented in the README. The code of one error is decided
// here (Kind.ExitCode), the code of a run over many values too (Tally); only
// pkg/cli turns the error a command returns into the process's exit code.
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
	Interrupted Kind = "interrupted"  // SIGINT, SIGTERM or SIGHUP
	IO          Kind = "io"           // reading input or writing output failed (disk full, a directory given as a file)
	// NotSent is a value a run did not send, because earlier values
	// showed that it could not succeed (a refused token, a service that
	// cannot be reached). Its exit code is that of the failure that
	// stopped the run: see NotSentBecause.
	NotSent Kind = "not_sent"
)

// Exit codes, as documented in the README and `tilookup help exit-codes`.
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

// WriteError is the one error of a failed write of the output (a closed
// pipe, a full disk): kind IO, exit 2 without a pointer to --help, and
// "cannot write the output: " before the reason. nil stays nil, and an
// error that already has a kind keeps it.
func WriteError(err error) error {
	if err == nil {
		return nil
	}
	var k Kinded
	if errors.As(err, &k) {
		return err
	}
	return Wrap(IO, err, "cannot write the output: "+err.Error())
}

// ExitCode returns the exit code for err (0 for nil).
func ExitCode(err error) int {
	var ns *notSent
	if errors.As(err, &ns) {
		return ns.why.ExitCode()
	}
	return KindOf(err).ExitCode()
}

// notSent is the error of a value never sent: its kind is NotSent, so
// that a record tells it from a value that was sent and failed, and its
// exit code is that of why, the failure that stopped the run (a refused
// token exits 4, an unreachable service 6).
type notSent struct {
	err *Error
	why Kind
}

func (e *notSent) Error() string     { return e.err.Error() }
func (e *notSent) FailureKind() Kind { return NotSent }

// NotSentBecause is the error of a value not sent because an earlier
// value failed with kind why.
func NotSentBecause(why Kind, msg, hint string) error {
	return &notSent{err: &Error{Kind: NotSent, Msg: msg, Hint: hint}, why: why}
}

// Reported is returned by a command whose failures are already on screen
// (the error records of a stream, the closing summary): the caller prints
// nothing more and exits with Code.
type Reported struct{ Code int }

func (e *Reported) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Raised is an error reported as usual whose exit code is raised to Code:
// a stream that fails part-way (a write error, an unreadable file) still
// exits with the largest code of the values it answered.
type Raised struct {
	Err  error
	Code int
}

func (e *Raised) Error() string { return e.Err.Error() }
func (e *Raised) Unwrap() error { return e.Err }

// Tally is the outcome of a run over several values, and the one place
// where their exit code is decided: the largest code of a failed value,
// else (with exitStatus, like grep -q) 0 when any value matched and 1 when
// none did.
type Tally struct {
	// Unsupported values are answers with no match and the service's
	// reason; they count as no match for the exit code.
	Matched, NoMatch, Unsupported, Failed int
	worst                                 int // the largest code of a failure seen
}

// Add counts one value: err is its failure, matched whether it had results.
func (t *Tally) Add(err error, matched bool) {
	switch {
	case err != nil:
		t.Failed++
		t.Raise(err)
	case matched:
		t.Matched++
	default:
		t.NoMatch++
	}
}

// AddUnsupported counts a value the service answered as unsupported.
func (t *Tally) AddUnsupported() { t.Unsupported++ }

// Counts is the outcome of the values counted, as every closing line
// words it: "2 matched, 1 no match, 1 unsupported, 0 failed".
func (t *Tally) Counts() string {
	return fmt.Sprintf("%d matched, %d no match, %d unsupported, %d failed", t.Matched, t.NoMatch, t.Unsupported, t.Failed)
}

// Raise takes a failure into the exit code without counting a value (an
// output error on one record).
func (t *Tally) Raise(err error) { t.RaiseCode(ExitCode(err)) }

// RaiseCode takes an exit code already decided (one host of auth status)
// into the run's: the largest wins, whatever the order.
func (t *Tally) RaiseCode(code int) { t.worst = max(t.worst, code) }

// Total is the number of values counted.
func (t *Tally) Total() int { return t.Matched + t.NoMatch + t.Unsupported + t.Failed }

// Code is the run's exit code. An error code (2-6, 130) wins over both
// match codes.
func (t *Tally) Code(exitStatus bool) int {
	if t.worst != ExitOK {
		return t.worst
	}
	if exitStatus && t.Matched == 0 {
		return ExitNoMatch
	}
	return ExitOK
}

// Err is what a command returns after the run: runErr (an input, output
// or interrupt error, to print) with its code raised to the tally's, or a
// Reported code, or nil.
func (t *Tally) Err(runErr error, exitStatus bool) error {
	code := t.Code(exitStatus)
	if runErr != nil {
		if code > ExitCode(runErr) {
			return &Raised{Err: runErr, Code: code}
		}
		return runErr
	}
	if code == ExitOK {
		return nil
	}
	return &Reported{Code: code}
}
