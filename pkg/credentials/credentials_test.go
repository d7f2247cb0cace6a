package credentials

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/tilookup/tilookup/pkg/failure"
)

// fakeKeyring is an in-memory Keyring that counts calls and can block, fail,
// or enforce a size limit like Windows Credential Manager does.
type fakeKeyring struct {
	mu               sync.Mutex
	items            map[string]string
	gets, sets, dels int
	err              error         // returned by every call when set
	block            chan struct{} // calls wait for it to close when set
	maxValue         int           // Set refuses longer values when > 0
}

func newFake() *fakeKeyring { return &fakeKeyring{items: map[string]string{}} }

func (f *fakeKeyring) wait() {
	f.mu.Lock()
	b := f.block
	f.mu.Unlock()
	if b != nil {
		<-b
	}
}

func (f *fakeKeyring) Get(service, user string) (string, error) {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if f.err != nil {
		return "", f.err
	}
	v, ok := f.items[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (f *fakeKeyring) Set(service, user, secret string) error {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sets++
	if f.err != nil {
		return f.err
	}
	if f.maxValue > 0 && len(secret) > f.maxValue {
		return keyring.ErrSetDataTooBig
	}
	f.items[service+"/"+user] = secret
	return nil
}

func (f *fakeKeyring) Delete(service, user string) error {
	f.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dels++
	if f.err != nil {
		return f.err
	}
	if _, ok := f.items[service+"/"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(f.items, service+"/"+user)
	return nil
}

func (f *fakeKeyring) put(user, v string) { f.items[ServiceName+"/"+user] = v }
func (f *fakeKeyring) has(user string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.items[ServiceName+"/"+user]
	return ok
}
func (f *fakeKeyring) getCount() int { f.mu.Lock(); defer f.mu.Unlock(); return f.gets }

// fakeFile is a FileStore in memory.
type fakeFile struct {
	tokens map[string]string
	err    error
}

func newFile() *fakeFile { return &fakeFile{tokens: map[string]string{}} }

func (f *fakeFile) Token(host string) (string, bool) { t, ok := f.tokens[host]; return t, ok }
func (f *fakeFile) SetToken(host, token string) error {
	if f.err != nil {
		return f.err
	}
	f.tokens[host] = token
	return nil
}
func (f *fakeFile) DeleteToken(host string) error { delete(f.tokens, host); return nil }
func (f *fakeFile) Path() string                  { return "/home/u/.config/tilookup/config.yaml" }
func (f *fakeFile) Hosts() []string {
	var h []string
	for k := range f.tokens {
		h = append(h, k)
	}
	return h
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

const (
	tokA = "tok-aaaaaaaaaaaaaaaaaaaa-1111"
	tokB = "tok-bbbbbbbbbbbbbbbbbbbb-2222"
	tokE = "tok-eeeeeeeeeeeeeeeeeeee-3333"
)

func kindOf(t *testing.T, err error) failure.Kind {
	t.Helper()
	var fe *failure.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *failure.Error", err, err)
	}
	return fe.Kind
}

func TestHostKey(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://ti.example.com", "ti.example.com"},
		{"https://ti.example.com/", "ti.example.com"},
		{"https://ti.example.com:443", "ti.example.com"},
		{"http://ti.example.com:80", "ti.example.com"},
		{"https://ti.example.com:8443", "ti.example.com:8443"},
		{"http://ti.example.com:443", "ti.example.com:443"},
		{"https://ti.example.com:80", "ti.example.com:80"},
		{"https://ti.example.com:0443", "ti.example.com"},
		{"https://gw.example.com/ti/api", "gw.example.com"},
		{"https://gw.example.com:9000/ti?x=1#frag", "gw.example.com:9000"},
		{"HTTPS://TI.Example.COM/Path", "ti.example.com"},
		{"https://ti.example.com.", "ti.example.com"},
		{"https://user:secret@ti.example.com/", "ti.example.com"},
		{"https://[2001:db8::1]/", "[2001:db8::1]"},
		{"https://[2001:DB8::1]:443/", "[2001:db8::1]"},
		{"http://[::1]:8080/ti", "[::1]:8080"},
		{"http://127.0.0.1:8080", "127.0.0.1:8080"},
		{"ti.example.com", "ti.example.com"},
		{"ti.example.com:8443", "ti.example.com:8443"},
		{"  https://ti.example.com  ", "ti.example.com"},
	}
	for _, c := range cases {
		got, err := HostKey(c.in)
		if err != nil || got != c.want {
			t.Errorf("HostKey(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "   ", "ftp://ti.example.com", "https://", "https://ti.example.com:99999", "https://ti.example.com:abc", "https://[::1"} {
		if got, err := HostKey(bad); err == nil {
			t.Errorf("HostKey(%q) = %q, want an error", bad, got)
		} else if kindOf(t, err) != failure.Config {
			t.Errorf("HostKey(%q): kind %v, want config", bad, kindOf(t, err))
		}
	}
	// The password in a URL never shows in the error.
	if _, err := HostKey("ftp://user:hunter2hunter2@ti.example.com"); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error leaks user info: %v", err)
	}
}

func TestLookupOrder(t *testing.T) {
	kr := newFake()
	file := newFile()
	e := map[string]string{}
	s := &Store{Getenv: env(e), Keyring: kr, File: file}

	// Nothing anywhere.
	_, src, err := s.Token("ti.example.com")
	if !errors.Is(err, ErrNoToken) || src != "" {
		t.Fatalf("no token: got src %q err %v", src, err)
	}

	// File only: used.
	file.tokens["ti.example.com"] = " " + tokB + "\n"
	s = &Store{Getenv: env(e), Keyring: kr, File: file}
	tok, src, err := s.Token("ti.example.com")
	if err != nil || tok != tokB || src != SourceConfig {
		t.Fatalf("file: got %q %q %v", tok, src, err)
	}

	// Keyring beats file.
	kr.put("ti.example.com", tokA)
	s = &Store{Getenv: env(e), Keyring: kr, File: file}
	tok, src, err = s.Token("ti.example.com")
	if err != nil || tok != tokA || src != SourceKeyring {
		t.Fatalf("keyring: got %q %q %v", tok, src, err)
	}

	// Env beats both, and the keyring is never touched.
	e[EnvToken] = "  " + tokE + "  "
	before := kr.getCount()
	s = &Store{Getenv: env(e), Keyring: kr, File: file}
	tok, src, err = s.Token("ti.example.com")
	if err != nil || tok != tokE || src != SourceEnv {
		t.Fatalf("env: got %q %q %v", tok, src, err)
	}
	if kr.getCount() != before {
		t.Fatalf("keyring read although TILOOKUP_TOKEN is set")
	}

	// A nil File is fine.
	delete(e, EnvToken)
	s = &Store{Getenv: env(e), Keyring: kr}
	if _, src, err := s.Token("other.example.com"); !errors.Is(err, ErrNoToken) || src != "" {
		t.Fatalf("nil file: %q %v", src, err)
	}

	// Per-host keys: another host does not get this host's token.
	kr.put("ti.example.com:8443", tokB)
	s = &Store{Getenv: env(e), Keyring: kr}
	if tok, _, err := s.Token("ti.example.com:8443"); err != nil || tok != tokB {
		t.Fatalf("port host: %q %v", tok, err)
	}
}

func TestEnvTokenInvalid(t *testing.T) {
	s := &Store{Getenv: env(map[string]string{EnvToken: "abc def-secret-part"}), Keyring: newFake()}
	_, _, err := s.Token("h")
	if err == nil || kindOf(t, err) != failure.Config || strings.Contains(err.Error(), "secret-part") {
		t.Fatalf("got %v", err)
	}
	// Blank counts as unset.
	s = &Store{Getenv: env(map[string]string{EnvToken: "  \n"}), Keyring: newFake()}
	if _, _, err := s.Token("h"); !errors.Is(err, ErrNoToken) {
		t.Fatalf("blank env: %v", err)
	}
}

func TestNoTokenMessage(t *testing.T) {
	s := &Store{Getenv: env(nil), Keyring: newFake()}
	_, _, err := s.Token("ti.example.com")
	if kindOf(t, err) != failure.Config || failure.ExitCode(err) != failure.ExitConfig {
		t.Fatalf("kind: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"tilookup auth login", "TILOOKUP_TOKEN", "ti.example.com"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message is not one line: %q", msg)
	}
}

func TestKeyringReadOnce(t *testing.T) {
	kr := newFake()
	kr.put("found.example", tokA)
	s := &Store{Getenv: env(nil), Keyring: kr}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if tok, _, err := s.Token("found.example"); err != nil || tok != tokA {
				t.Errorf("got %q %v", tok, err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, _, err := s.Token("missing.example"); !errors.Is(err, ErrNoToken) {
				t.Errorf("got %v", err)
			}
		}()
	}
	wg.Wait()
	if got := kr.getCount(); got != 2 {
		t.Fatalf("keyring Get called %d times for 2 hosts, want 2", got)
	}
	// The events lookup reuses the cached answers too.
	if tok, _, err := s.EventsToken("missing.example", "found.example", true); err != nil || tok != tokA {
		t.Fatalf("events: %q %v", tok, err)
	}
	if got := kr.getCount(); got != 2 {
		t.Fatalf("keyring Get called %d times, want 2", got)
	}
}

func TestEventsToken(t *testing.T) {
	kr := newFake()
	kr.put("search.example", tokA)
	s := &Store{Getenv: env(nil), Keyring: kr}

	// No own entry: the search host's token.
	tok, src, err := s.EventsToken("events.example", "search.example", true)
	if err != nil || tok != tokA || src != SourceKeyring {
		t.Fatalf("fallback: %q %q %v", tok, src, err)
	}

	// Own entry wins.
	kr.put("events.example", tokE)
	s = &Store{Getenv: env(nil), Keyring: kr}
	if tok, _, err := s.EventsToken("events.example", "search.example", true); err != nil || tok != tokE {
		t.Fatalf("own: %q %v", tok, err)
	}

	// Own entry in the file also wins over the search host's keyring token.
	kr2 := newFake()
	kr2.put("search.example", tokA)
	file := newFile()
	file.tokens["events.example"] = tokB
	s = &Store{Getenv: env(nil), Keyring: kr2, File: file}
	if tok, src, err := s.EventsToken("events.example", "search.example", true); err != nil || tok != tokB || src != SourceConfig {
		t.Fatalf("own file: %q %q %v", tok, src, err)
	}

	// Same host.
	if tok, _, err := s.EventsToken("search.example", "search.example", true); err != nil || tok != tokA {
		t.Fatalf("same: %q %v", tok, err)
	}

	// Env wins for events too.
	s = &Store{Getenv: env(map[string]string{EnvToken: tokB}), Keyring: kr}
	if tok, src, err := s.EventsToken("events.example", "search.example", true); err != nil || tok != tokB || src != SourceEnv {
		t.Fatalf("env: %q %q %v", tok, src, err)
	}

	// An events host configured in another scope than base_url never gets
	// the search host's token.
	s = &Store{Getenv: env(nil), Keyring: kr2}
	_, _, err = s.EventsToken("events.prod.example", "search.example", false)
	if !errors.Is(err, ErrNoToken) || failure.ExitCode(err) != 3 || !strings.Contains(err.Error(), "not sent there") {
		t.Fatalf("unpaired: %v", err)
	}
	kr2.put("events.prod.example", tokE)
	s = &Store{Getenv: env(nil), Keyring: kr2}
	if tok, _, err := s.EventsToken("events.prod.example", "search.example", false); err != nil || tok != tokE {
		t.Fatalf("unpaired with its own token: %q %v", tok, err)
	}

	// Neither: the message names the search host, where login stores by default.
	s = &Store{Getenv: env(nil), Keyring: newFake()}
	_, _, err = s.EventsToken("events.example", "search.example", true)
	if !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "search.example") {
		t.Fatalf("none: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	kr := newFake()
	kr.block = make(chan struct{}) // a keyring that never answers (until cleanup)
	t.Cleanup(func() { close(kr.block) })
	s := &Store{Getenv: env(nil), Keyring: kr, Timeout: 150 * time.Millisecond}

	start := time.Now()
	_, _, err := s.Token("ti.example.com")
	elapsed := time.Since(start)
	if elapsed > 2*time.Second {
		t.Fatalf("Token took %v with a 150ms timeout", elapsed)
	}
	if !errors.Is(err, ErrKeyringTimeout) || kindOf(t, err) != failure.Config {
		t.Fatalf("got %v", err)
	}
	want := "the OS keyring did not answer within 150ms (is it locked?); set TILOOKUP_TOKEN, or run `tilookup auth login --insecure-storage`"
	if err.Error() != want {
		t.Fatalf("message\n got %q\nwant %q", err.Error(), want)
	}

	// The next host does not wait again, and the same host is cached.
	start = time.Now()
	if _, _, err := s.Token("other.example.com"); !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("second host: %v", err)
	}
	if _, _, err := s.Token("ti.example.com"); !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("cached: %v", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("later lookups took %v; the keyring is known to hang", d)
	}

	// Set and Delete are bounded too.
	s = &Store{Getenv: env(nil), Keyring: kr, Timeout: 150 * time.Millisecond}
	start = time.Now()
	if _, err := s.Login("ti.example.com", tokA, false); !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("login: %v", err)
	} else if strings.Contains(err.Error(), tokA) {
		t.Fatal("token in error")
	}
	s = &Store{Getenv: env(nil), Keyring: kr, Timeout: 150 * time.Millisecond}
	if err := s.Logout("ti.example.com"); !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("logout: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("login+logout took %v", d)
	}

	// The default, as documented, is what the message shows.
	fe := keyringError(errTimedOut, DefaultKeyringTimeout)
	if !strings.Contains(fe.Error(), "did not answer within 3s (is it locked?)") {
		t.Fatalf("default timeout message: %q", fe.Error())
	}
	var zero Store
	if zero.timeout() != DefaultKeyringTimeout {
		t.Fatal("zero Store does not use DefaultKeyringTimeout")
	}
}

func TestTimeoutFallsBackToFile(t *testing.T) {
	kr := newFake()
	kr.block = make(chan struct{})
	t.Cleanup(func() { close(kr.block) })
	file := newFile()
	file.tokens["ti.example.com"] = tokB
	s := &Store{Getenv: env(nil), Keyring: kr, File: file, Timeout: 50 * time.Millisecond}
	tok, src, err := s.Token("ti.example.com")
	if err != nil || tok != tokB || src != SourceConfig {
		t.Fatalf("got %q %q %v", tok, src, err)
	}
}

// The errors go-keyring returns on Linux without a usable Secret Service, as
// godbus builds them.
type fakeDBusError struct {
	Name string
	Body []any
}

func (e fakeDBusError) Error() string {
	if len(e.Body) > 0 {
		if s, ok := e.Body[0].(string); ok {
			return s
		}
	}
	return e.Name
}

func TestUnavailableMapped(t *testing.T) {
	defer keyring.MockInit()
	cases := []error{
		&exec.Error{Name: "dbus-launch", Err: exec.ErrNotFound},
		fakeDBusError{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}},
		fakeDBusError{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name is not activatable"}},
		errors.New("The name org.freedesktop.secrets was not provided by any .service files"),
		errors.New("dbus: couldn't determine address of session bus"),
		fmt.Errorf("dial unix /run/user/1000/bus: connect: %w", errors.New("no such file or directory")),
	}
	for _, cause := range cases {
		keyring.MockInitWithError(cause)
		s := &Store{Getenv: env(nil), Keyring: goKeyringMock()}
		_, _, err := s.Token("ti.example.com")
		if !errors.Is(err, ErrKeyringUnavailable) || kindOf(t, err) != failure.Config {
			t.Errorf("%q: got %v", cause, err)
			continue
		}
		if inner := errors.Unwrap(err); inner == nil || !strings.Contains(inner.Error(), cause.Error()) {
			t.Errorf("%q: the cause is not kept for --debug", cause)
		}
		msg := err.Error()
		if strings.Contains(msg, cause.Error()) {
			t.Errorf("message repeats go-keyring's text: %q", msg)
		}
		if !strings.HasPrefix(msg, "no OS keyring is available") ||
			!strings.Contains(msg, "TILOOKUP_TOKEN") || !strings.Contains(msg, "--insecure-storage") {
			t.Errorf("message %q is not our explanation", msg)
		}
	}
	// The exact error of a headless Linux machine.
	dl := &exec.Error{Name: "dbus-launch", Err: exec.ErrNotFound}
	if dl.Error() != `exec: "dbus-launch": executable file not found in $PATH` {
		t.Fatalf("unexpected exec error text %q", dl.Error())
	}
}

func TestLockedAndOtherFailures(t *testing.T) {
	kr := newFake()
	kr.err = errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'")
	s := &Store{Getenv: env(nil), Keyring: kr}
	_, _, err := s.Token("h.example")
	if !errors.Is(err, ErrKeyringLocked) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("locked: %v", err)
	}
	kr.err = errors.New("weird\nmultiline failure")
	s = &Store{Getenv: env(nil), Keyring: kr}
	_, _, err = s.Token("h.example")
	if !errors.Is(err, ErrKeyringFailed) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("other: %q", err)
	}
}

