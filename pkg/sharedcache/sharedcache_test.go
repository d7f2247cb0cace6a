package sharedcache

import (
	"net"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
)

// The store prints its URL, in cache stats, --debug and its one notice,
// without the password, in the form every printed URL has (config list's).
func TestTheStoreNeverPrintsThePassword(t *testing.T) {
	const secret = "s3cret-pw"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // refused from now on
	raw := "redis://:" + secret + "@" + addr + "/0"
	var notice strings.Builder
	s, err := Open(Options{URL: raw, Notice: &notice})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if want := api.RedactRawURL(raw); s.String() != want {
		t.Errorf("String() = %q, want %q", s.String(), want)
	}
	if _, ok := s.Get("k"); ok || !s.Down() {
		t.Fatalf("a refused store answered (down %v)", s.Down())
	}
	if !strings.Contains(notice.String(), api.RedactRawURL(raw)) || strings.Contains(notice.String(), secret) {
		t.Errorf("notice %q: want the URL as %s, no password", notice.String(), api.RedactRawURL(raw))
	}
}

func TestRedactErrHidesThePassword(t *testing.T) {
	raw := "redis://user:pw-123@redis.test:6379/0"
	for _, msg := range []string{"dial " + raw + ": refused", "WRONGPASS pw-123 is wrong"} {
		got := redactErr(errString(msg), raw)
		if strings.Contains(got, "pw-123") || !strings.Contains(got, "[redacted]") {
			t.Errorf("redactErr(%q) = %q", msg, got)
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }
