package api

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
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