func TestTokenNeverInErrors(t *testing.T) {
	secret := "s3cr3t-" + strings.Repeat("x", 30)
	kr := newFake()
	kr.err = errors.New("set failed for password " + secret) // a careless provider
	s := &Store{Getenv: env(nil), Keyring: kr}
	_, err := s.Login("h.example", secret, false)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(fmt.Sprintf("%+v", errors.Unwrap(err)), secret) {
		t.Fatalf("token leaked: %v / %v", err, errors.Unwrap(err))
	}
	file := newFile()
	file.err = errors.New("cannot write " + secret)
	s = &Store{Getenv: env(nil), Keyring: newFake(), File: file}
	if _, err := s.Login("h.example", secret, true); err == nil || strings.Contains(err.Error(), secret) ||
		strings.Contains(errors.Unwrap(err).Error(), secret) {
		t.Fatalf("token leaked via file error: %v", err)
	}
	for _, bad := range []string{"abc def" + secret, secret + "\x00x", secret + "\u200bx"} {
		_, err := (&Store{Getenv: env(nil), Keyring: newFake()}).Login("h.example", bad, false)
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Fatalf("invalid token error leaks or is missing: %v", err)
		}
	}
}

func TestTokenValidation(t *testing.T) {
	kr := newFake()
	s := &Store{Getenv: env(nil), Keyring: kr}
	for _, bad := range []string{"", "   \n", "abc def", "abc\tdef", "abc\x00def", "abc\x1bdef", "ab\u200bcd", "ab\u00a0cd", "\xff\xfe", chunkPrefix + "x", `ab"cd`, "ab;cd", "ab,cd", `ab\cd`, "tökén"} {
		_, err := s.Login("h.example", bad, false)
		if !errors.Is(err, ErrInvalidToken) || kindOf(t, err) != failure.Usage {
			t.Errorf("Login(%q): %v", bad, err)
		}
	}
	if kr.sets != 0 {
		t.Fatalf("invalid tokens reached the keyring")
	}
	if _, err := s.Login("h.example", "\t "+tokA+"\r\n", false); err != nil {
		t.Fatal(err)
	}
	if !kr.has("h.example") || kr.items[ServiceName+"/h.example"] != tokA {
		t.Fatalf("token not stored trimmed: %q", kr.items[ServiceName+"/h.example"])
	}
	huge := strings.Repeat("a", MaxTokenSize+1)
	if _, err := s.Login("h.example", huge, false); !errors.Is(err, ErrTokenTooLarge) || kindOf(t, err) != failure.Usage {
		t.Fatalf("huge: %v", err)
	}
}

