package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		spec    string
		want    string // canonical spec; "" for no fault
		wantErr string // substring of the error; "" for valid
	}{
		{"", "", ""},
		{" ; ", "", ""},
		{"none", "", ""},
		{"NONE", "", ""},
		{"status=503", "status=503", ""},
		{" Status = 503 ", "status=503", ""},
		{"503", "status=503", ""},
		{"status=503;times=2", "status=503;times=2", ""},
		{"429;retry-after=1", "status=429;retry-after=1", ""},
		{"retry-after=3", "retry-after=3", ""},
		{"retry-after-date", "retry-after-date", ""},
		{"retry-after-date=5;status=503", "retry-after-date=5;status=503", ""},
		{"latency=2s", "latency=2s", ""},
		{"latency=150ms;status=500", "latency=150ms;status=500", ""},
		{"reset", "reset", ""},
		{"reset=mid", "reset=mid", ""},
		{"reset;rate=0.05", "reset;rate=0.05", ""},
		{"truncate", "truncate", ""},
		{"malformed", "malformed", ""},
		{"html", "html", ""},
		{"huge=2", "huge=2", ""},
		{"empty", "empty", ""},
		{"array", "array", ""},
		{"content-type=text/plain", "content-type=text/plain", ""},
		{"content-type=text/plain; charset=utf-8", "", "unknown clause"}, // ';' splits clauses
		{"slow-drip", "slow-drip", ""},
		{"slow-drip=10ms", "slow-drip=10ms", ""},
		{"redirect-loop", "redirect-loop", ""},
		{"redirect=http://other.example/x?a=b", "redirect=http://other.example/x?a=b", ""},
		{"escape;times=1", "escape;times=1", ""},

		{"bogus", "", "unknown clause"},
		{"status", "", "needs a value"},
		{"status=abc", "", "status must be"},
		{"status=99", "", "status must be"},
		{"status=600", "", "status must be"},
		{"503;status=500", "", "twice"},
		{"reset;truncate", "", "both actions"},
		{"reset=later", "", "before"},
		{"truncate=1", "", "takes no value"},
		{"latency", "", "needs a value"},
		{"latency=fast", "", "Go duration"},
		{"latency=-1s", "", "Go duration"},
		{"latency=11m", "", "Go duration"},
		{"times=0", "", "at least 1"},
		{"times=x;status=503", "", "at least 1"},
		{"times=2", "", "nothing to inject"},
		{"rate=0.5", "", "nothing to inject"},
		{"rate=1.5;reset", "", "fraction"},
		{"rate=abc;reset", "", "fraction"},
		{"huge=0", "", "MiB"},
		{"huge=99999", "", "MiB"},
		{"slow-drip=0s", "", "pause"},
		{"redirect=/relative", "", "absolute"},
		{"redirect=javascript:alert(1)", "", "absolute"},
		{"retry-after=1;retry-after-date", "", "give one"},
		{"retry-after=-1", "", "whole seconds"},
		{"retry-after=1;truncate", "", "goes with a status"},
		{"none;status=503", "", "none cannot be combined"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			f, err := parseFault(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseFault(%q) error = %v, want one containing %q", tt.spec, err, tt.wantErr)
				}
				if CheckFaults(tt.spec) == nil {
					t.Error("CheckFaults accepts what parseFault refuses")
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFault(%q): %v", tt.spec, err)
			}
			got := ""
			if f != nil {
				got = f.spec
			}
			if got != tt.want {
				t.Errorf("parseFault(%q).spec = %q, want %q", tt.spec, got, tt.want)
			}
		})
	}
}

func TestRetryDate(t *testing.T) {
	now := time.Date(2025, 6, 30, 12, 0, 0, 250e6, time.UTC)
	if got := retryDate(now, 1); got != "Mon, 30 Jun 2025 12:00:02 GMT" {
		t.Errorf("retryDate rounds to %s, want the next whole second after 12:00:01.25", got)
	}
	exact := time.Date(2025, 6, 30, 12, 0, 0, 0, time.UTC)
	if got := retryDate(exact, 1); got != "Mon, 30 Jun 2025 12:00:01 GMT" {
		t.Errorf("retryDate(exact) = %s", got)
	}
}

