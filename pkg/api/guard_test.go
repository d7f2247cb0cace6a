package api

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
)

// stubResolver answers from a map and counts the questions.
type stubResolver struct {
	mu    sync.Mutex
	addrs map[string][]netip.Addr
	calls int
}

func (r *stubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	a, ok := r.addrs[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return a, nil
}

func (r *stubResolver) set(host string, addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var as []netip.Addr
	for _, s := range addrs {
		as = append(as, netip.MustParseAddr(s))
	}
	r.addrs[host] = as
}

func TestGuardRefusesNameResolvingAway(t *testing.T) {
	r := &stubResolver{addrs: map[string][]netip.Addr{}}
	r.set("ti.localhost", "192.0.2.10")
	r.set("mixed.localhost", "127.0.0.1", "192.0.2.10")
	g := &LoopbackGuard{Resolver: r}
	for _, host := range []string{"ti.localhost", "mixed.localhost", "192.0.2.10"} {
		err := g.Check(context.Background(), host)
		if failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "192.0.2.10") || !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("%s: %v", host, err)
		}
	}
	if err := g.Check(context.Background(), "gone.localhost"); failure.ExitCode(err) != failure.ExitService {
		t.Errorf("unresolvable: %v", err)
	}
	if err := g.Check(context.Background(), "::1"); err != nil {
		t.Errorf("loopback literal: %v", err)
	}
}

// The name is resolved once; the connection goes to the address that was
// checked even when the resolver's answer changes afterwards, and never
// through a proxy.
func TestGuardDialsTheCheckedAddress(t *testing.T) {
	var gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		gotAuth = req.Header.Get("Authorization")
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	r := &stubResolver{addrs: map[string][]netip.Addr{}}
	r.set("ti.localhost", "127.0.0.1")
	g := &LoopbackGuard{Resolver: r}
	if err := g.Check(context.Background(), "ti.localhost"); err != nil {
		t.Fatal(err)
	}
	r.set("ti.localhost", "192.0.2.10") // rebinding after the check

	tr, err := NewTransport(TransportOptions{Guard: g})
	if err != nil {
		t.Fatal(err)
	}
	tr.Proxy = g.proxy(func(*http.Request) (*url.URL, error) {
		return nil, errors.New("the pinned name was sent to a proxy")
	})
	req, _ := http.NewRequest("GET", "http://ti.localhost:"+strconv.Itoa(port)+"/", nil)
	req.Header.Set("Authorization", "Bearer t")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotAuth != "Bearer t" {
		t.Fatalf("the loopback server did not get the request")
	}
	if r.calls != 1 {
		t.Fatalf("resolved %d times, want once", r.calls)
	}
}