func TestLoginLogoutRoundTrip(t *testing.T) {
	kr := newFake()
	s := &Store{Getenv: env(nil), Keyring: kr}
	if w, err := s.Login("ti.example.com", tokA, false); err != nil || w != "" {
		t.Fatalf("login: %q %v", w, err)
	}
	before := kr.getCount()
	if tok, src, err := s.Token("ti.example.com"); err != nil || tok != tokA || src != SourceKeyring {
		t.Fatalf("token: %q %q %v", tok, src, err)
	}
	if kr.getCount() != before {
		t.Fatal("Token after Login read the keyring again")
	}
	if err := s.Logout("ti.example.com"); err != nil {
		t.Fatal(err)
	}
	if kr.has("ti.example.com") {
		t.Fatal("still in keyring")
	}
	if _, _, err := s.Token("ti.example.com"); !errors.Is(err, ErrNoToken) {
		t.Fatalf("after logout: %v", err)
	}
	err := s.Logout("ti.example.com")
	if !errors.Is(err, ErrNotLoggedIn) || kindOf(t, err) != failure.Config || !strings.Contains(err.Error(), "not logged in") {
		t.Fatalf("second logout: %v", err)
	}
}

func TestLoginLogoutRefuseWithEnv(t *testing.T) {
	kr := newFake()
	kr.put("ti.example.com", tokA)
	file := newFile()
	s := &Store{Getenv: env(map[string]string{EnvToken: tokE}), Keyring: kr, File: file}
	for _, insecure := range []bool{false, true} {
		_, err := s.Login("ti.example.com", tokB, insecure)
		if !errors.Is(err, ErrEnvTokenSet) || kindOf(t, err) != failure.Usage || !strings.Contains(err.Error(), "TILOOKUP_TOKEN") {
			t.Fatalf("login: %v", err)
		}
		if strings.Contains(err.Error(), tokE) {
			t.Fatal("env token in message")
		}
	}
	err := s.Logout("ti.example.com")
	if !errors.Is(err, ErrEnvTokenSet) || kindOf(t, err) != failure.Usage || !strings.Contains(err.Error(), "unset TILOOKUP_TOKEN") {
		t.Fatalf("logout: %v", err)
	}
	if kr.sets+kr.dels+kr.gets != 0 || len(file.tokens) != 0 || !kr.has("ti.example.com") {
		t.Fatal("login/logout acted although TILOOKUP_TOKEN is set")
	}
}

