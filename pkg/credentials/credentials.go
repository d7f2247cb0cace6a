// Package credentials finds and stores tilookup's bearer tokens.
//
// The lookup order lives here: TILOOKUP_TOKEN, then the OS keyring entry for
// the host (service "tilookup", user = HostKey of the base URL), then, only
// for hosts the user stored with `auth login --insecure-storage`, the config
// file. Which host a token may be sent to is decided with the configuration:
// config.Endpoints says whether the events host is paired with the search
// host, and EventsToken honours it.
//
// Every keyring call runs under a timeout, because the Secret Service can
// wait forever for an unlock prompt no one will see; every keyring failure is
// explained in our words with the provider's error kept as the cause. No
// error built here ever contains a token.
package credentials

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// EnvToken is the environment variable that overrides every stored token.
const EnvToken = "TILOOKUP_TOKEN"

// Source says where a token came from.
type Source string

const (
	SourceEnv     Source = "env"     // TILOOKUP_TOKEN
	SourceKeyring Source = "keyring" // the OS keyring
	SourceConfig  Source = "config"  // the config file (insecure storage, opted into)
)

// FileStore is the opt-in plaintext storage in the config file; the config
// package implements it and writes the file with mode 0600.
type FileStore interface {
	Token(host string) (string, bool)
	SetToken(host, token string) error
	DeleteToken(host string) error
	Path() string    // for the warning naming the file
	Hosts() []string // hosts with a token in the file, for messages
}

// Store looks tokens up and stores them. The zero value is ready to use.
// A Store is safe for concurrent use; it must not be copied after first use.
type Store struct {
	Getenv  func(string) string // os.Getenv by default (injectable for tests)
	Keyring Keyring             // SystemKeyring() by default
	File    FileStore           // may be nil
	Timeout time.Duration       // per keyring call; DefaultKeyringTimeout when <= 0
	// Warn prints a warning on stderr; nil drops warnings. A token read
	// from a file that others can read is warned about on every run.
	Warn func(string)
	// Configured lists the hosts of every base URL in the config file,
	// so that "no token for HOST" can name those that do have one.
	Configured func() []string

	mu sync.Mutex
	// cache holds one keyring read per host, "not found" and failures
	// included: a D-Bus round trip costs milliseconds, a locked keyring a
	// whole Timeout, and a bulk search asks for the token many times.
	cache map[string]*lookup
	// down is set once the keyring timed out or turned out not to exist,
	// so that the next host does not wait another Timeout for the same
	// answer.
	down *failure.Error
	// permOnce checks the file's mode once per Store, on its first use.
	permOnce sync.Once
}

type lookup struct {
	once  sync.Once
	token string
	err   error // nil, ErrNotFound, or a *failure.Error
}

func (s *Store) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

func (s *Store) keyring() Keyring {
	if s.Keyring != nil {
		return s.Keyring
	}
	return SystemKeyring()
}

func (s *Store) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultKeyringTimeout
}

// newError builds the *failure.Error every exported function returns: our
// message, with the reason sentinel and the provider's cause both reachable
// through errors.Is / errors.As.
func newError(k failure.Kind, reason, cause error, msg, hint string) *failure.Error {
	return &failure.Error{Kind: k, Msg: msg, Hint: hint, Err: &reasonError{reason: reason, cause: cause}}
}

// noToken is the error for a host with no token anywhere. It names the
// hosts that do have one (a typo in base_url, the wrong profile) and the
// command that stores one the way this user stores tokens.
func (s *Store) noToken(host string) error {
	msg := "no token for " + host
	if others := s.hostsWithToken(host); len(others) > 0 {
		msg += " (tokens are stored for " + strings.Join(others, ", ") + ")"
	}
	login := "tilookup auth login --host " + host
	if s.usesFile() {
		login += " --insecure-storage"
	}
	return newError(failure.Config, ErrNoToken, nil, msg,
		"run `"+login+"`, or set "+EnvToken)
}

