package api

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestProxyEnvIsCheckedStrictly(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // "" = accepted
	}{
		{map[string]string{"HTTPS_PROXY": "http://proxy.corp:3128"}, ""},
		{map[string]string{"https_proxy": "proxy.corp:3128"}, ""},
		{map[string]string{"HTTPS_PROXY": "socks5h://127.0.0.1:1080"}, ""},
		{map[string]string{"HTTPS_PROXY": "http://proxy.corp:3128/"}, ""},
		{map[string]string{"HTTPS_PROXY": "proxy.corp:abc"}, "HTTPS_PROXY=proxy.corp:abc is not a proxy URL"},
		{map[string]string{"HTTPS_PROXY": "ftp://proxy.corp"}, `the scheme "ftp"`},
		{map[string]string{"HTTPS_PROXY": "http://"}, "it has no host"},
		{map[string]string{"HTTPS_PROXY": "http://proxy.corp:99999"}, "the port"},
		{map[string]string{"HTTPS_PROXY": "http://proxy.corp/path"}, "no path"},
		{map[string]string{"http_proxy": "http://a b"}, "http_proxy=http://a b is not a proxy URL: it does not parse"},
		{map[string]string{"HTTPS_PROXY": "http://admin:hunter2@proxy.corp:bad"}, "HTTPS_PROXY=http://[redacted]@proxy.corp:bad"},
	} {
		_, err := proxyFromEnv(envMap(tc.env))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.env, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: error %v, want it to hold %q", tc.env, err, tc.want)
		case err != nil && (failure.KindOf(err) != failure.Config || strings.Contains(err.Error(), "hunter2")):
			t.Errorf("%v: %v (kind %s): want a config error without the password", tc.env, err, failure.KindOf(err))
		}
	}
}

func TestProxyChoiceAndNoProxy(t *testing.T) {
	s, err := proxyFromEnv(envMap(map[string]string{
		"HTTPS_PROXY": "http://proxy.corp:3128",
		"NO_PROXY":    "internal.example, .corp.example,192.0.2.0/24, 198.51.100.7, api.example:8443",
	}))
	if err != nil {
		t.Fatal(err)
	}
	for raw, want := range map[string]string{
		"https://ti.example/":          "proxy.corp:3128",
		"http://ti.example/":           "", // no HTTP_PROXY
		"https://localhost/":           "",
		"https://127.0.0.1:8443/":      "",
		"https://internal.example/":    "",
		"https://a.internal.example/":  "",
		"https://xinternal.example/":   "proxy.corp:3128",
		"https://corp.example/":        "",
		"https://x.corp.example/":      "",
		"https://192.0.2.44/":          "",
		"https://198.51.100.7/":        "",
		"https://198.51.100.8/":        "proxy.corp:3128",
		"https://api.example:8443/":    "",
		"https://api.example/":         "proxy.corp:3128",
		"https://INTERNAL.example./":   "",
		"https://[2001:db8::1]:443/x?": "proxy.corp:3128",
	} {
		u, _ := url.Parse(raw)
		p, _ := s.proxy(&http.Request{URL: u})
		got := ""
		if p != nil {
			got = p.Host
		}
		if got != want {
			t.Errorf("%s: proxy %q, want %q", raw, got, want)
		}
	}
	all, _ := proxyFromEnv(envMap(map[string]string{"HTTPS_PROXY": "proxy.corp:1", "no_proxy": "*"}))
	if p, _ := all.proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: "ti.example"}}); p != nil {
		t.Errorf("NO_PROXY=* still proxies to %v", p)
	}
}

func TestUnparsableProxyFailsTransport(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "proxy.corp:abc")
	if _, err := NewTransport(TransportOptions{}); failure.KindOf(err) != failure.Config {
		t.Fatalf("NewTransport: %v (kind %s), want a config error (exit 3)", err, failure.KindOf(err))
	}
}

// A dead proxy is named with its address, and not retried.
func TestDeadProxyIsNamedAndNotRetried(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := l.Addr().String()
	l.Close()
	t.Setenv("HTTP_PROXY", "http://"+dead)
	t.Setenv("NO_PROXY", "")
	tr, err := NewTransport(TransportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	c, err := New(Options{BaseURL: "http://ti.example", Token: token, Retries: 2, Transport: tr, Sleep: rec.sleep}, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Search(context.Background(), "x", 0)
	want := "search: cannot connect to the proxy " + dead + " (HTTP_PROXY): connection refused; check HTTP_PROXY and NO_PROXY"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v\nwant %s...", err, want)
	}
	if failure.KindOf(err) != failure.Network || len(rec.sleeps) != 0 {
		t.Errorf("kind %s after %d retries; want network, no retry", failure.KindOf(err), len(rec.sleeps))
	}
}

// A proxy that refuses the CONNECT tunnel says so.
func TestProxyRefusingTunnel(t *testing.T) {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "denied by policy", http.StatusForbidden)
	}))
	defer proxy.Close()
	t.Setenv("HTTPS_PROXY", proxy.URL)
	tr, err := NewTransport(TransportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	c, _ := New(Options{BaseURL: "https://ti.example", Token: token, Retries: 2, Transport: tr, Sleep: rec.sleep}, false)
	_, err = c.Search(context.Background(), "x", 0)
	if err == nil || !strings.Contains(err.Error(), "(HTTPS_PROXY) refused to connect to the service: 403 Forbidden") || len(rec.sleeps) != 0 {
		t.Errorf("err = %v after %d retries", err, len(rec.sleeps))
	}
}

// A certificate no trusted root signs fails once, with a hint at ca_cert.
func TestUntrustedCertificateIsNotRetried(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake failure is the client's to report
	srv.StartTLS()
	defer srv.Close()
	tr, err := NewTransport(TransportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	c, _ := New(Options{BaseURL: srv.URL, Token: token, Retries: 2, Transport: tr, Sleep: rec.sleep}, false)
	_, err = c.Search(context.Background(), "x", 0)
	if err == nil || !strings.Contains(err.Error(), "not trust") || !strings.Contains(err.Error(), "ca_cert") {
		t.Errorf("err = %v, want it to name the untrusted certificate and ca_cert", err)
	}
	if failure.KindOf(err) != failure.Network || len(rec.sleeps) != 0 || hits.Load() != 0 {
		t.Errorf("kind %s after %d retries, %d requests served; want network, no retry", failure.KindOf(err), len(rec.sleeps), hits.Load())
	}
}

func TestNoContentNamesItsStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()
	c, _ := newClient(t, srv.URL)
	_, err := c.Search(context.Background(), "x", 0)
	if err == nil || !strings.HasPrefix(err.Error(), "search: 204 No Content: the service answered with an empty body") {
		t.Errorf("err = %v", err)
	}
	if _, err := c.EventsMe(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "events: 204 No Content") {
		t.Errorf("events err = %v", err)
	}
}