func TestInsecureStorage(t *testing.T) {
	kr := newFake()
	kr.put("ti.example.com", tokA) // an older keyring token
	file := newFile()
	s := &Store{Getenv: env(nil), Keyring: kr, File: file}
	w, err := s.Login("ti.example.com", tokB, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w, file.Path()) || !strings.Contains(w, "plain text") || strings.Contains(w, tokB) {
		t.Fatalf("warning: %q", w)
	}
	if file.tokens["ti.example.com"] != tokB {
		t.Fatal("not in file")
	}
	if kr.has("ti.example.com") {
		t.Fatal("older keyring token would shadow the file")
	}
	s2 := &Store{Getenv: env(nil), Keyring: kr, File: file}
	if tok, src, err := s2.Token("ti.example.com"); err != nil || tok != tokB || src != SourceConfig {
		t.Fatalf("token: %q %q %v", tok, src, err)
	}
	// Back to the keyring: the plaintext copy goes.
	if _, err := s2.Login("ti.example.com", tokA, false); err != nil {
		t.Fatal(err)
	}
	if _, ok := file.tokens["ti.example.com"]; ok {
		t.Fatal("plaintext copy left behind")
	}
	// Logout clears both places.
	file.tokens["ti.example.com"] = tokB
	if err := s2.Logout("ti.example.com"); err != nil {
		t.Fatal(err)
	}
	if kr.has("ti.example.com") || len(file.tokens) != 0 {
		t.Fatal("logout left a token")
	}
	// No file store.
	if _, err := (&Store{Getenv: env(nil), Keyring: kr}).Login("h", tokA, true); err == nil {
		t.Fatal("insecure login without a file store succeeded")
	}
	// Insecure login on a machine without a keyring: stored, no complaint.
	kr3 := newFake()
	kr3.err = &exec.Error{Name: "dbus-launch", Err: exec.ErrNotFound}
	s3 := &Store{Getenv: env(nil), Keyring: kr3, File: newFile()}
	if w, err := s3.Login("h.example", tokA, true); err != nil || strings.Contains(w, "could not be checked") {
		t.Fatalf("no keyring: %q %v", w, err)
	}
	if tok, src, err := s3.Token("h.example"); err != nil || tok != tokA || src != SourceConfig {
		t.Fatalf("no keyring token: %q %q %v", tok, src, err)
	}
	if err := s3.Logout("h.example"); err != nil {
		t.Fatalf("no keyring logout: %v", err)
	}
}

