package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func TestHTTPRequiresToken(t *testing.T) {
	token := NewToken()
	srv := httptest.NewServer(HTTPHandler(New(fakeConfig(DefaultMaxBytes, nil)), token))
	defer srv.Close()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer wrong", "Basic " + token, token, "Bearer " + token + "x", "Bearer " + token[:len(token)-1]} {
		req, _ := http.NewRequest("POST", srv.URL+Path, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: status %d, want 401 with WWW-Authenticate", auth, resp.StatusCode)
		}
	}
}

// A page of another origin is refused before the token is even checked
// (DNS rebinding); no Origin, or a loopback one, is served.
func TestHTTPOrigin(t *testing.T) {
	token := NewToken()
	srv := httptest.NewServer(HTTPHandler(New(fakeConfig(DefaultMaxBytes, nil)), token))
	defer srv.Close()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for origin, want := range map[string]int{
		"":                        http.StatusOK,
		"http://localhost:3000":   http.StatusOK,
		"http://127.0.0.1:8765":   http.StatusOK,
		"https://[::1]":           http.StatusOK,
		"http://LOCALHOST":        http.StatusOK,
		"https://evil.example":    http.StatusForbidden,
		"http://127.0.0.1.nip.io": http.StatusForbidden,
		"http://10.0.0.1":         http.StatusForbidden,
		"null":                    http.StatusForbidden,
		"file://":                 http.StatusForbidden,
		"http://user@localhost":   http.StatusForbidden,
	} {
		req, _ := http.NewRequest("POST", srv.URL+Path, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Origin %q: status %d, want %d", origin, resp.StatusCode, want)
		}
	}
}

func TestHTTPClient(t *testing.T) {
	token := NewToken()
	srv := httptest.NewServer(HTTPHandler(New(fakeConfig(DefaultMaxBytes, nil)), token))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	transport := &sdk.StreamableClientTransport{Endpoint: srv.URL + Path, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := c.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 6 {
		t.Fatalf("list tools: %v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "detect", Arguments: map[string]any{"values": []string{"evil[.]example"}}})
	if err != nil || res.IsError || !strings.Contains(text(res), `"value":"evil.example"`) {
		t.Fatalf("detect over HTTP: %v %v", res, err)
	}

	// Without the token the same client is refused.
	c2 := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	_, err = c2.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: srv.URL + Path, MaxRetries: -1}, nil)
	if err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "unauthorized") {
		t.Fatalf("a client without the token connected: %v", err)
	}
}

func TestHTTPRefusesForeignHost(t *testing.T) {
	token := NewToken()
	srv := httptest.NewServer(HTTPHandler(New(fakeConfig(DefaultMaxBytes, nil)), token))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+Path, strings.NewReader(`{}`))
	req.Host = "attacker.example" // DNS rebinding: a page on another name reaches loopback
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d for a foreign Host, want 403", resp.StatusCode)
	}
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8765":     true,
		"127.0.0.1:0":        true,
		"127.1.2.3:80":       true,
		"[::1]:8765":         true,
		"localhost:8765":     true,
		"0.0.0.0:8765":       false,
		"[::]:8765":          false,
		":8765":              false,
		"192.168.1.5:80":     false,
		"example.com:80":     false,
		"127.0.0.1":          false,
		"127.0.0.1:":         false,
		"[::ffff:1.2.3.4]:1": false,
	} {
		if err := CheckLoopback(addr); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}
