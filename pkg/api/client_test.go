package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

const token = "s3cret-token-value"

// recorder keeps the sleeps a client asked for, so retry tests run at once.
type recorder struct {
	mu     sync.Mutex
	sleeps []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.sleeps = append(r.sleeps, d)
	r.mu.Unlock()
	return ctx.Err()
}

func newClient(t *testing.T, base string, mod ...func(*Options)) (*Client, *recorder) {
	t.Helper()
	rec := &recorder{}
	o := Options{BaseURL: base, Token: token, CookieName: "jwt", Retries: 2, Timeout: 2 * time.Second, Sleep: rec.sleep}
	for _, m := range mod {
		m(&o)
	}
	c, err := New(o, false)
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

func TestSearchRequestShape(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		fmt.Fprint(w, `{"query":"x","results":[]}`)
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL+"/ti/")
	q := "http://a.example/p?x=1&y=%41#frag b"
	if _, err := c.Search(context.Background(), q, 7); err != nil {
		t.Fatal(err)
	}
	if got.URL.Path != "/ti/api/ti/resources/search" {
		t.Errorf("path = %q", got.URL.Path)
	}
	if v := got.URL.Query().Get("q"); v != q {
		t.Errorf("q arrived as %q, want %q", v, q)
	}
	if v := got.URL.Query().Get("limit"); v != "7" {
		t.Errorf("limit = %q", v)
	}
	if v := got.Header.Get("Authorization"); v != "Bearer "+token {
		t.Errorf("Authorization = %q", v)
	}
	if _, err := got.Cookie("jwt"); err == nil {
		t.Error("search sent the events cookie")
	}
}

func TestSearchWithoutLimitSendsNone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("limit") {
			w.WriteHeader(400)
		}
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL)
	if _, err := c.Search(context.Background(), "x", 0); err != nil {
		t.Fatal(err)
	}
}

func TestEventsSendsBearerAndCookie(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		fmt.Fprint(w, `{"events":[]}`)
	}))
	defer srv.Close()
	c, _ := newClient(t, "http://127.0.0.1:1", func(o *Options) { o.EventsBaseURL = srv.URL + "/gw" })
	body, err := c.EventsMe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != `{"events":[]}` {
		t.Errorf("body = %s", body)
	}
	if got.URL.Path != "/gw/api/events/me" {
		t.Errorf("path = %q", got.URL.Path)
	}
	if ck, err := got.Cookie("jwt"); err != nil || ck.Value != token {
		t.Errorf("cookie = %v, %v", ck, err)
	}
	if got.Header.Get("Authorization") != "Bearer "+token {
		t.Error("no bearer header on events")
	}
}

func TestEventsNoCookieWhenNameEmpty(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Cookies()) != 0 {
			w.WriteHeader(400)
		}
		fmt.Fprint(w, `[]`)
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL, func(o *Options) { o.CookieName = "" })
	if _, err := c.EventsMe(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestStatusErrors(t *testing.T) {
	cases := []struct {
		op     string
		status int
		ctype  string
		body   string
		kind   failure.Kind
		exit   int
		msg    string
	}{
		{OpSearch, 400, "application/json", `{"error":{"code":"bad_request","message":"limit out of range"}}`, failure.BadRequest, 2, "limit out of range"},
		{OpSearch, 401, "application/json", `{"message":"invalid token"}`, failure.Auth, 4, "auth login"},
		{OpEvents, 401, "", ``, failure.Auth, 4, "JWT"},
		{OpEvents, 403, "application/json", `{"detail":"no permission"}`, failure.Forbidden, 4, "permission"},
		{OpEvents, 404, "text/plain", `not here`, failure.NotFound, 5, "no event record"},
		{OpSearch, 500, "application/json", `{"errors":[{"message":"db down"}]}`, failure.Server, 6, "db down"},
		{OpSearch, 502, "text/html", "<html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("x", 5000) + "</body></html>", failure.Server, 6, "HTML page: 502 Bad Gateway"},
		{OpSearch, 418, "", `teapot`, failure.BadRequest, 2, "teapot"},
		{OpSearch, 413, "application/taxii+json;version=2.1", `{"title":"ProcessingError","http_status":"413","description":"Content-Length header not valid or exceeds maximum!"}`, failure.BadRequest, 2, "exceeds maximum"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s-%d", tc.op, tc.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c, _ := newClient(t, srv.URL)
			var err error
			if tc.op == OpSearch {
				_, err = c.Search(context.Background(), "x", 0)
			} else {
				_, err = c.EventsMe(context.Background())
			}
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *APIError", err)
			}
			if ae.Status != tc.status || ae.Kind != tc.kind || failure.ExitCode(err) != tc.exit {
				t.Errorf("status %d kind %s exit %d; want %d %s %d", ae.Status, ae.Kind, failure.ExitCode(err), tc.status, tc.kind, tc.exit)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q lacks %q", err, tc.msg)
			}
			if len(err.Error()) > 500 || strings.Contains(err.Error(), "\n") {
				t.Errorf("message is not one short line: %q", err)
			}
			if strings.Contains(err.Error(), token) {
				t.Error("token in error message")
			}
		})
	}
}

