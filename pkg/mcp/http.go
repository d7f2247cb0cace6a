package mcp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the Streamable HTTP endpoint is served.
const Path = "/mcp"

// sessionTimeout closes a session no request has used for this long, so
// that clients that vanish do not pile up.
const sessionTimeout = 30 * time.Minute

// CheckLoopback accepts host:port only when host is a loopback address
// (127.0.0.0/8, ::1) or "localhost": the server holds the user's token and
// quota, so it never listens where another machine can reach it.
func CheckLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want 127.0.0.1:PORT (%v)", addr, err)
	}
	if port == "" {
		return fmt.Errorf("--http %q: no port; want 127.0.0.1:PORT", addr)
	}
	if host == "localhost" {
		return nil
	}
	a, err := netip.ParseAddr(host)
	if err != nil || !a.Unmap().IsLoopback() {
		return fmt.Errorf("--http %q: only a loopback address is allowed (127.0.0.1:PORT or [::1]:PORT): the server answers with your token and quota", addr)
	}
	return nil
}

// NewToken is a fresh bearer token: 32 random bytes, URL-safe.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// HTTPHandler serves s over Streamable HTTP at Path. Every request must
// carry "Authorization: Bearer <token>"; the SDK also refuses a Host
// header that is not loopback (DNS rebinding).
func HTTPHandler(s *sdk.Server, token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{SessionTimeout: sessionTimeout})
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackOrigin(r.Header.Values("Origin")) {
			http.Error(w, "tilookup mcp: requests from a web page of another origin are refused (Origin must be absent or a loopback address)", http.StatusForbidden)
			return
		}
		if !authorized(r, want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tilookup mcp"`)
			http.Error(w, "tilookup mcp: missing or wrong bearer token (Authorization: Bearer <token>, as printed at start or read from --http-token-file)", http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// loopbackOrigin reports whether a request may come from where its Origin
// says: no Origin (not a browser), or a page served from this machine
// (localhost, 127.0.0.0/8, ::1). The MCP transport spec asks servers to
// check it: a web page the user visits could otherwise reach the server
// through DNS rebinding. "null" (a sandboxed or file page) is refused.
func loopbackOrigin(origins []string) bool {
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil {
			return false
		}
		host := u.Hostname()
		if strings.EqualFold(host, "localhost") {
			continue
		}
		if a, err := netip.ParseAddr(host); err != nil || !a.Unmap().IsLoopback() {
			return false
		}
	}
	return true
}

// authorized compares the request's bearer token with the wanted one in
// constant time: hashing both first makes the comparison independent of
// the length too.
func authorized(r *http.Request, want [32]byte) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return false
	}
	got := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}