// usesFile reports whether the user keeps tokens in the config file.
func (s *Store) usesFile() bool { return s.File != nil && len(s.File.Hosts()) > 0 }

// hostsWithToken lists the other hosts known to hold a token: those in the
// file, and configured hosts whose keyring entry exists (the keyring cannot
// be listed portably). A keyring that is down is not asked again.
func (s *Store) hostsWithToken(except string) []string {
	var hosts []string
	if s.File != nil {
		hosts = append(hosts, s.File.Hosts()...)
	}
	if s.Configured != nil {
		for _, h := range s.Configured() {
			if h == except || slices.Contains(hosts, h) || s.isDown() != nil {
				continue
			}
			if _, err := s.keyringToken(h); err == nil {
				hosts = append(hosts, h)
			}
		}
	}
	hosts = slices.DeleteFunc(hosts, func(h string) bool { return h == except })
	slices.Sort(hosts)
	return slices.Compact(hosts)
}

// envToken reports TILOOKUP_TOKEN; set but blank counts as unset, as in gh.
func (s *Store) envToken() (string, bool, error) {
	v := strings.TrimSpace(s.getenv(EnvToken))
	if v == "" {
		return "", false, nil
	}
	t, err := normalizeToken(v)
	if err != nil {
		var fe *failure.Error
		msg := "TILOOKUP_TOKEN does not hold a valid token"
		if errors.As(err, &fe) {
			msg = EnvToken + ": " + fe.Msg
		}
		return "", true, newError(failure.Config, ErrInvalidToken, nil, msg,
			"set it to the token alone, or unset it to use the stored token")
	}
	return t, true, nil
}

// Token returns the token for host (a HostKey result) and where it came from.
// Env wins and then the keyring is never touched. The keyring is read at most
// once per host per Store. A keyring that fails or hangs does not hide a token
// the user stored in the config file.
//
// No token anywhere: a *failure.Error of kind failure.Config whose message
// names `tilookup auth login` and TILOOKUP_TOKEN (errors.Is ErrNoToken).
func (s *Store) Token(host string) (token string, src Source, err error) {
	if t, ok, err := s.envToken(); err != nil {
		return "", "", err
	} else if ok {
		return t, SourceEnv, nil
	}
	h, err := checkHost(host)
	if err != nil {
		return "", "", err
	}
	return s.stored(h)
}

// EventsToken returns the token for the events host: its own entry when one
// exists, else, only when the events host is paired with the search host
// (configured in the same scope, see config.Endpoints), the search host's
// token. An unpaired events host belongs to another environment, and the
// search host's token must never reach it.
func (s *Store) EventsToken(eventsHost, searchHost string, paired bool) (token string, src Source, err error) {
	if t, ok, err := s.envToken(); err != nil {
		return "", "", err
	} else if ok {
		return t, SourceEnv, nil
	}
	eh, err := checkHost(eventsHost)
	if err != nil {
		return "", "", err
	}
	t, src, err := s.stored(eh)
	if err == nil || searchHost == "" || searchHost == eh {
		return t, src, err
	}
	if !paired {
		if errors.Is(err, ErrNoToken) {
			return "", "", newError(failure.Config, ErrNoToken, nil,
				"no token for the events host "+eh+", and the token of "+searchHost+" is not sent there: events_base_url is not configured in the same scope as base_url",
				"set events_base_url beside base_url (in the same profile), or run `tilookup auth login --host "+eh+"`")
		}
		return "", "", err
	}
	sh, err2 := checkHost(searchHost)
	if err2 != nil {
		return "", "", err2
	}
	t2, src2, err2 := s.stored(sh)
	if err2 == nil || errors.Is(err, ErrNoToken) {
		return t2, src2, err2
	}
	// The keyring failed for the events host and nothing else helped:
	// that failure is the one to explain.
	return "", "", err
}

