package api

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// testHost is a name ProxyFromEnvironment does not treat as loopback (it
// never proxies localhost or 127.0.0.1); the test proxy resolves it.
const testHost = "ti.test"

// privateCA makes a self-signed certificate for testHost, standing in for a
// private CA, and returns the server certificate and the PEM file of it.
func privateCA(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tilookup test CA"},
		DNSNames:              []string{testHost},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, path
}

// tlsServer serves a search answer over TLS with cert, recording the
// Authorization header of each request.
func tlsServer(t *testing.T, cert tls.Certificate, maxVersion uint16) (*httptest.Server, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprint(w, `{"query":"x","results":[]}`)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: maxVersion}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &auth
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// resolvingTransport dials testHost as 127.0.0.1, for tests that need the
// certificate's name without a proxy.
func resolvingTransport(t *testing.T, o TransportOptions) *http.Transport {
	t.Helper()
	tr, err := NewTransport(o)
	if err != nil {
		t.Fatal(err)
	}
	tr.Proxy = nil
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, p, _ := net.SplitHostPort(addr)
		return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort("127.0.0.1", p))
	}
	return tr
}

func TestCACertTrustsPrivateCA(t *testing.T) {
	cert, caFile := privateCA(t)
	srv, _ := tlsServer(t, cert, 0)
	base := "https://" + net.JoinHostPort(testHost, port(t, srv))

	// Without ca_cert the system roots do not know the private CA.
	c, _ := newClient(t, base, func(o *Options) { o.Retries = 0; o.Transport = resolvingTransport(t, TransportOptions{}) })
	_, err := c.Search(context.Background(), "x", 0)
	if failure.KindOf(err) != failure.Network || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("without ca_cert: %v (kind %s), want a certificate error", err, failure.KindOf(err))
	}
	c, _ = newClient(t, base, func(o *Options) { o.Transport = resolvingTransport(t, TransportOptions{CACertFile: caFile}) })
	if _, err := c.Search(context.Background(), "x", 0); err != nil {
		t.Fatalf("with ca_cert: %v", err)
	}
	c, _ = newClient(t, base, func(o *Options) { o.Transport = resolvingTransport(t, TransportOptions{InsecureSkipVerify: true}) })
	if _, err := c.Search(context.Background(), "x", 0); err != nil {
		t.Fatalf("with insecure_skip_verify: %v", err)
	}
}

func TestCACertFileErrorsAreConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("not DER")})
	for name, path := range map[string]string{
		"missing":  filepath.Join(dir, "nope.pem"),
		"not PEM":  write("text.pem", "hello\n"),
		"bad cert": write("bad.pem", string(bad)),
		"only key": write("key.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
	} {
		_, err := NewTransport(TransportOptions{CACertFile: path})
		if failure.KindOf(err) != failure.Config || !strings.Contains(err.Error(), "ca_cert") {
			t.Errorf("%s: %v (kind %s), want a config error naming ca_cert", name, err, failure.KindOf(err))
		}
	}
}

func TestTLSBelow12Refused(t *testing.T) {
	cert, caFile := privateCA(t)
	srv, auth := tlsServer(t, cert, tls.VersionTLS11)
	base := "https://" + net.JoinHostPort(testHost, port(t, srv))
	c, _ := newClient(t, base, func(o *Options) {
		o.Retries = 0
		o.Transport = resolvingTransport(t, TransportOptions{CACertFile: caFile, InsecureSkipVerify: true})
	})
	_, err := c.Search(context.Background(), "x", 0)
	if failure.KindOf(err) != failure.Network {
		t.Fatalf("TLS 1.1 server: %v (kind %s), want a network error", err, failure.KindOf(err))
	}
	if len(*auth) != 0 {
		t.Fatal("a request reached a TLS 1.1 server")
	}
}

func TestHeaderTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	tr, err := NewTransport(TransportOptions{HeaderTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(t, srv.URL, func(o *Options) { o.Retries = 0; o.Timeout = 5 * time.Second; o.Transport = tr })
	start := time.Now()
	_, err = c.Search(context.Background(), "x", 0)
	if failure.KindOf(err) != failure.Timeout {
		t.Fatalf("got %v (kind %s), want a timeout", err, failure.KindOf(err))
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %s; the header timeout did not apply", d)
	}
}

func TestDeadlineBoundsAllRetries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Token: token, Retries: 5, Timeout: 50 * time.Millisecond, Deadline: 300 * time.Millisecond}, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Search(context.Background(), "x", 0)
	if d := time.Since(start); d > 700*time.Millisecond {
		t.Fatalf("took %s with a 300ms deadline", d)
	}
	// The last answer says more than "deadline passed".
	if failure.KindOf(err) != failure.Server || !strings.Contains(err.Error(), "503") {
		t.Fatalf("got %v (kind %s), want the 503", err, failure.KindOf(err))
	}

	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	c, _ = New(Options{BaseURL: slow.URL, Token: token, Timeout: time.Second, Deadline: 200 * time.Millisecond}, false)
	if c.opt.Deadline != time.Second {
		t.Errorf("deadline %s shorter than the timeout was kept", c.opt.Deadline)
	}
	// A deadline that ends inside a request is reported as the deadline,
	// not as the per-request timeout.
	c.opt.Deadline = 200 * time.Millisecond
	_, err = c.Search(context.Background(), "x", 0)
	if failure.KindOf(err) != failure.Timeout || !strings.Contains(err.Error(), "200ms deadline") {
		t.Fatalf("got %v (kind %s), want the deadline", err, failure.KindOf(err))
	}
}