// TestFaults drives each fault through a real server over TCP, the way the
// CLI's client meets them.
func TestFaults(t *testing.T) {
	s := startServer(t, Options{})
	normal := do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), token: DemoToken})
	if normal.resp.StatusCode != 200 {
		t.Fatalf("normal search: %d", normal.resp.StatusCode)
	}
	tests := []struct {
		fault  string
		q      string
		client *http.Client
		check  func(t *testing.T, r result)
	}{
		{"latency=100ms", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			if r.elapsed < 100*time.Millisecond {
				t.Errorf("answered after %s, want at least 100ms", r.elapsed)
			}
			if !bytes.Equal(r.body, normal.body) {
				t.Error("latency changed the body")
			}
		}},
		{"status=503", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 503)
			checkErrorBody(t, r, 503, "service_unavailable")
		}},
		{"418", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 418)
			checkErrorBody(t, r, 418, "")
		}},
		{"status=500", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 500)
			checkErrorBody(t, r, 500, "internal_error")
		}},
		{"429;retry-after=1", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 429)
			checkErrorBody(t, r, 429, "rate_limited")
			if got := r.resp.Header.Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After = %q, want 1", got)
			}
		}},
		{"retry-after-date", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 429)
			at, err := http.ParseTime(r.resp.Header.Get("Retry-After"))
			if err != nil {
				t.Fatalf("Retry-After %q is not an HTTP date: %v", r.resp.Header.Get("Retry-After"), err)
			}
			if until := time.Until(at); until <= -time.Second || until > 2*time.Second {
				t.Errorf("Retry-After is %s away, want about a second", until)
			}
		}},
		{"status=503;retry-after=2", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 503)
			if got := r.resp.Header.Get("Retry-After"); got != "2" {
				t.Errorf("Retry-After = %q, want 2", got)
			}
		}},
		{"reset", eicarMD5, nil, func(t *testing.T, r result) {
			if r.err == nil {
				t.Fatalf("reset: got a response, status %d", r.resp.StatusCode)
			}
		}},
		{"reset=mid", eicarMD5, nil, func(t *testing.T, r result) {
			if r.err != nil {
				t.Fatalf("reset=mid must send headers first: %v", r.err)
			}
			wantStatus(t, r, 200)
			if r.readErr == nil {
				t.Error("reading the body succeeded; want a connection error")
			}
			if len(r.body) >= len(normal.body) {
				t.Errorf("read %d bytes of %d", len(r.body), len(normal.body))
			}
		}},
		{"truncate", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			if r.resp.ContentLength != int64(len(normal.body)) {
				t.Errorf("Content-Length %d, want the full %d", r.resp.ContentLength, len(normal.body))
			}
			if !errors.Is(r.readErr, io.ErrUnexpectedEOF) {
				t.Errorf("read error %v, want unexpected EOF", r.readErr)
			}
			if len(r.body) != len(normal.body)/2 || !bytes.HasPrefix(normal.body, r.body) {
				t.Errorf("got %d bytes, want the first %d of the normal body", len(r.body), len(normal.body)/2)
			}
		}},
		{"malformed", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			wantJSONType(t, r)
			if json.Valid(r.body) || len(r.body) == 0 {
				t.Errorf("body is valid JSON: %s", r.body)
			}
		}},
		{"html", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 502)
			if ct := r.resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("Content-Type %q", ct)
			}
			if !strings.Contains(string(r.body), "<html>") || json.Valid(r.body) {
				t.Errorf("body is not an HTML page: %s", r.body)
			}
		}},
		{"html-latin1", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 503)
			if ct := r.resp.Header.Get("Content-Type"); !strings.EqualFold(ct, "text/html; charset=ISO-8859-1") {
				t.Errorf("Content-Type %q", ct)
			}
			title := bytes.Index(r.body, []byte("<title>"))
			if title < 0 || utf8.Valid(r.body[:title]) || !bytes.Contains(r.body[:title], []byte("\xff")) {
				t.Errorf("want non-UTF-8 bytes, 0xff among them, before <title>: %q", r.body)
			}
		}},
		{"invisible", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			a := decodeSearch(t, r.body)
			if *a.Query != eicarMD5 || len(a.Results) != 1 {
				t.Fatalf("not a one-result search answer: %s", r.body)
			}
			for _, c := range []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\U000E0069"} {
				if !strings.Contains(string(r.body), c) {
					t.Errorf("invisible answer lacks %U", []rune(c)[0])
				}
			}
		}},
		{"huge=2", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			if len(r.body) < 2<<20 || r.resp.ContentLength != int64(len(r.body)) {
				t.Fatalf("body %d bytes, Content-Length %d; want over 2 MiB, matching", len(r.body), r.resp.ContentLength)
			}
			a := decodeSearch(t, r.body)
			if *a.Query != eicarMD5 || len(a.Results) == 0 {
				t.Error("huge body lost the search answer")
			}
		}},
		{"empty", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			wantJSONType(t, r)
			if len(r.body) != 0 || r.resp.ContentLength != 0 {
				t.Errorf("body %q, Content-Length %d", r.body, r.resp.ContentLength)
			}
		}},
		{"array", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			var arr []map[string]any
			if err := json.Unmarshal(r.body, &arr); err != nil || len(arr) != 1 || arr[0]["query"] != eicarMD5 {
				t.Errorf("want a one-element array holding the answer: %v: %s", err, r.body)
			}
		}},
		{"content-type=text/plain", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			if ct := r.resp.Header.Get("Content-Type"); ct != "text/plain" {
				t.Errorf("Content-Type %q", ct)
			}
			if !bytes.Equal(r.body, normal.body) {
				t.Error("content-type changed the body")
			}
		}},
		{"status=503;content-type=text/plain", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 503)
			if ct := r.resp.Header.Get("Content-Type"); ct != "text/plain" {
				t.Errorf("Content-Type %q", ct)
			}
		}},
		{"slow-drip=1ms", "tiny", nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			a := decodeSearch(t, r.body)
			if *a.Query != "tiny" {
				t.Errorf("dripped body wrong: %s", r.body)
			}
			if min := time.Duration(len(r.body)-1) * time.Millisecond; r.elapsed < min {
				t.Errorf("%d bytes in %s; want at least %s", len(r.body), r.elapsed, min)
			}
		}},
		{"redirect-loop", eicarMD5, noRedirect, func(t *testing.T, r result) {
			wantStatus(t, r, 302)
			if loc := r.resp.Header.Get("Location"); loc != searchPath+"?q="+eicarMD5 {
				t.Errorf("Location %q, want the request's own URI", loc)
			}
		}},
		{"redirect-loop", eicarMD5, http.DefaultClient, func(t *testing.T, r result) {
			if r.err == nil || !strings.Contains(r.err.Error(), "redirects") {
				t.Errorf("following the loop: %v, want the client to give up", r.err)
			}
		}},
		{"redirect=http://127.0.0.1:1/elsewhere?x=1", eicarMD5, noRedirect, func(t *testing.T, r result) {
			wantStatus(t, r, 302)
			if loc := r.resp.Header.Get("Location"); loc != "http://127.0.0.1:1/elsewhere?x=1" {
				t.Errorf("Location %q", loc)
			}
		}},
		{"escape", eicarMD5, nil, func(t *testing.T, r result) {
			wantStatus(t, r, 200)
			if utf8.Valid(r.body) {
				t.Error("escape body holds no invalid UTF-8")
			}
			var a map[string]any
			if err := json.Unmarshal(r.body, &a); err != nil {
				t.Fatalf("escape body must still decode: %v", err)
			}
			var all strings.Builder
			walkStrings(a, "", func(_, s string) { all.WriteString(s) })
			for name, seq := range map[string]string{"CSI": "\x1b[", "OSC": "\x1b]", "C1": "\u009b", "bidi": "\u202e", "BEL": "\x07"} {
				if !strings.Contains(all.String(), seq) {
					t.Errorf("escape answer lacks %s", name)
				}
			}
			if a["query"] != eicarMD5 {
				t.Errorf("query = %v", a["query"])
			}
		}},
	}
	for _, tt := range tests {
		client := tt.client
		if client == nil {
			client = &http.Client{Timeout: 30 * time.Second}
		}
		name := tt.fault
		if client == noRedirect {
			name += " no-follow"
		}
		t.Run(name, func(t *testing.T) {
			tt.check(t, do(t, client, call{url: searchURL(s.SearchURL, tt.q), token: DemoToken, fault: tt.fault}))
		})
	}
}

