package api

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// TransportOptions say how to reach the service: TLS trust, and how many
// connections to keep.
type TransportOptions struct {
	// CACertFile is a PEM bundle of extra roots (a private CA), trusted in
	// addition to the system's.
	CACertFile string
	// InsecureSkipVerify turns certificate checks off. Only an explicit
	// config key sets it; the caller warns on every run.
	InsecureSkipVerify bool
	// HeaderTimeout bounds the wait for response headers once the request
	// is sent; 0 leaves it to the per-request timeout.
	HeaderTimeout time.Duration
	Concurrency   int
	// Guard, when set, pins the plain-http names it checked to the
	// loopback addresses it found (see LoopbackGuard).
	Guard *LoopbackGuard
}

// NewTransport builds the keep-alive transport every call goes through. It
// honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY (proxy.go: an unusable value
// is a configuration error), and never negotiates below TLS 1.2. An
// unreadable or invalid CA file is a configuration error: silently falling
// back to the system roots would turn a typo into a confusing "unknown
// authority" on every call.
func NewTransport(o TransportOptions) (*http.Transport, error) {
	t := DefaultTransport(o.Concurrency)
	if err := installProxy(t); err != nil {
		return nil, err
	}
	t.ResponseHeaderTimeout = o.HeaderTimeout
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CACertFile != "" {
		pool, err := loadCAFile(o.CACertFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if o.InsecureSkipVerify {
		cfg.InsecureSkipVerify = true //nolint:gosec // explicit opt-in, warned about on every run
	}
	t.TLSClientConfig = cfg
	if o.Guard != nil {
		t.DialContext = o.Guard.dialContext(t.DialContext)
		t.Proxy = o.Guard.proxy(t.Proxy)
	}
	return t, nil
}

func loadCAFile(path string) (*x509.CertPool, error) {
	const hint = "ca_cert must name a readable PEM file of CA certificates"
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot read ca_cert: "+clean(err.Error())).WithHint(hint)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	// AppendCertsFromPEM skips blocks it cannot parse and only reports
	// whether one was added; parse each block so that a damaged bundle is
	// reported rather than half-trusted.
	n := 0
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, failure.Wrap(failure.Config, err, "ca_cert "+clean(path)+" holds a certificate that does not parse: "+clean(err.Error())).WithHint(hint)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, failure.New(failure.Config, "ca_cert %s holds no PEM certificate", clean(path)).WithHint(hint)
	}
	return pool, nil
}

// Resolver looks a name up; net.DefaultResolver is one, tests stub it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// LoopbackGuard decides whether a name may receive the token over plain
// http, by its addresses rather than its spelling: "ti.localhost" is only
// a name, and a resolver may map it anywhere. Check resolves the name once
// and accepts it only when every address is loopback; the transport then
// dials exactly those addresses, so an answer that changes between the
// check and the dial (DNS rebinding) is never used.
type LoopbackGuard struct {
	Resolver Resolver // net.DefaultResolver when nil

	mu     sync.Mutex
	pinned map[string][]netip.Addr // lower-cased name -> checked addresses
}

// Check resolves host, a name of a plain-http base URL, and pins it. An
// address that is not loopback is a configuration error (exit 3): the
// token would cross the network in clear.
func (g *LoopbackGuard) Check(ctx context.Context, host string) error {
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(strings.Trim(name, "[]")); err == nil {
		if ip.IsLoopback() {
			return nil
		}
		return refusePlainHTTP(host, ip.String())
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return failure.Wrap(failure.Network, err, "cannot resolve "+clean(host)+": "+clean(err.Error()))
	}
	if len(addrs) == 0 {
		return failure.New(failure.Network, "cannot resolve %s: no address", clean(host))
	}
	for _, a := range addrs {
		if !a.Unmap().IsLoopback() {
			return refusePlainHTTP(host, a.String())
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.pinned == nil {
		g.pinned = map[string][]netip.Addr{}
	}
	g.pinned[name] = addrs
	return nil
}

func refusePlainHTTP(host, addr string) error {
	return failure.New(failure.Config, "refusing to send the token over plain http to %s: it resolves to %s, which is not a loopback address", clean(host), addr).
		WithHint("use https://, or set allow_insecure_http: true if you accept that the token crosses the network in clear")
}

func (g *LoopbackGuard) addrs(host string) []netip.Addr {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pinned[strings.ToLower(strings.TrimSuffix(host, "."))]
}

type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// dialContext dials a pinned name at its checked addresses, in the order
// the resolver gave them, and anything else as next would.
func (g *LoopbackGuard) dialContext(next dialFunc) dialFunc {
	if next == nil {
		next = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return next(ctx, network, addr)
		}
		pinned := g.addrs(host)
		if pinned == nil {
			return next(ctx, network, addr)
		}
		var firstErr error
		for _, a := range pinned {
			conn, err := next(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return conn, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		return nil, firstErr
	}
}

// proxy keeps a pinned name off any proxy: the token goes to the checked
// loopback address or nowhere, never in clear to a proxy on the network.
func (g *LoopbackGuard) proxy(next func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		if g.addrs(req.URL.Hostname()) != nil || next == nil {
			return nil, nil
		}
		return next(req)
	}
}
