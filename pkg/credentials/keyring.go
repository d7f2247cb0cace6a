package credentials

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// ServiceName is the keyring service every tilookup entry is stored under;
// the keyring user is the host key (see HostKey).
const ServiceName = "tilookup"

// DefaultKeyringTimeout bounds each keyring call (get, set, delete).
//
// A healthy keyring answers in milliseconds, and even the D-Bus activation of
// a gnome-keyring daemon that is not running yet takes well under a second.
// What does not answer at all is a Secret Service waiting on an unlock prompt
// that nobody will ever see (SSH sessions, WSL, containers, CI), and there
// the only useful thing is to stop and say so. 3s is long enough not to give
// up on a slow but working machine, and short enough that a user does not
// start wondering whether tilookup itself hung. It is the value gh uses for
// the same problem, so users of both see the same behaviour.
const DefaultKeyringTimeout = 3 * time.Second

// ErrNotFound is what a Keyring returns when it holds no entry for the
// service and user. It is go-keyring's own value, so SystemKeyring needs no
// translation and fakes in other packages need not import go-keyring.
var ErrNotFound = keyring.ErrNotFound

// Sentinels, reachable with errors.Is through the *failure.Error that every
// function here returns, so that callers (auth status, --debug) can tell the
// cases apart without parsing messages.
var (
	ErrNoToken            = errors.New("no token")
	ErrNotLoggedIn        = errors.New("not logged in")
	ErrEnvTokenSet        = errors.New("TILOOKUP_TOKEN is set")
	ErrInvalidToken       = errors.New("invalid token")
	ErrTokenTooLarge      = errors.New("token too large")
	ErrKeyringTimeout     = errors.New("keyring did not answer in time")
	ErrKeyringUnavailable = errors.New("no keyring service")
	ErrKeyringLocked      = errors.New("keyring locked")
	ErrKeyringDamaged     = errors.New("keyring entry damaged")
	ErrKeyringFailed      = errors.New("keyring failed")
)

// Keyring abstracts go-keyring so tests can inject blocking/failing providers.
// Get returns ErrNotFound when there is no entry.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// SystemKeyring returns the OS keyring as go-keyring reaches it: the Secret
// Service over D-Bus on Linux and the BSDs, the login keychain on macOS, the
// Credential Manager on Windows. keyring.MockInit in tests swaps what it
// reaches, which is why this forwards to the package functions at call time.
//
// Where the keyring is reached over D-Bus, a process without
// DBUS_SESSION_BUS_ADDRESS (ssh, cron, a container) gets ErrNoSessionBus
// without any D-Bus call: godbus would otherwise run dbus-launch, which
// starts a dbus-daemon and, through it, a gnome-keyring-daemon that
// outlive the process, a pair more on every run (gh has the same bug,
// cli/cli#7582). tilookup never starts a daemon.
func SystemKeyring() Keyring { return systemKeyring{busAddress: sessionBusAddress} }

func sessionBusAddress() string { return os.Getenv("DBUS_SESSION_BUS_ADDRESS") }

// errNoSessionBus is the cause of ErrKeyringUnavailable when there is no
// D-Bus session to reach the keyring through.
var errNoSessionBus = errors.New("DBUS_SESSION_BUS_ADDRESS is not set")

type systemKeyring struct {
	busAddress func() string // the session bus's address; "" = none
}

// usesDBus: go-keyring reaches the keyring over D-Bus everywhere but on
// macOS and Windows.
const usesDBus = runtime.GOOS != "darwin" && runtime.GOOS != "windows"

func (k systemKeyring) check() error {
	if usesDBus && k.busAddress() == "" {
		return errNoSessionBus
	}
	return nil
}

func (k systemKeyring) Get(service, user string) (string, error) {
	if err := k.check(); err != nil {
		return "", err
	}
	return keyring.Get(service, user)
}

func (k systemKeyring) Set(service, user, secret string) error {
	if err := k.check(); err != nil {
		return err
	}
	return keyring.Set(service, user, secret)
}

func (k systemKeyring) Delete(service, user string) error {
	if err := k.check(); err != nil {
		return err
	}
	return keyring.Delete(service, user)
}

// reasonError keeps both our classification and the provider's own error in
// the chain, so errors.Is works for either while the message stays ours.
type reasonError struct {
	reason error
	cause  error
}

func (e *reasonError) Error() string {
	if e.cause == nil {
		return e.reason.Error()
	}
	return e.reason.Error() + ": " + e.cause.Error()
}

func (e *reasonError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.reason}
	}
	return []error{e.reason, e.cause}
}

// errTimedOut is the internal cause of a timeout; it never reaches the user
// on its own.
var errTimedOut = errors.New("keyring call timed out")

const fallbackHint = "set TILOOKUP_TOKEN, or run `tilookup auth login --insecure-storage`"

// noSessionHint says how to give a token where no keyring can be: the
// file is the only place a token can be kept.
const noSessionHint = "set TILOOKUP_TOKEN, or keep the token in a file with `tilookup auth login --insecure-storage`"