func TestLargeTokenChunks(t *testing.T) {
	// A 10 KB JWT-like token through a keyring with Windows' limit.
	big := "eyJ" + randomToken(10*1024-3)
	kr := newFake()
	kr.maxValue = 2560
	s := &Store{Getenv: env(nil), Keyring: kr}
	if _, err := s.Login("ti.example.com", big, false); err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, v := range kr.items {
		n++
		if len(v) > MaxEntrySize {
			t.Errorf("entry %s holds %d bytes > %d", k, len(v), MaxEntrySize)
		}
	}
	if n < 5 {
		t.Fatalf("only %d entries for a 10 KB token", n)
	}
	s2 := &Store{Getenv: env(nil), Keyring: kr}
	if tok, _, err := s2.Token("ti.example.com"); err != nil || tok != big {
		t.Fatalf("round trip failed: len %d, %v", len(tok), err)
	}

	// A lost part is an error, never a truncated token.
	missing := ServiceName + "/ti.example.com#3"
	saved := kr.items[missing]
	delete(kr.items, missing)
	_, _, err := (&Store{Getenv: env(nil), Keyring: kr}).Token("ti.example.com")
	if !errors.Is(err, ErrKeyringDamaged) || strings.Contains(err.Error(), big[:20]) {
		t.Fatalf("missing part: %v", err)
	}
	// A part from another token is noticed too.
	kr.items[missing] = strings.Repeat("Z", len(saved))
	if _, _, err := (&Store{Getenv: env(nil), Keyring: kr}).Token("ti.example.com"); !errors.Is(err, ErrKeyringDamaged) {
		t.Fatalf("swapped part: %v", err)
	}

	// A short token replaces a long one and the old parts go away.
	if _, err := s.Login("ti.example.com", tokA, false); err != nil {
		t.Fatal(err)
	}
	if len(kr.items) != 1 || kr.items[ServiceName+"/ti.example.com"] != tokA {
		t.Fatalf("left over: %d entries", len(kr.items))
	}
	// Logout of a split token removes every part.
	if _, err := s.Login("ti.example.com", big, false); err != nil {
		t.Fatal(err)
	}
	if err := s.Logout("ti.example.com"); err != nil {
		t.Fatal(err)
	}
	if len(kr.items) != 0 {
		t.Fatalf("logout left %d entries", len(kr.items))
	}

	// Multi-byte characters are not cut in two.
	uni := strings.Repeat("é", 3000)
	for _, p := range split(uni) {
		if !strings.HasPrefix(p, chunkPrefix) && !utf8Valid(p) {
			t.Fatal("split cut a character")
		}
	}
}