func TestRetriesHonourRetryAfter(t *testing.T) {
	cases := []struct {
		name   string
		header func() string
		want   time.Duration
	}{
		{"seconds", func() string { return "3" }, 3 * time.Second},
		{"http-date", func() string { return time.Now().Add(5 * time.Second).UTC().Format(http.TimeFormat) }, 4 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					w.Header().Set("Retry-After", tc.header())
					w.WriteHeader(429)
					return
				}
				fmt.Fprint(w, `{"query":"x"}`)
			}))
			defer srv.Close()
			c, rec := newClient(t, srv.URL)
			if _, err := c.Search(context.Background(), "x", 0); err != nil {
				t.Fatal(err)
			}
			if n.Load() != 2 {
				t.Fatalf("%d requests, want 2", n.Load())
			}
			// The wait shows up once as the shared pause or the retry sleep.
			var longest time.Duration
			for _, d := range rec.sleeps {
				longest = max(longest, d)
			}
			if longest < tc.want || longest > tc.want+2*time.Second {
				t.Errorf("slept %v, want about %v", rec.sleeps, tc.want)
			}
		})
	}
}

func TestRetryStatusesAndGiveUp(t *testing.T) {
	for _, status := range []int{429, 502, 503, 504} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(status)
		}))
		c, _ := newClient(t, srv.URL)
		_, err := c.Search(context.Background(), "x", 0)
		srv.Close()
		if n.Load() != 3 {
			t.Errorf("%d: %d tries, want 3 (1 + 2 retries)", status, n.Load())
		}
		if failure.ExitCode(err) != 6 {
			t.Errorf("%d: exit %d, want 6", status, failure.ExitCode(err))
		}
	}
	for _, status := range []int{400, 401, 403, 404, 500} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			w.WriteHeader(status)
		}))
		c, _ := newClient(t, srv.URL)
		c.Search(context.Background(), "x", 0)
		srv.Close()
		if n.Load() != 1 {
			t.Errorf("%d was retried: %d tries", status, n.Load())
		}
	}
}

func TestBackoffIsCappedAndJittered(t *testing.T) {
	for attempt := 0; attempt < 40; attempt++ {
		d := backoff(attempt)
		if d <= 0 || d > backoffCap {
			t.Fatalf("backoff(%d) = %v", attempt, d)
		}
	}
	seen := map[time.Duration]bool{}
	for range 20 {
		seen[backoff(3)] = true
	}
	if len(seen) < 2 {
		t.Error("backoff has no jitter")
	}
}

func TestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL, func(o *Options) { o.Timeout = 100 * time.Millisecond; o.Retries = 0 })
	start := time.Now()
	_, err := c.Search(context.Background(), "x", 0)
	if failure.KindOf(err) != failure.Timeout || failure.ExitCode(err) != 6 {
		t.Fatalf("err = %v (kind %s)", err, failure.KindOf(err))
	}
	if time.Since(start) > 2*time.Second {
		t.Error("timeout did not cut the request short")
	}
	if !strings.Contains(err.Error(), "no complete answer within 100ms (1 try, ") || !strings.Contains(err.Error(), " waited in all)") {
		t.Errorf("message does not count the try and the wait: %v", err)
	}
	// Three tries: the message says so, and the whole time waited.
	c, _ = newClient(t, srv.URL, func(o *Options) { o.Timeout = 100 * time.Millisecond; o.Retries = 2 })
	start = time.Now()
	_, err = c.Search(context.Background(), "x", 0)
	took := time.Since(start)
	var waited time.Duration
	if _, rest, ok := strings.Cut(err.Error(), "3 tries, "); ok {
		waited, _ = time.ParseDuration(strings.TrimSuffix(strings.Fields(rest)[0], ","))
	}
	if waited < 300*time.Millisecond || waited > took+100*time.Millisecond {
		t.Errorf("message %q does not count 3 tries and the %s waited", err, took)
	}
}