func wantStatus(t *testing.T, r result, status int) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("request failed: %v", r.err)
	}
	if r.resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %.300s", r.resp.StatusCode, status, r.body)
	}
}

func wantJSONType(t *testing.T, r result) {
	t.Helper()
	if ct := r.resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want JSON", ct)
	}
}

func TestFaultTimesLetsRetriesRecover(t *testing.T) {
	s := startServer(t, Options{})
	statuses := func(q, fault string, n int) string {
		var got []string
		for range n {
			r := do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, q), token: DemoToken, fault: fault})
			got = append(got, fmt.Sprint(r.resp.StatusCode))
		}
		return strings.Join(got, ",")
	}
	if got := statuses(eicarMD5, "status=503;times=2", 4); got != "503,503,200,200" {
		t.Errorf("status=503;times=2 gave %s", got)
	}
	// Counters are per q: another value starts afresh.
	if got := statuses(eicarSHA1, "status=503;times=2", 3); got != "503,503,200" {
		t.Errorf("another q gave %s", got)
	}
	// And per spec: a different fault on the same q has its own count.
	if got := statuses(eicarMD5, "429;times=1", 2); got != "429,200" {
		t.Errorf("another spec gave %s", got)
	}
	// And per path: the events endpoint counts separately.
	var got []string
	for range 2 {
		r := do(t, http.DefaultClient, call{url: s.EventsURL + eventsPath, token: DemoToken, fault: "status=503;times=1"})
		got = append(got, fmt.Sprint(r.resp.StatusCode))
	}
	if strings.Join(got, ",") != "503,200" {
		t.Errorf("events with times=1 gave %v", got)
	}
}