func TestChunksWithGoKeyringMock(t *testing.T) {
	keyring.MockInit()
	defer keyring.MockInit()
	big := randomToken(10 * 1024)
	s := &Store{Getenv: env(nil), Keyring: goKeyringMock()}
	if _, err := s.Login("ti.example.com:8443", big, false); err != nil {
		t.Fatal(err)
	}
	if v, err := keyring.Get(ServiceName, "ti.example.com:8443#2"); err != nil || v == "" {
		t.Fatalf("second part not stored: %v", err)
	}
	s2 := &Store{Getenv: env(nil), Keyring: goKeyringMock()}
	if tok, src, err := s2.Token("ti.example.com:8443"); err != nil || tok != big || src != SourceKeyring {
		t.Fatalf("round trip: len %d %q %v", len(tok), src, err)
	}
	if err := s2.Logout("ti.example.com:8443"); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(ServiceName, "ti.example.com:8443#2"); !errors.Is(err, keyring.ErrNotFound) {
		t.Fatalf("part left: %v", err)
	}
}

func TestMask(t *testing.T) {
	cases := map[string]string{
		"":                                    "****",
		"abc":                                 "****",
		"abcdefghijk":                         "****",   // 11
		"abcdefghijkl":                        "****l",  // 12: 1 of 12
		"abcdefghijklmnop":                    "****op", // 16
		strings.Repeat("x", 40) + "WXYZ":      "****WXYZ",
		strings.Repeat("x", 4000) + "tail":    "****tail",
		"  " + strings.Repeat("y", 30) + "z ": "****yyz",
	}
	for in, want := range cases {
		if got := Mask(in); got != want {
			t.Errorf("Mask(len %d) = %q, want %q", len(in), got, want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		tok := randomTokenR(r, 1+r.IntN(300))
		m := Mask(tok)
		if strings.Contains(m, tok) {
			t.Fatalf("Mask reveals the whole token (len %d): %q", len(tok), m)
		}
		shown := len(strings.TrimPrefix(m, "****"))
		if shown > len(tok)/8 || shown > 4 || (len(tok) < 12 && shown != 0) {
			t.Fatalf("Mask shows %d of %d characters", shown, len(tok))
		}
	}
}

func TestBadHost(t *testing.T) {
	s := &Store{Getenv: env(nil), Keyring: newFake()}
	for _, h := range []string{"", "https://ti.example.com", "a/b", "a b"} {
		if _, _, err := s.Token(h); err == nil || errors.Is(err, ErrNoToken) {
			t.Errorf("Token(%q): %v", h, err)
		}
	}
}

func TestNoKeyringContactWithoutCalls(t *testing.T) {
	// The zero Store is usable and touches nothing until asked.
	var s Store
	if s.cache != nil || s.down != nil {
		t.Fatal("zero Store did work before a call")
	}
}

func TestPanickingProvider(t *testing.T) {
	s := &Store{Getenv: env(nil), Keyring: panicKeyring{}}
	if _, _, err := s.Token("h"); !errors.Is(err, ErrKeyringFailed) {
		t.Fatalf("got %v", err)
	}
}

type panicKeyring struct{}

func (panicKeyring) Get(string, string) (string, error) { panic("boom") }
func (panicKeyring) Set(string, string, string) error   { panic("boom") }
func (panicKeyring) Delete(string, string) error        { panic("boom") }

const tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."

func randomToken(n int) string { return randomTokenR(rand.New(rand.NewPCG(7, 8)), n) }

func randomTokenR(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = tokenAlphabet[r.IntN(len(tokenAlphabet))]
	}
	return string(b)
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }

// goKeyringMock is the system keyring with a session bus, for the tests
// that swap go-keyring's provider with keyring.MockInit: the real bus is
// never reached, whatever this process's environment says.
func goKeyringMock() Keyring {
	return systemKeyring{busAddress: func() string { return "unix:path=/nonexistent/go-keyring-mock" }}
}

// Without a D-Bus session, no D-Bus call is made at all (godbus would start
// a dbus-daemon through dbus-launch) and the one line says how to give a
// token.
func TestNoSessionBusMakesNoDBusCall(t *testing.T) {
	if !usesDBus {
		t.Skip("the keyring is not reached over D-Bus here")
	}
	defer keyring.MockInit()
	called := errors.New("go-keyring was called")
	keyring.MockInitWithError(called)
	noBus := systemKeyring{busAddress: func() string { return "" }}
	s := &Store{Getenv: env(nil), Keyring: noBus}
	_, _, err := s.Token("ti.example.com")
	if errors.Is(err, called) {
		t.Fatal("go-keyring was asked without a session bus")
	}
	if !errors.Is(err, ErrKeyringUnavailable) || !errors.Is(err, errNoSessionBus) || kindOf(t, err) != failure.Config {
		t.Fatalf("got %v", err)
	}
	want := "no OS keyring here: there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), and tilookup starts none; set TILOOKUP_TOKEN, or keep the token in a file with `tilookup auth login --insecure-storage`"
	if err.Error() != want {
		t.Fatalf("message\n got %q\nwant %q", err.Error(), want)
	}
	if _, err := s.Login("ti.example.com", tokA, false); errors.Is(err, called) || !errors.Is(err, errNoSessionBus) {
		t.Fatalf("Login: %v", err)
	}
	// A locked keyring, on a session that exists, keeps its own message.
	keyring.MockInitWithError(errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"))
	s = &Store{Getenv: env(nil), Keyring: goKeyringMock()}
	if _, _, err := s.Token("ti.example.com"); !errors.Is(err, ErrKeyringLocked) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("locked: %v", err)
	}
}
