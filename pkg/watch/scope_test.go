package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScopeURLLeavesTheSecretsOut(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://ti.example.com", "https://ti.example.com"},
		{"https://gw.example:8443/ti/", "https://gw.example:8443/ti/"},
		{"", ""},
		{"https://analyst:s3cret@ti.example.com/ti", "https://ti.example.com/ti"},
		{"https://analyst@ti.example.com", "https://ti.example.com"},
		{"https://ti.example.com/api?token=s3cret&x=1", "https://ti.example.com/api"},
		{"https://ti.example.com/#s3cret", "https://ti.example.com/"},
		{"https://ti.example.com/?", "https://ti.example.com/"},
		{"https://a:b%zz@ti.example.com", "invalid-base-url"},
	} {
		got := ScopeURL(tt.in)
		if got != tt.want {
			t.Errorf("ScopeURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "s3cret") {
			t.Errorf("ScopeURL(%q) keeps the secret", tt.in)
		}
	}
}

// A rotated password keeps the lists: the scope's directory is the same.
func TestRotatingThePasswordKeepsTheScope(t *testing.T) {
	root := t.TempDir()
	a := NewStore(root, "prod", "https://u:old@ti.example.com/ti?key=1")
	b := NewStore(root, "prod", "https://u:new@ti.example.com/ti?key=2")
	if a.Dir != b.Dir || a.Dir != ScopeDir(root, "prod", "https://ti.example.com/ti") {
		t.Fatalf("scopes %s and %s, want both that of the URL without secrets", a.Dir, b.Dir)
	}
	if plain := NewStore(root, "prod", "https://ti.example.com/ti"); plain.Legacy != "" || plain.Dir != a.Dir {
		t.Fatalf("a URL without secrets: %+v", plain)
	}
}

// A list written by a tilookup that kept the password in the scope is
// found by the old key, moved into the scope without it, and written
// without the password; the old file is gone.
func TestMigrateMovesAListKeptUnderAPassword(t *testing.T) {
	root := t.TempDir()
	const base = "https://analyst:s3cret@ti.example.com/ti"
	old := Store{Root: root, Dir: ScopeDir(root, "default", base)}
	st, release, err := old.Open("ours", "default", base)
	if err != nil {
		t.Fatal(err)
	}
	st.Values["203.0.113.66"] = &Entry{At: 7, Resources: []Resource{{ID: "r", Count: "3"}}}
	if err := old.Save(st); err != nil {
		t.Fatal(err)
	}
	release()

	s := NewStore(root, "default", base)
	if s.Legacy != old.Dir {
		t.Fatalf("legacy dir %q, want %q", s.Legacy, old.Dir)
	}
	if err := s.Migrate(); err != nil {
		t.Fatal(err)
	}
	got, release, err := s.Open("ours", "default", ScopeURL(base))
	if err != nil {
		t.Fatal(err)
	}
	release()
	if e := got.Values["203.0.113.66"]; e == nil || e.At != 7 {
		t.Fatalf("the migrated list lost its value: %+v", got.Values)
	}
	b, err := os.ReadFile(s.Path("ours"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cret") || !strings.Contains(string(b), `"base_url":"https://ti.example.com/ti"`) {
		t.Fatalf("the migrated state:\n%s", b)
	}
	if _, err := os.Stat(old.Path("ours")); !os.IsNotExist(err) {
		t.Fatalf("the old state is still there: %v", err)
	}
	// After a rotation, the same list is found.
	rotated := NewStore(root, "default", "https://analyst:n3w@ti.example.com/ti")
	if err := rotated.Migrate(); err != nil {
		t.Fatal(err)
	}
	lists, err := rotated.List()
	if err != nil || len(lists) != 1 || lists[0].Name != "ours" || lists[0].Values != 1 {
		t.Fatalf("after rotating the password: %+v, %v", lists, err)
	}
	leftover, _ := filepath.Glob(filepath.Join(old.Dir, "*.json"))
	if len(leftover) != 0 {
		t.Fatalf("left in the old scope: %v", leftover)
	}
}