// stored looks in the keyring, then in the file.
func (s *Store) stored(host string) (string, Source, error) {
	kt, kerr := s.keyringToken(host)
	if kerr == nil {
		return kt, SourceKeyring, nil
	}
	if s.File != nil {
		if ft, ok := s.File.Token(host); ok && strings.TrimSpace(ft) != "" {
			t, err := normalizeToken(ft)
			if err != nil {
				return "", "", newError(failure.Config, ErrInvalidToken, nil,
					"the token stored for "+host+" in "+s.File.Path()+" is not valid",
					"run `tilookup auth login --host "+host+"` again")
			}
			s.permOnce.Do(func() { s.warnPerm() })
			return t, SourceConfig, nil
		}
	}
	// A user who keeps tokens in the file has no use for "the keyring is
	// unavailable": the news is that this host has no token there.
	if errors.Is(kerr, ErrNotFound) || (s.usesFile() && keyringAbsent(kerr)) {
		return "", "", s.noToken(host)
	}
	return "", "", kerr
}

// keyringAbsent reports a keyring that is not there or does not answer, as
// opposed to one that answered with a problem (locked, damaged).
func keyringAbsent(err error) bool {
	return errors.Is(err, ErrKeyringUnavailable) || errors.Is(err, ErrKeyringTimeout)
}

func (s *Store) warnPerm() {
	if s.Warn == nil {
		return
	}
	if msg := PermProblem(s.File.Path()); msg != "" {
		s.Warn(msg)
	}
}

func (s *Store) entry(host string) *lookup {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]*lookup{}
	}
	l := s.cache[host]
	if l == nil {
		l = &lookup{}
		s.cache[host] = l
	}
	return l
}

// remember replaces what the cache knows about host after a write.
func (s *Store) remember(host, token string, err error) {
	l := &lookup{}
	l.once.Do(func() { l.token, l.err = token, err })
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]*lookup{}
	}
	s.cache[host] = l
}

func (s *Store) forget(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cache, host)
}

// keyringToken returns the cached keyring answer for host, reading it on
// first use. Concurrent callers for one host wait for the single read.
func (s *Store) keyringToken(host string) (string, error) {
	l := s.entry(host)
	l.once.Do(func() {
		l.token, l.err = s.readKeyring(host)
	})
	return l.token, l.err
}

func (s *Store) readKeyring(host string) (string, error) {
	v, err := s.kget(host)
	if err != nil {
		return "", err
	}
	info, split, perr := parseHeader(v)
	if !split {
		// Another client (secret-tool, a script) may have stored it
		// with a trailing newline.
		t, err := normalizeToken(v)
		if err != nil {
			return "", newError(failure.Config, ErrInvalidToken, nil,
				"the OS keyring entry for "+host+" does not hold a valid token",
				"run `tilookup auth login --host "+host+"` again")
		}
		return t, nil
	}
	if perr != nil {
		return "", damaged(host, perr)
	}
	var b strings.Builder
	b.WriteString(info.first)
	for i := 2; i <= info.n; i++ {
		part, err := s.kget(chunkUser(host, i))
		if errors.Is(err, ErrNotFound) {
			return "", damaged(host, fmt.Errorf("part %d of %d is missing", i, info.n))
		}
		if err != nil {
			return "", err
		}
		b.WriteString(part)
	}
	t := b.String()
	if len(t) != info.size || checksum(t) != info.sum {
		return "", damaged(host, fmt.Errorf("the %d parts do not add up to the stored token", info.n))
	}
	return t, nil
}

func damaged(host string, cause error) error {
	return newError(failure.Config, ErrKeyringDamaged, cause,
		"the token stored in the OS keyring for "+host+" is incomplete",
		"run `tilookup auth login --host "+host+"` again")
}

// kget, kset and kdel are the only places the keyring is called. They return
// nil, ErrNotFound, or a *failure.Error explaining the failure.
func (s *Store) kget(user string) (string, error) {
	if err := s.isDown(); err != nil {
		return "", err
	}
	v, err := call(s.timeout(), func() (string, error) { return s.keyring().Get(ServiceName, user) })
	if err == nil && v == "" {
		err = ErrNotFound
	}
	if err != nil {
		return "", s.explain(err, "")
	}
	return v, nil
}

