package credentials

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// "no token for HOST" names the hosts that have one and the command to add
// one, in the user's way of storing tokens.
func TestNoTokenNamesHostsWithOne(t *testing.T) {
	kr := newFake()
	kr.put("prod.example", tokA)
	file := newFile()
	file.tokens["lab.example:8443"] = tokB
	s := &Store{Getenv: env(nil), Keyring: kr, File: file,
		Configured: func() []string { return []string{"prod.example", "staging.example"} }}
	_, _, err := s.Token("staging.example")
	msg := err.Error()
	for _, want := range []string{"no token for staging.example", "tokens are stored for lab.example:8443, prod.example",
		"`tilookup auth login --host staging.example --insecure-storage`"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

// A user of --insecure-storage on a machine with no keyring hears that the
// host has no token, not that the keyring is missing; and a second logout
// says "not logged in".
func TestKeyringAbsentWithFileStorage(t *testing.T) {
	defer keyring.MockInit()
	keyring.MockInitWithError(errors.New("dbus: couldn't determine address of session bus"))
	file := newFile()
	file.tokens["prod.example"] = tokA
	s := &Store{Getenv: env(nil), Keyring: goKeyringMock(), File: file}
	_, _, err := s.Token("staging.example")
	if !errors.Is(err, ErrNoToken) || strings.Contains(err.Error(), "no OS keyring") || !strings.Contains(err.Error(), "prod.example") {
		t.Fatalf("lookup: %v", err)
	}
	if err := s.Logout("prod.example"); err != nil {
		t.Fatalf("logout: %v", err)
	}
	err = s.Logout("prod.example")
	if !errors.Is(err, ErrNotLoggedIn) || !strings.Contains(err.Error(), "not logged in to prod.example") {
		t.Fatalf("second logout: %v", err)
	}
	// With no file token at all, the keyring's absence is the news.
	s = &Store{Getenv: env(nil), Keyring: goKeyringMock(), File: newFile()}
	if _, _, err := s.Token("prod.example"); !errors.Is(err, ErrKeyringUnavailable) {
		t.Fatalf("no storage at all: %v", err)
	}
}

type pathFile struct {
	*fakeFile
	path string
}

func (f pathFile) Path() string { return f.path }

func TestPermWarningOnUse(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("mode bits do not describe Windows ACLs")
	}
	dir := filepath.Join(t.TempDir(), "cfg")
	os.Mkdir(dir, 0o700)
	p := filepath.Join(dir, "config.yaml")
	os.WriteFile(p, []byte("tokens: {}\n"), 0o644)
	os.Chmod(p, 0o644)
	file := newFile()
	file.tokens["prod.example"] = tokA
	var warned []string
	s := &Store{Getenv: env(nil), Keyring: newFake(), File: pathFile{file, p}, Warn: func(m string) { warned = append(warned, m) }}
	s.Token("prod.example")
	s.Token("prod.example")
	if len(warned) != 1 || !strings.Contains(warned[0], "mode 0644") || !strings.Contains(warned[0], "chmod 600") {
		t.Fatalf("warnings: %q", warned)
	}
	os.Chmod(p, 0o600)
	os.Chmod(dir, 0o777)
	if msg := PermProblem(p); !strings.Contains(msg, "writable by others") || !strings.Contains(msg, "chmod 700") {
		t.Errorf("directory: %q", msg)
	}
	os.Chmod(dir, 0o700)
	if msg := PermProblem(p); msg != "" {
		t.Errorf("0600 in 0700: %q", msg)
	}
}
