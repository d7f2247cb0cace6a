package credentials

// Tests against the real OS keyring code path (go-keyring over godbus).
//
// TestSecretService and TestSecretServiceLockedKeyring need a running Secret
// Service and run only with TILOOKUP_SECRET_SERVICE_TEST=1; with
// TILOOKUP_SECRET_SERVICE_REQUIRED=1 an unreachable Secret Service fails them
// instead of skipping, so CI cannot pass by accident. .ci/keyring-test.sh
// sets both up on Debian 12 with gnome-keyring.
//
// TestSecretServiceNoSessionBus and TestSecretServiceHangingBus need nothing
// but Linux: each re-runs this test binary in a child process with a
// doctored environment. A child process is needed because godbus keeps one
// shared session-bus connection per process (and a hung connect holds its
// lock forever), so the scenarios cannot share a process with other tests.

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	envSSTest     = "TILOOKUP_SECRET_SERVICE_TEST"
	envSSRequired = "TILOOKUP_SECRET_SERVICE_REQUIRED"
	envChild      = "TILOOKUP_CREDENTIALS_CHILD" // which child scenario to run
)

// requireSecretService skips unless asked to run, and fails rather than skips
// when the Secret Service is required but does not answer.
func requireSecretService(t *testing.T) {
	t.Helper()
	if os.Getenv(envSSTest) != "1" {
		t.Skipf("set %s=1 to run against a real Secret Service", envSSTest)
	}
	unavailable := func(format string, args ...any) {
		t.Helper()
		if os.Getenv(envSSRequired) == "1" {
			t.Fatalf("Secret Service required (%s=1) but "+format, append([]any{envSSRequired}, args...)...)
		}
		t.Skipf("Secret Service not reachable: "+format, args...)
	}
	if runtime.GOOS != "linux" {
		unavailable("this test drives the Secret Service on Linux only (GOOS=%s)", runtime.GOOS)
	}
	if _, err := exec.LookPath("secret-tool"); err != nil {
		unavailable("secret-tool not found (apt-get install libsecret-tools)")
	}
	probe := &Store{Getenv: env(nil), Keyring: SystemKeyring(), Timeout: 10 * time.Second}
	_, _, err := probe.Token(fmt.Sprintf("probe-%d.invalid", os.Getpid()))
	if !errors.Is(err, ErrNoToken) {
		unavailable("probe lookup: %v (cause: %v)", err, errors.Unwrap(err))
	}
}