func (s *Store) kset(user, secret string) error {
	if err := s.isDown(); err != nil {
		return err
	}
	_, err := call(s.timeout(), func() (string, error) { return "", s.keyring().Set(ServiceName, user, secret) })
	return s.explain(err, secret)
}

func (s *Store) kdel(user string) error {
	if err := s.isDown(); err != nil {
		return err
	}
	_, err := call(s.timeout(), func() (string, error) { return "", s.keyring().Delete(ServiceName, user) })
	return s.explain(err, "")
}

func (s *Store) isDown() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down != nil {
		return s.down
	}
	return nil
}

func (s *Store) explain(err error, secret string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) {
		return ErrNotFound
	}
	fe := keyringError(scrub(err, secret), s.timeout())
	if errors.Is(fe, ErrKeyringTimeout) || errors.Is(fe, ErrKeyringUnavailable) {
		s.mu.Lock()
		if s.down == nil {
			s.down = fe
		}
		s.mu.Unlock()
	}
	return fe
}

func (s *Store) refuseEnv(action string) error {
	if strings.TrimSpace(s.getenv(EnvToken)) == "" {
		return nil
	}
	switch action {
	case "login":
		return newError(failure.Usage, ErrEnvTokenSet, nil,
			EnvToken+" is set, and it takes precedence over any stored token, so nothing was stored",
			"unset "+EnvToken+" to use a stored token, or keep using "+EnvToken)
	default:
		return newError(failure.Usage, ErrEnvTokenSet, nil,
			EnvToken+" is set, and logout cannot unset it, so nothing was removed",
			"unset "+EnvToken+" in your shell, then run `tilookup auth logout` to remove the stored token")
	}
}

// CheckToken trims a token and rejects what cannot be a bearer token, or
// cannot go in an HTTP header or cookie unchanged, without storing it.
func CheckToken(token string) (string, error) { return normalizeToken(token) }

// writable is implemented by a FileStore that may be unable to write (no
// config directory).
type writable interface{ Writable() error }

// CanStore says, before the user types a token, whether Login could store
// one for host: TILOOKUP_TOKEN is not set, and the chosen storage answers.
// A keyring that is missing, locked or hanging fails here, with the advice
// to use --insecure-storage, rather than after the token was pasted.
func (s *Store) CanStore(host string, insecure bool) error {
	if err := s.refuseEnv("login"); err != nil {
		return err
	}
	h, err := checkHost(host)
	if err != nil {
		return err
	}
	if insecure {
		if s.File == nil {
			return failure.New(failure.Usage, "insecure storage is not available here")
		}
		if w, ok := s.File.(writable); ok {
			return w.Writable()
		}
		return nil
	}
	_, err = s.keyringToken(h)
	switch {
	case err == nil, errors.Is(err, ErrNotFound), errors.Is(err, ErrNoToken),
		errors.Is(err, ErrInvalidToken), errors.Is(err, ErrKeyringDamaged):
		return nil // a bad entry is what a new login replaces
	}
	return err
}

