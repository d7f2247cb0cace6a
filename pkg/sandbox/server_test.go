package sandbox

import (
	"bytes"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestStartServesBothEndpointsOnLoopback(t *testing.T) {
	s := startServer(t, Options{})
	if s.SearchURL == s.EventsURL {
		t.Fatalf("search and events share %s; the spec puts them on different hosts", s.SearchURL)
	}
	for _, u := range []string{s.SearchURL, s.EventsURL} {
		pu, err := url.Parse(u)
		if err != nil || pu.Scheme != "http" || pu.Path != "" {
			t.Fatalf("URL %q is not a base URL", u)
		}
		host, _, _ := net.SplitHostPort(pu.Host)
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			t.Errorf("%s is not on loopback", u)
		}
	}
	// Start returns once bound: the first request must succeed.
	if r := do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), token: DemoToken}); r.err != nil || r.resp.StatusCode != 200 {
		t.Fatalf("search: %v", r.err)
	}
	if r := do(t, http.DefaultClient, call{url: s.EventsURL + eventsPath, cookie: DemoToken}); r.err != nil || r.resp.StatusCode != 200 {
		t.Fatalf("events: %v", r.err)
	}
}

func TestStartOnGivenAddresses(t *testing.T) {
	s, err := Start(Options{}, "127.0.0.1:0", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	busy := strings.TrimPrefix(s.SearchURL, "http://")
	if _, err := Start(Options{}, busy, ""); err == nil {
		t.Error("Start on a port in use succeeded")
	}
	if _, err := Start(Options{}, "", busy); err == nil {
		t.Error("Start with the events port in use succeeded")
	}
}

func TestCloseIsGracefulAndIdempotent(t *testing.T) {
	s, err := Start(Options{}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	s.grace = 200 * time.Millisecond
	// A request in a long latency fault must not hold Close up for long.
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), token: DemoToken, fault: "latency=1m"})
	})
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > s.grace+2*time.Second {
		t.Errorf("Close took %s", d)
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	client := &http.Client{Timeout: 2 * time.Second}
	if _, err := client.Get(s.SearchURL + searchPath); err == nil {
		t.Error("server still answers after Close")
	}
}

// A connection that never sends a request (a client's spare dial) has
// nothing to finish: Close does not wait the grace out for it, which made
// every --sandbox run of triage and enrich end two seconds late.
func TestCloseDoesNotWaitForAnIdleDial(t *testing.T) {
	s, err := Start(Options{}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for _, u := range []string{s.SearchURL, s.EventsURL} {
		c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), token: DemoToken})
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d >= shutdownGrace/2 {
		t.Errorf("Close took %s with only unused connections open", d)
	}
	for _, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("an unused connection is still open after Close")
		}
	}
}

func TestLogNeverHoldsTheToken(t *testing.T) {
	var buf bytes.Buffer
	s := startServer(t, Options{Log: &buf, Token: "tok-do-not-log"})
	do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), token: "tok-do-not-log"})
	do(t, http.DefaultClient, call{url: s.EventsURL + eventsPath, cookie: "tok-do-not-log"})
	do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), token: "tok-do-not-log", fault: "status=503;times=1"})
	do(t, http.DefaultClient, call{url: s.SearchURL + "/x%1b%5b31m", token: "tok-do-not-log"})
	s.Close()
	log := buf.String()
	if strings.Contains(log, "tok-do-not-log") {
		t.Fatalf("token in the log:\n%s", log)
	}
	for _, want := range []string{
		"search GET /api/ti/resources/search 200 ",
		"events GET /api/events/me 200 ",
		`search GET /api/ti/resources/search 503 `,
		`fault="status=503;times=1"`,
		" 404 ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "\x1b") {
		t.Errorf("a request put a raw escape into the log:\n%q", log)
	}
	if n := strings.Count(log, "\n"); n != 4 {
		t.Errorf("%d log lines, want 4:\n%s", n, log)
	}
}