func TestConnectionRefusedIsRetriedThenNetwork(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c, rec := newClient(t, "http://"+addr)
	_, err := c.Search(context.Background(), "x", 0)
	if failure.KindOf(err) != failure.Network {
		t.Fatalf("err = %v (kind %s)", err, failure.KindOf(err))
	}
	if len(rec.sleeps) != 2 {
		t.Errorf("slept %d times, want 2 retries", len(rec.sleeps))
	}
	if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("message %q", err)
	}
}

func TestBrokenBodies(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		kind    failure.Kind
		msg     string
	}{
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			io.WriteString(w, `{"query":"x","res`)
		}, failure.Network, "closed before"},
		{"malformed", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"query": nope}`) }, failure.Decode, "not valid JSON"},
		{"empty", func(w http.ResponseWriter, r *http.Request) {}, failure.Decode, "empty body"},
		{"array", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `[1,2]`) }, failure.Decode, "not a JSON object"},
		{"html-200", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html><title>Login</title></html>")
		}, failure.Decode, "not a JSON object"},
		{"too-large", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"query":"`+strings.Repeat("a", 2048)+`"}`)
		}, failure.Decode, "larger than the 1 KiB cap"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			c, _ := newClient(t, srv.URL, func(o *Options) { o.MaxBody = 1024 })
			_, err := c.Search(context.Background(), "x", 0)
			if failure.KindOf(err) != tc.kind || failure.ExitCode(err) != 6 {
				t.Fatalf("err = %v (kind %s), want kind %s", err, failure.KindOf(err), tc.kind)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q lacks %q", err, tc.msg)
			}
		})
	}
}

func TestRedirectToOtherHostDropsToken(t *testing.T) {
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization") + "|" + r.Header.Get("Cookie"))
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer other.Close()
	// Same machine, other host name: localhost vs 127.0.0.1.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+r.URL.Path, http.StatusFound)
	}))
	defer origin.Close()
	c, _ := newClient(t, origin.URL)
	if _, err := c.EventsMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := leaked.Load().(string); got != "|" {
		t.Errorf("credentials followed the redirect: %q", got)
	}
}

// The credentials stay behind when a redirect leaves the host, also where
// net/http would forward them: the same host name on another port (a
// token belongs to one origin), for both endpoints.
func TestRedirectToOtherPortDropsCredentials(t *testing.T) {
	for _, call := range []struct {
		name string
		do   func(*Client) error
	}{
		{"search", func(c *Client) error { _, err := c.Search(context.Background(), "a.example", 0); return err }},
		{"events", func(c *Client) error { _, err := c.EventsMe(context.Background()); return err }},
	} {
		var got atomic.Value
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.Store(r.Header.Get("Authorization") + "|" + r.Header.Get("Cookie"))
			fmt.Fprint(w, `{"query":"a.example","detected_type":"domain","results":[]}`)
		}))
		origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
		}))
		c, _ := newClient(t, origin.URL)
		if err := call.do(c); err != nil {
			t.Errorf("%s: %v", call.name, err)
		}
		if v, _ := got.Load().(string); v != "|" {
			t.Errorf("%s: the credentials followed the redirect to another port: %q", call.name, v)
		}
		origin.Close()
		other.Close()
	}
}

func TestRedirectSameHostKeepsTokenAndLoopStops(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/new/api/events/me" {
			if r.Header.Get("Authorization") != "Bearer "+token {
				w.WriteHeader(401)
			}
			fmt.Fprint(w, `{}`)
			return
		}
		if r.URL.Path == "/loop/api/events/me" {
			n.Add(1)
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
			return
		}
		http.Redirect(w, r, "/new"+r.URL.Path, http.StatusMovedPermanently)
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL)
	if _, err := c.EventsMe(context.Background()); err != nil {
		t.Fatalf("same-host redirect: %v", err)
	}
	c, _ = newClient(t, srv.URL+"/loop", func(o *Options) { o.Retries = 0 })
	_, err := c.EventsMe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Fatalf("loop: err = %v", err)
	}
	if n.Load() > maxRedirects+1 {
		t.Errorf("followed %d redirects", n.Load())
	}
}