func TestFaultTimesConcurrent(t *testing.T) {
	s := startServer(t, Options{})
	const n, times = 20, 5
	codes := make(chan int, n)
	for range n {
		go func() {
			r := do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, hotIPv4), token: DemoToken, fault: fmt.Sprintf("status=503;times=%d", times)})
			if r.err != nil {
				codes <- 0
				return
			}
			codes <- r.resp.StatusCode
		}()
	}
	failed := 0
	for range n {
		if <-codes == 503 {
			failed++
		}
	}
	if failed != times {
		t.Errorf("%d of %d concurrent requests failed, want exactly %d", failed, n, times)
	}
}

func TestFaultRateIsDeterministic(t *testing.T) {
	s := startServer(t, Options{Faults: "status=503;rate=0.3"})
	selected := 0
	const n = 200
	for i := range n {
		q := fmt.Sprintf("host-%d.example.com", i)
		want := 200
		if RateSelects(q, 0.3) {
			want = 503
			selected++
		}
		r := do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, q), token: DemoToken})
		if r.resp.StatusCode != want {
			t.Fatalf("%s: status %d, want %d", q, r.resp.StatusCode, want)
		}
	}
	if selected < n*15/100 || selected > n*45/100 {
		t.Errorf("rate=0.3 selected %d of %d; the hash is not spreading", selected, n)
	}
	for _, tc := range []struct {
		rate float64
		want bool
	}{{0, false}, {1, true}} {
		for i := range 50 {
			if got := RateSelects(fmt.Sprint(i), tc.rate); got != tc.want {
				t.Fatalf("RateSelects(%d, %v) = %v", i, tc.rate, got)
			}
		}
	}
}

func TestFaultHeaderOverridesServerDefault(t *testing.T) {
	s := startServer(t, Options{Faults: "status=503"})
	for _, tc := range []struct {
		header string
		status int
	}{
		{"", 503},
		{"none", 200},
		{"status=504", 504},
		{"not-a-fault", 400},
	} {
		r := do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), token: DemoToken, fault: tc.header})
		if r.resp.StatusCode != tc.status {
			t.Errorf("header %q: status %d, want %d", tc.header, r.resp.StatusCode, tc.status)
		}
		if tc.status == 400 {
			checkErrorBody(t, r, 400, "bad_fault")
			if !strings.Contains(string(r.body), "not-a-fault") {
				t.Errorf("400 does not say what was wrong: %s", r.body)
			}
		}
	}
	r := do(t, http.DefaultClient, call{url: s.EventsURL + eventsPath, token: DemoToken})
	if r.resp.StatusCode != 503 {
		t.Errorf("server-wide fault skipped the events endpoint: %d", r.resp.StatusCode)
	}
}

// Faults act before authentication, like a broken proxy in front.
func TestFaultsPrecedeAuth(t *testing.T) {
	s := startServer(t, Options{})
	r := do(t, http.DefaultClient, call{url: searchURL(s.SearchURL, eicarMD5), fault: "503"})
	if r.resp.StatusCode != 503 {
		t.Errorf("status %d, want 503 without a token", r.resp.StatusCode)
	}
}

func TestInvalidServerFaultSpec(t *testing.T) {
	if _, err := Start(Options{Faults: "status=abc"}, "", ""); err == nil || !strings.Contains(err.Error(), "status") {
		t.Errorf("Start with a bad fault spec: %v", err)
	}
	// A handler has no error to return, so it says so on every request.
	h := NewSearchHandler(Options{Faults: "nonsense"})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", searchURL("http://sandbox.test", eicarMD5), nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), "nonsense") {
		t.Errorf("handler with a bad spec: %d %s", rec.Code, rec.Body.String())
	}
}