// Login stores the token for host: in the keyring, or with insecure=true in
// the FileStore, in which case it returns a warning naming the file for the
// caller to print. The token is trimmed and checked first. A token longer
// than MaxEntrySize is split over several keyring entries. When
// TILOOKUP_TOKEN is set, Login stores nothing and returns an error (kind
// Usage) explaining why.
//
// Storing in one place removes the host's token from the other, so the
// lookup order never lets a stale token shadow the new one.
func (s *Store) Login(host, token string, insecure bool) (warning string, err error) {
	if err := s.refuseEnv("login"); err != nil {
		return "", err
	}
	h, err := checkHost(host)
	if err != nil {
		return "", err
	}
	t, err := normalizeToken(token)
	if err != nil {
		return "", err
	}
	if insecure {
		return s.loginFile(h, t)
	}
	parts := split(t)
	// The first entry goes last: until it is written, a reader still sees
	// the previous token (or none), never a header naming absent parts.
	for i := len(parts); i >= 1; i-- {
		if err := s.kset(chunkUser(h, i), parts[i-1]); err != nil {
			s.forget(h)
			return "", err
		}
	}
	// Parts left over from an earlier, longer token.
	for i := len(parts) + 1; i <= maxChunks; i++ {
		if s.kdel(chunkUser(h, i)) != nil {
			break
		}
	}
	s.remember(h, t, nil)
	if s.File != nil {
		if _, ok := s.File.Token(h); ok {
			if err := s.File.DeleteToken(h); err != nil {
				return "", failure.Wrap(failure.Config, err,
					"the token is in the OS keyring, but the old plaintext copy in "+s.File.Path()+" could not be removed").
					WithHint("remove it from that file by hand")
			}
		}
	}
	return "", nil
}

func (s *Store) loginFile(host, token string) (string, error) {
	if s.File == nil {
		return "", failure.New(failure.Usage, "insecure storage is not available here")
	}
	if err := s.File.SetToken(host, token); err != nil {
		return "", failure.Wrap(failure.Config, scrub(err, token),
			"could not write the token to "+s.File.Path())
	}
	warning := "the token for " + host + " is stored in plain text in " + s.File.Path() +
		"; anyone who can read that file can use it"
	// An older keyring entry would win over the file; remove it.
	err := s.kdel(host)
	if err == nil {
		for i := 2; i <= maxChunks; i++ {
			if s.kdel(chunkUser(host, i)) != nil {
				break
			}
		}
	}
	switch {
	case err == nil, errors.Is(err, ErrNotFound), errors.Is(err, ErrKeyringUnavailable):
		s.remember(host, "", ErrNotFound)
	default:
		// If the keyring comes back and still holds a token for the
		// host, that one is used; say so rather than surprise.
		s.forget(host)
		warning += "; the OS keyring could not be checked for an older token for " + host +
			", which would take precedence (`tilookup auth logout` removes it)"
	}
	return warning, nil
}

// Logout removes the host's token from the keyring and from the file. If
// neither held one, it returns an error (ErrNotLoggedIn). With TILOOKUP_TOKEN
// set it removes nothing and explains why (kind Usage).
func (s *Store) Logout(host string) error {
	if err := s.refuseEnv("logout"); err != nil {
		return err
	}
	h, err := checkHost(host)
	if err != nil {
		return err
	}
	removed := false
	kerr := s.kdel(h)
	if kerr == nil {
		removed = true
	}
	if kerr == nil || errors.Is(kerr, ErrNotFound) {
		// Parts of a split token; also orphans of an interrupted login.
		for i := 2; i <= maxChunks; i++ {
			if s.kdel(chunkUser(h, i)) != nil {
				break
			}
		}
	}
	if s.File != nil {
		if _, ok := s.File.Token(h); ok {
			if err := s.File.DeleteToken(h); err != nil {
				return failure.Wrap(failure.Config, err, "could not remove the token from "+s.File.Path())
			}
			removed = true
		}
	}
	switch {
	case kerr == nil, errors.Is(kerr, ErrNotFound), errors.Is(kerr, ErrKeyringUnavailable):
		s.remember(h, "", ErrNotFound)
	default:
		// The keyring may still hold the token; a file removal does
		// not make that a success.
		s.forget(h)
		return kerr
	}
	if !removed {
		msg := "not logged in to " + h + ": no token is stored for it"
		if kerr != nil && !errors.Is(kerr, ErrNotFound) {
			if s.File == nil {
				return kerr
			}
			msg = "not logged in to " + h + ": no token for it in " + s.File.Path() +
				" (the OS keyring is not available, so it was not checked)"
		}
		return newError(failure.Config, ErrNotLoggedIn, nil, msg, "")
	}
	return nil
}