func TestPlainHTTPToRemoteHostRefused(t *testing.T) {
	for _, u := range []string{"http://ti.example.com", "http://192.0.2.1:8080/x"} {
		_, err := New(Options{BaseURL: u, Token: token}, false)
		if failure.ExitCode(err) != 3 || !strings.Contains(err.Error(), "plain http") {
			t.Errorf("%s: err = %v", u, err)
		}
		if _, err := New(Options{BaseURL: u, Token: token}, true); err != nil {
			t.Errorf("%s with allow_insecure_http: %v", u, err)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://localhost", "http://[::1]:9", "https://ti.example.com"} {
		if _, err := New(Options{BaseURL: u, Token: token}, false); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	_, err := New(Options{BaseURL: "https://ok.example", EventsBaseURL: "http://ev.example"}, false)
	if failure.ExitCode(err) != 3 {
		t.Errorf("events URL over http: %v", err)
	}
	if _, err := New(Options{}, false); failure.ExitCode(err) != 3 {
		t.Errorf("no base URL: %v", err)
	}
}

func TestDecodeSearchTolerant(t *testing.T) {
	body := []byte(`{"query":"q","detected_type":null,"strategy":5,"extra":{"a":1},
		"results":[{"label":"L","count":9007199254740993,"preview":[{"n":9007199254740993}]},{"count":"12"},null]}`)
	r, err := DecodeSearch(body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Query != "q" || len(r.Results) != 3 || r.Results[0].Label != "L" {
		t.Errorf("decoded %+v", r)
	}
	if r.Results[0].Count.String() != "9007199254740993" {
		t.Errorf("count = %s", r.Results[0].Count)
	}
	if !bytes.Equal(r.Raw, body) {
		t.Error("raw bytes changed")
	}
}

func TestDebugLogRedacts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{}`) }))
	defer srv.Close()
	var log bytes.Buffer
	c, _ := newClient(t, srv.URL, func(o *Options) { o.Debug = &log })
	c.EventsMe(context.Background())
	c.Search(context.Background(), "x", 0)
	out := log.String()
	if strings.Contains(out, token) {
		t.Fatalf("token in debug log:\n%s", out)
	}
	for _, want := range []string{"> GET " + srv.URL + "/api/events/me", "Authorization: Bearer [redacted]", "Cookie: jwt=[redacted]", "< HTTP/1.1 200 OK"} {
		if !strings.Contains(out, want) {
			t.Errorf("debug log lacks %q:\n%s", want, out)
		}
	}
}

// A 429 is about this client's pace: every request waits. A 503 with
// Retry-After concerns one value: only its retry waits.
func TestPauseIsSharedOnlyFor429(t *testing.T) {
	for _, tc := range []struct {
		status int
		shared bool
	}{{429, true}, {503, false}, {502, false}} {
		var n atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(tc.status)
				return
			}
			fmt.Fprint(w, `{}`)
		}))
		c, rec := newClient(t, srv.URL)
		c.Search(context.Background(), "a", 0)
		if len(rec.sleeps) == 0 || rec.sleeps[0] != 7*time.Second {
			t.Errorf("%d: the refused value did not wait its Retry-After: %v", tc.status, rec.sleeps)
		}
		rec.sleeps = nil
		c.Search(context.Background(), "b", 0)
		waited := len(rec.sleeps) > 0 && rec.sleeps[0] >= 5*time.Second
		if waited != tc.shared {
			t.Errorf("%d: another value waited %v, want shared pause %v", tc.status, rec.sleeps, tc.shared)
		}
		srv.Close()
	}
}

func TestRetryAfterNeverWraps(t *testing.T) {
	now := time.Now()
	for v, want := range map[string]time.Duration{
		"3":                    3 * time.Second,
		"18446744074":          math.MaxInt64,
		"99999999999999999999": math.MaxInt64,
		"-5":                   0,
		"soon":                 0,
	} {
		if got := retryAfter(v, now); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", v, got, want)
		}
	}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "18446744074")
		w.WriteHeader(503)
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL)
	_, err := c.Search(context.Background(), "a", 0)
	if n.Load() != 1 || err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("%d requests, err %v: a huge Retry-After must end the value at once", n.Load(), err)
	}
}

func TestCancelIsInterrupted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Search(ctx, "x", 0)
	if failure.ExitCode(err) != 130 {
		t.Errorf("err = %v, exit %d", err, failure.ExitCode(err))
	}
}

func TestThrottleGatesEveryTry(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(503)
			return
		}
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	c, _ := newClient(t, srv.URL)
	if err := c.SetRate(10); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.Search(context.Background(), "x", 0); err != nil {
		t.Fatal(err)
	}
	// The retry is a try too: it waits for the limiter (100 ms at 10/s).
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("2 tries at --rate 10 took %v: the retry was not throttled", d)
	}
}

func TestRateBelowDeadlineIsRefused(t *testing.T) {
	c, _ := newClient(t, "http://127.0.0.1:1")
	err := c.SetRate(1e-7)
	if failure.ExitCode(err) != failure.ExitUsage || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("SetRate(1e-7) = %v", err)
	}
}