// secretTool runs libsecret's client, a second implementation of the Secret
// Service protocol, to check what go-keyring stored (attributes "service" and
// "username", as keyring_unix.go sets them).
func secretTool(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("secret-tool", args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && stderr.Len() > 0 {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), err
}

func lookupWithSecretTool(t *testing.T, user string) (string, bool) {
	t.Helper()
	out, err := secretTool(t, "", "lookup", "service", ServiceName, "username", user)
	var ee *exec.ExitError
	if errors.As(err, &ee) && out == "" {
		return "", false // secret-tool exits 1 when nothing matches
	}
	if err != nil {
		t.Fatalf("secret-tool lookup %s: %v", user, err)
	}
	return out, true
}

func TestSecretService(t *testing.T) {
	requireSecretService(t)
	id := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	host := "ss-" + id + ".example:8443"
	tok := "ss-test-" + randomToken(40)

	newStore := func() *Store {
		return &Store{Getenv: env(nil), Keyring: SystemKeyring(), Timeout: 10 * time.Second}
	}
	t.Cleanup(func() {
		for _, h := range []string{host, "big-" + host, "other-" + host} {
			_ = newStore().Logout(h)
		}
	})

	t.Run("LoginTokenLogout", func(t *testing.T) {
		s := newStore()
		if w, err := s.Login(host, tok, false); err != nil || w != "" {
			t.Fatalf("Login: %q %v (cause %v)", w, err, errors.Unwrap(err))
		}
		got, ok := lookupWithSecretTool(t, host)
		if !ok || got != tok {
			t.Fatalf("secret-tool sees %q (found %v), want the token", Mask(got), ok)
		}
		s2 := newStore()
		gotTok, src, err := s2.Token(host)
		if err != nil || gotTok != tok || src != SourceKeyring {
			t.Fatalf("Token: %q %q %v", Mask(gotTok), src, err)
		}
		if err := s2.Logout(host); err != nil {
			t.Fatalf("Logout: %v", err)
		}
		if _, ok := lookupWithSecretTool(t, host); ok {
			t.Fatal("secret-tool still finds the item after logout")
		}
		if _, _, err := newStore().Token(host); !errors.Is(err, ErrNoToken) {
			t.Fatalf("Token after logout: %v", err)
		}
		if err := newStore().Logout(host); !errors.Is(err, ErrNotLoggedIn) {
			t.Fatalf("second Logout: %v", err)
		}
	})

	t.Run("LargeToken", func(t *testing.T) {
		big := "eyJ" + randomToken(10*1024)
		h := "big-" + host
		if _, err := newStore().Login(h, big, false); err != nil {
			t.Fatalf("Login: %v (cause %v)", err, errors.Unwrap(err))
		}
		head, ok := lookupWithSecretTool(t, h)
		if !ok || !strings.HasPrefix(head, chunkPrefix) || len(head) > MaxEntrySize {
			t.Fatalf("first entry: found %v, %d bytes", ok, len(head))
		}
		if _, ok := lookupWithSecretTool(t, h+"#2"); !ok {
			t.Fatal("second part not in the Secret Service")
		}
		got, _, err := newStore().Token(h)
		if err != nil || got != big {
			t.Fatalf("Token: %d bytes, %v", len(got), err)
		}
		if err := newStore().Logout(h); err != nil {
			t.Fatalf("Logout: %v", err)
		}
		for _, u := range []string{h, h + "#2", h + "#6"} {
			if _, ok := lookupWithSecretTool(t, u); ok {
				t.Fatalf("%s left after logout", u)
			}
		}
	})

	t.Run("StoredByAnotherClient", func(t *testing.T) {
		h := "other-" + host
		if _, err := secretTool(t, tok+"\n", "store", "--label=tilookup test", "service", ServiceName, "username", h); err != nil {
			t.Fatalf("secret-tool store: %v", err)
		}
		got, src, err := newStore().Token(h)
		if err != nil || got != tok || src != SourceKeyring {
			t.Fatalf("Token: %q %q %v", Mask(got), src, err)
		}
		if err := newStore().Logout(h); err != nil {
			t.Fatalf("Logout: %v", err)
		}
		if _, ok := lookupWithSecretTool(t, h); ok {
			t.Fatal("item left after logout")
		}
	})
}

// TestSecretServiceLockedKeyring reproduces the hang the timeout exists for:
// a real gnome-keyring whose login collection is locked, on a bus where the
// unlock prompter is activatable but never answers (as on a headless machine
// whose prompter waits for a display nobody looks at). It runs its own
// dbus-daemon and gnome-keyring so the shared session stays unlocked.
//
// Without the fake prompter gnome-keyring's gcr-prompter fails at once for
// lack of a display, and go-keyring returns "failed to unlock correct
// collection" immediately; that path is checked too (ErrKeyringLocked).
func TestSecretServiceLockedKeyring(t *testing.T) {
	if os.Getenv(envChild) == "locked" {
		lockedChild(t)
		return
	}
	requireSecretService(t)
	for _, bin := range []string{"dbus-daemon", "gnome-keyring-daemon", "dbus-send"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s not found: %v", bin, err)
		}
	}
	dir := t.TempDir()
	addr := startBus(t, dir)
	benv := append(withoutEnv(os.Environ(), "DBUS_SESSION_BUS_ADDRESS", "XDG_DATA_HOME", "XDG_RUNTIME_DIR", envChild),
		"DBUS_SESSION_BUS_ADDRESS="+addr,
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	for _, d := range []string{"data", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}

	gk := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	gk.Env = benv
	gk.Stdin = strings.NewReader("pw")
	if err := gk.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = gk.Process.Kill(); _ = gk.Wait() })

	run := func(stdin string, name string, args ...string) {
		t.Helper()
		var err error
		var out []byte
		for range 50 { // the daemon needs a moment to claim its name
			cmd := exec.Command(name, args...)
			cmd.Env = benv
			cmd.Stdin = strings.NewReader(stdin)
			if out, err = cmd.CombinedOutput(); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%s %v: %v: %s", name, args, err, out)
	}
	run(tokA, "secret-tool", "store", "--label=tilookup locked test", "service", ServiceName, "username", "locked.example")
	run("", "dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets",
		"/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
		"array:objpath:/org/freedesktop/secrets/collection/login")

	out := runChild(t, "TestSecretServiceLockedKeyring", "locked", benv)
	t.Logf("child:\n%s", out)
}

func lockedChild(t *testing.T) {
	const timeout = time.Second
	s := &Store{Getenv: env(nil), Keyring: SystemKeyring(), Timeout: timeout}
	start := time.Now()
	_, _, err := s.Token("locked.example")
	elapsed := time.Since(start)
	t.Logf("Token on a locked keyring: after %v: %v", elapsed.Round(time.Millisecond), err)
	if !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("want the timeout error, got %v (cause %v)", err, errors.Unwrap(err))
	}
	if elapsed > timeout+2*time.Second {
		t.Fatalf("took %v with a %v timeout", elapsed, timeout)
	}
	want := "the OS keyring did not answer within 1s (is it locked?); set TILOOKUP_TOKEN, or run `tilookup auth login --insecure-storage`"
	if err.Error() != want {
		t.Fatalf("message %q", err.Error())
	}
	// Writing waits for the same prompt; a fresh Store shows Set is bounded.
	s = &Store{Getenv: env(nil), Keyring: SystemKeyring(), Timeout: timeout}
	start = time.Now()
	if _, err := s.Login("locked2.example", tokB, false); !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("Login: %v", err)
	}
	if d := time.Since(start); d > timeout+2*time.Second {
		t.Fatalf("Login took %v", d)
	}
}

