package api

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
)

// rawServer answers every connection with the bytes of resp, which may
// hold what net/http's server would never send: a reason phrase with
// escape sequences.
func rawServer(t *testing.T, resp string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				r := bufio.NewReader(conn)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				_, _ = conn.Write([]byte(resp))
			}()
		}
	}()
	return "http://" + l.Addr().String()
}

func TestDebugLogSanitizesServerBytes(t *testing.T) {
	base := rawServer(t, "HTTP/1.1 200 \x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\u202eOK\r\n"+
		"Content-Type: application/json\r\nX-Evil: a\u202eb\u200bc\r\nSet-Cookie: session=s3cr3t; Path=/\r\n"+
		"Content-Length: 2\r\nConnection: close\r\n\r\n{}")
	var log bytes.Buffer
	c, _ := newClient(t, base, func(o *Options) { o.Debug = &log; o.Retries = 0 })
	if _, err := c.Search(context.Background(), "x", 0); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	if strings.ContainsAny(out, "\x1b\x07\u202e") || strings.Contains(out, "s3cr3t") {
		t.Fatalf("debug log passes server bytes raw:\n%q", out)
	}
	for _, want := range []string{"< HTTP/1.1 200 ␛␛\ufffdOK", "X-Evil: a\ufffdb<U+200B>c", "Set-Cookie: session=[redacted]"} {
		if !strings.Contains(out, want) {
			t.Errorf("debug log lacks %q:\n%s", want, out)
		}
	}
}

func TestDebugLogRedactsUserInfo(t *testing.T) {
	base := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
	u, _ := url.Parse(base)
	u.User = url.UserPassword("admin", "hunter2")
	var log bytes.Buffer
	c, _ := newClient(t, u.String(), func(o *Options) { o.Debug = &log; o.Retries = 0 })
	_, _ = c.Search(context.Background(), "x", 0)
	out := log.String()
	if strings.Contains(out, "hunter2") || strings.Contains(out, "admin") {
		t.Fatalf("user info in the debug log:\n%s", out)
	}
	if !strings.Contains(out, "http://[redacted]@"+u.Host) {
		t.Errorf("debug log does not show where the user info was:\n%s", out)
	}
}

func TestRedactRawURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://admin:hunter2@ti.example/x?q=1": "https://[redacted]@ti.example/x?q=1",
		"ftp://admin:hunter2@ti.example":         "ftp://[redacted]@ti.example",
		"admin:hunter2@ti.example":               "[redacted]@ti.example",
		"https://ti.example/a@b":                 "https://ti.example/a@b",
		"https://a:b%zz@ti.example":              "https://[redacted]@ti.example",
		"https://ti.example":                     "https://ti.example",
	} {
		if got := RedactRawURL(in); got != want {
			t.Errorf("RedactRawURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBaseURLErrorHidesUserInfo(t *testing.T) {
	_, err := New(Options{BaseURL: "ftp://admin:hunter2@ti.example"}, false)
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "[redacted]@ti.example") {
		t.Errorf("error %v", err)
	}
}

// A server that echoes the token in headers of its own, as is, percent-
// encoded or in base64: --debug prints none of them.
func TestDebugLogRedactsTheTokenAnywhere(t *testing.T) {
	const tok = "tok-Secret/42+="
	b64 := "dG9rLVNlY3JldC80Mis9" // base64 of tok
	base := rawServer(t, "HTTP/1.1 401 Unauthorized\r\n"+
		"X-Echo-Authorization: Bearer "+tok+"\r\nLocation: https://other.example/?t="+url.QueryEscape(tok)+"\r\n"+
		"X-Basic: "+b64+"\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
	var log bytes.Buffer
	c, _ := newClient(t, base, func(o *Options) { o.Debug = &log; o.Retries = 0; o.Token = tok })
	_, _ = c.Search(context.Background(), "x", 0)
	out := log.String()
	for _, leak := range []string{tok, url.QueryEscape(tok), b64} {
		if strings.Contains(out, leak) {
			t.Fatalf("the debug log holds the token as %q:\n%s", leak, out)
		}
	}
	if !strings.Contains(out, "X-Echo-Authorization: Bearer [redacted]") || !strings.Contains(out, "X-Basic: [redacted]") {
		t.Fatalf("the echoed headers are not shown redacted:\n%s", out)
	}
}