// keyringError turns a provider error into one of our explanations. The
// provider's text alone is never enough: go-keyring on a headless Linux box
// reports `exec: "dbus-launch": executable file not found in $PATH`, which
// says nothing about tokens or what to do.
func keyringError(err error, timeout time.Duration) *failure.Error {
	reason := classify(err)
	var msg, hint string
	switch reason {
	case ErrKeyringTimeout:
		msg = fmt.Sprintf("the OS keyring did not answer within %s (is it locked?)", timeout)
		hint = fallbackHint
		err = nil // "keyring call timed out" adds nothing for --debug
	case ErrKeyringUnavailable:
		msg = unavailableMessage()
		hint = fallbackHint
		if errors.Is(err, errNoSessionBus) {
			msg = "no OS keyring here: there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), and tilookup starts none"
			hint = noSessionHint
		}
	case ErrKeyringLocked:
		msg = "the OS keyring is locked and no unlock prompt can be shown here"
		hint = "unlock it from a desktop session, " + fallbackHint
	case ErrTokenTooLarge:
		msg = "the OS keyring refused the token as too large"
		hint = "set TILOOKUP_TOKEN, or run `tilookup auth login --insecure-storage`"
	default:
		msg = "the OS keyring failed (" + oneLine(err.Error(), 160) + ")"
		hint = fallbackHint
	}
	return newError(failure.Config, reason, err, msg, hint)
}

func unavailableMessage() string {
	switch runtime.GOOS {
	case "darwin", "windows":
		return "the OS keyring is not available"
	default:
		return "no OS keyring is available (no D-Bus session bus, or no Secret Service such as gnome-keyring running on it)"
	}
}

// classify maps what go-keyring (and godbus under it) return onto our
// reasons. Most of these errors are plain strings or D-Bus error names, so
// matching text is the only portable way to recognise them.
func classify(err error) error {
	if errors.Is(err, errTimedOut) {
		return ErrKeyringTimeout
	}
	if errors.Is(err, keyring.ErrSetDataTooBig) {
		return ErrTokenTooLarge
	}
	// No session bus and no dbus-launch to start one; or no socket at the
	// address; or /usr/bin/security missing.
	if errors.Is(err, errNoSessionBus) || errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) ||
		errors.Is(err, syscall.ECONNREFUSED) {
		return ErrKeyringUnavailable
	}
	text := err.Error()
	if name := dbusErrorName(err); name != "" {
		// The D-Bus error name is not part of godbus's Error() text.
		text = name + ": " + text
	}
	for _, s := range lockedMarkers {
		if strings.Contains(text, s) {
			return ErrKeyringLocked
		}
	}
	for _, s := range unavailableMarkers {
		if strings.Contains(text, s) {
			return ErrKeyringUnavailable
		}
	}
	return ErrKeyringFailed
}

var unavailableMarkers = []string{
	"executable file not found",        // exec: "dbus-launch": ...
	"couldn't determine address",       // godbus without DBUS_SESSION_BUS_ADDRESS
	"org.freedesktop.DBus.Error.",      // ServiceUnknown, NameHasNoOwner, Spawn.*, NoServer, ...
	"was not provided by any .service", // the text of ServiceUnknown
	"org.freedesktop.Secret.Error.NoSuchObject",
	"Object does not exist at path", // no login collection and no default alias
	"connection refused",
	"no such file or directory",
	"dbus: authentication failed",
}

var lockedMarkers = []string{
	"failed to unlock correct collection", // go-keyring when the unlock prompt was dismissed
	"org.freedesktop.Secret.Error.IsLocked",
	"User interaction is not allowed", // macOS keychain locked over SSH
}

// dbusErrorName returns the name of a godbus Error (a struct with a Name
// field such as "org.freedesktop.DBus.Error.ServiceUnknown") anywhere in the
// chain. Reflection keeps godbus out of this package's imports: it is
// go-keyring's dependency, not ours, and absent from its macOS and Windows
// code paths.
func dbusErrorName(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				continue
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			continue
		}
		f := v.FieldByName("Name")
		if f.IsValid() && f.Kind() == reflect.String && strings.HasPrefix(f.String(), "org.freedesktop.") {
			return f.String()
		}
	}
	return ""
}

// oneLine makes a provider's text fit the one-line error rule.
func oneLine(s string, max int) string { return sanitize.Truncate(sanitize.Line(s), max) }

// call runs one keyring operation under the timeout. The goroutine of a call
// that never returns is abandoned: go-keyring offers no way to cancel a D-Bus
// call, and the process exits soon after anyway. The channel is buffered so
// that a late answer does not block it forever.
func call(timeout time.Duration, f func() (string, error)) (string, error) {
	type result struct {
		v   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- result{err: fmt.Errorf("keyring provider panicked: %v", p)}
			}
		}()
		v, err := f()
		ch <- result{v, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-t.C:
		return "", errTimedOut
	}
}

// scrub keeps a secret out of an error a provider might have built from its
// arguments; none of go-keyring's does today, but a fake or a future version
// could, and the token must never be printed.
func scrub(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), secret, "[redacted]"))
}