// connectProxy is a CONNECT-only HTTPS proxy on loopback. It records each
// CONNECT target and its headers and tunnels to 127.0.0.1 on the target's
// port, so that testHost needs no DNS.
type connectProxy struct {
	mu      sync.Mutex
	targets []string
	headers []http.Header
}

func (p *connectProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
		return
	}
	p.mu.Lock()
	p.targets = append(p.targets, r.Host)
	p.headers = append(p.headers, r.Header.Clone())
	p.mu.Unlock()
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	up, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer up.Close()
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, rw); done <- struct{}{} }()
	go func() { _, _ = io.Copy(conn, up); done <- struct{}{} }()
	<-done
}

// TestHTTPSProxyFromEnvironment runs the client in a child process, since
// net/http reads HTTPS_PROXY and NO_PROXY once per process.
func TestHTTPSProxyFromEnvironment(t *testing.T) {
	if os.Getenv(proxyChildEnv) != "" {
		t.Skip("in the child")
	}
	cert, caFile := privateCA(t)
	srv, auth := tlsServer(t, cert, 0)
	proxy := &connectProxy{}
	ps := httptest.NewServer(proxy)
	defer ps.Close()
	target := net.JoinHostPort(testHost, port(t, srv))

	run := func(noProxy string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProxyChild$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(),
			proxyChildEnv+"=https://"+target+"|"+caFile,
			"HTTPS_PROXY="+ps.URL, "https_proxy=", "NO_PROXY="+noProxy, "no_proxy=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := run("")
	if err != nil {
		t.Fatalf("through the proxy: %v\n%s", err, out)
	}
	proxy.mu.Lock()
	targets, headers := proxy.targets, proxy.headers
	proxy.mu.Unlock()
	if len(targets) != 1 || targets[0] != target {
		t.Fatalf("CONNECT targets = %q, want [%s]", targets, target)
	}
	for name, vals := range headers[0] {
		if strings.Contains(strings.Join(vals, " "), token) {
			t.Errorf("the proxy saw the token in CONNECT header %s", name)
		}
	}
	if len(*auth) != 1 || (*auth)[0] != "Bearer "+token {
		t.Fatalf("the server got Authorization %q through the tunnel", *auth)
	}

	// NO_PROXY: the client goes direct, where ti.test does not resolve.
	out, err = run(testHost)
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("with NO_PROXY the child should fail to reach %s directly: %v\n%s", testHost, err, out)
	}
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	if len(proxy.targets) != 1 {
		t.Fatalf("NO_PROXY=%s still went through the proxy: %q", testHost, proxy.targets)
	}
}

const proxyChildEnv = "TILOOKUP_TEST_PROXY_CHILD"

func TestProxyChild(t *testing.T) {
	spec := os.Getenv(proxyChildEnv)
	if spec == "" {
		t.Skip("run by TestHTTPSProxyFromEnvironment")
	}
	base, caFile, _ := strings.Cut(spec, "|")
	tr, err := NewTransport(TransportOptions{CACertFile: caFile})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{BaseURL: base, Token: token, Timeout: 5 * time.Second, Transport: tr}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Search(context.Background(), "x", 0); err != nil {
		t.Fatal(err)
	}
}

func TestRedirectToPlainHTTPDropsToken(t *testing.T) {
	c, _ := newClient(t, "https://ti.example")
	first, _ := http.NewRequest(http.MethodGet, "https://ti.example/api/events/me", nil)
	next, _ := http.NewRequest(http.MethodGet, "http://ti.example/api/events/me", nil)
	next.Header.Set("Authorization", "Bearer "+token)
	next.Header.Set("Cookie", "jwt="+token)
	if err := c.checkRedirect(next, []*http.Request{first}); err != nil {
		t.Fatal(err)
	}
	if next.Header.Get("Authorization") != "" || next.Header.Get("Cookie") != "" {
		t.Fatalf("credentials kept on a redirect to plain http: %v", next.Header)
	}
}

func TestRedirectLoopIsNotRetried(t *testing.T) {
	var n int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		http.Redirect(w, r, r.URL.RequestURI(), http.StatusFound)
	}))
	defer srv.Close()
	c, rec := newClient(t, srv.URL) // Retries: 2
	_, err := c.Search(context.Background(), "x", 0)
	if failure.KindOf(err) != failure.Network || !strings.Contains(err.Error(), "5 redirects") {
		t.Fatalf("got %v (kind %s)", err, failure.KindOf(err))
	}
	mu.Lock()
	defer mu.Unlock()
	if n != maxRedirects+1 || len(rec.sleeps) != 0 {
		t.Fatalf("%d requests and %d retries for a redirect loop; want %d and none", n, len(rec.sleeps), maxRedirects+1)
	}
}