// startBus runs a private session bus whose gnome-keyring prompters are
// activatable services that never answer.
func startBus(t *testing.T, dir string) string {
	t.Helper()
	svc := filepath.Join(dir, "services")
	if err := os.MkdirAll(svc, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"org.gnome.keyring.SystemPrompter", "org.gnome.keyring.PrivatePrompter"} {
		body := "[D-BUS Service]\nName=" + name + "\nExec=/bin/sleep 10\n"
		if err := os.WriteFile(filepath.Join(svc, name+".service"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Directories listed first take precedence, so our prompters shadow
	// the real gcr-prompter.
	conf := `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=` + dir + `</listen>
  <servicedir>` + svc + `</servicedir>
  <standard_session_servicedirs/>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`
	cf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-daemon", "--config-file="+cf, "--nofork", "--print-address=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon gave no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestSecretServiceNoSessionBus is the headless Linux machine: no
// DBUS_SESSION_BUS_ADDRESS and no dbus-launch to start a bus. No D-Bus call
// is made (go-keyring would try dbus-launch).
// .ci/keyring-test.sh also runs the child body directly under
// `env -u DBUS_SESSION_BUS_ADDRESS` with dbus-launch off PATH.
func TestSecretServiceNoSessionBus(t *testing.T) {
	if os.Getenv(envChild) == "nobus" {
		noBusChild(t)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("D-Bus session discovery is Linux-specific")
	}
	if _, err := os.Stat(fmt.Sprintf("/run/user/%d/bus", os.Getuid())); err == nil {
		t.Skip("godbus would find the systemd user bus in /run/user; cannot simulate a machine without one")
	}
	e := append(withoutEnv(os.Environ(), "DBUS_SESSION_BUS_ADDRESS", "PATH", envChild), "PATH="+t.TempDir())
	runChild(t, "TestSecretServiceNoSessionBus", "nobus", e)
}

func noBusChild(t *testing.T) {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		t.Fatalf("DBUS_SESSION_BUS_ADDRESS is set (%s); run with env -u DBUS_SESSION_BUS_ADDRESS", a)
	}
	if p, err := exec.LookPath("dbus-launch"); err == nil {
		t.Fatalf("dbus-launch is on PATH (%s); this test needs it absent", p)
	}
	s := &Store{Getenv: env(nil), Keyring: SystemKeyring(), Timeout: 5 * time.Second}
	_, _, err := s.Token("ti.example.com")
	t.Logf("Token without a session bus: %v", err)
	t.Logf("cause (shown with --debug): %v", errors.Unwrap(err))
	if !errors.Is(err, ErrKeyringUnavailable) || !errors.Is(err, errNoSessionBus) {
		t.Fatalf("want ErrKeyringUnavailable caused by errNoSessionBus (no D-Bus call), got %v (cause %v)", err, errors.Unwrap(err))
	}
	want := "no OS keyring here: there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), and tilookup starts none; set TILOOKUP_TOKEN, or keep the token in a file with `tilookup auth login --insecure-storage`"
	if err.Error() != want {
		t.Fatalf("message\n got %q\nwant %q", err.Error(), want)
	}
	if _, err := (&Store{Getenv: env(nil), Keyring: SystemKeyring()}).Login("ti.example.com", tokA, false); !errors.Is(err, ErrKeyringUnavailable) {
		t.Fatalf("Login: %v", err)
	}
}

// TestSecretServiceHangingBus drives the real godbus code into a bus that
// accepts the connection and never says a word: the call must come back at
// the timeout, not hang.
func TestSecretServiceHangingBus(t *testing.T) {
	if os.Getenv(envChild) == "hang" {
		hangChild(t)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("unix-socket D-Bus addresses are tested on Linux")
	}
	dir, err := os.MkdirTemp("", "tlk") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "bus")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c) // held open, never answered
		}
	}()
	e := append(withoutEnv(os.Environ(), "DBUS_SESSION_BUS_ADDRESS", envChild), "DBUS_SESSION_BUS_ADDRESS=unix:path="+sock)
	runChild(t, "TestSecretServiceHangingBus", "hang", e)
}

func hangChild(t *testing.T) {
	const timeout = 300 * time.Millisecond
	s := &Store{Getenv: env(nil), Keyring: SystemKeyring(), Timeout: timeout}
	start := time.Now()
	_, _, err := s.Token("ti.example.com")
	elapsed := time.Since(start)
	t.Logf("Token on a silent bus: after %v: %v", elapsed.Round(time.Millisecond), err)
	if !errors.Is(err, ErrKeyringTimeout) {
		t.Fatalf("want the timeout error, got %v", err)
	}
	if elapsed > timeout+time.Second {
		t.Fatalf("took %v with a %v timeout", elapsed, timeout)
	}
}

// runChild re-runs this test binary for one test with the given environment
// and fails unless that test passed there.
func runChild(t *testing.T, test, scenario string, environ []string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd.Env = append(withoutEnv(environ, envChild), envChild+"="+scenario)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("child %s hung:\n%s", scenario, out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("child %s failed: %v\n%s", scenario, err, out)
	}
	return string(out)
}

func withoutEnv(environ []string, names ...string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}
