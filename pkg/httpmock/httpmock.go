// Package httpmock is an http.RoundTripper of stubs for tests: each stub
// matches requests and answers them, counts its calls, and Verify fails a
// test on a stub that was never used. The registry also records when each
// request started and how many were in flight at once, so that tests can
// prove de-duplication, concurrency and rate bounds without a server.
package httpmock

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Matcher says whether a stub answers a request.
type Matcher func(*http.Request) bool

// Responder answers a request; it may block (a slow service).
type Responder func(*http.Request) (*http.Response, error)

// Stub is one registered answer.
type Stub struct {
	match   Matcher
	respond Responder
	name    string
	calls   int
}

// Calls is how many requests this stub answered.
func (s *Stub) Calls() int { return s.calls }

// Registry is the RoundTripper. The zero value is ready to use.
type Registry struct {
	mu          sync.Mutex
	stubs       []*Stub
	starts      []time.Time
	inFlight    int
	maxInFlight int
}

// Register adds a stub; the first stub that matches a request answers it.
func (r *Registry) Register(name string, m Matcher, resp Responder) *Stub {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &Stub{match: m, respond: resp, name: name}
	r.stubs = append(r.stubs, s)
	return s
}

func (r *Registry) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	var stub *Stub
	for _, s := range r.stubs {
		if s.match(req) {
			stub = s
			break
		}
	}
	r.starts = append(r.starts, time.Now())
	if stub != nil {
		stub.calls++
	}
	r.inFlight++
	r.maxInFlight = max(r.maxInFlight, r.inFlight)
	r.mu.Unlock()
	defer func() { r.mu.Lock(); r.inFlight--; r.mu.Unlock() }()
	if stub == nil {
		return nil, fmt.Errorf("httpmock: no stub for %s %s", req.Method, req.URL)
	}
	resp, err := stub.respond(req)
	if resp != nil {
		resp.Request = req
	}
	return resp, err
}

// Verify fails t for every stub that answered no request.
func (r *Registry) Verify(t testing.TB) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.stubs {
		if s.calls == 0 {
			t.Errorf("httpmock: stub %q was never called", s.name)
		}
	}
}

// Requests is how many requests were made.
func (r *Registry) Requests() int { r.mu.Lock(); defer r.mu.Unlock(); return len(r.starts) }

// MaxInFlight is the most requests that were being answered at once.
func (r *Registry) MaxInFlight() int { r.mu.Lock(); defer r.mu.Unlock(); return r.maxInFlight }

// Starts are the times requests started, in order.
func (r *Registry) Starts() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]time.Time(nil), r.starts...)
}

// Query matches a request whose query parameter key is value.
func Query(key, value string) Matcher {
	return func(req *http.Request) bool { return req.URL.Query().Get(key) == value }
}

// Path matches a request for path (the end of the URL's path).
func Path(path string) Matcher {
	return func(req *http.Request) bool { return strings.HasSuffix(req.URL.Path, path) }
}

// Any matches every request.
func Any() Matcher { return func(*http.Request) bool { return true } }

// JSON answers 200 with body.
func JSON(body string) Responder { return Status(http.StatusOK, nil, body) }

// Status answers code with the given headers and body.
func Status(code int, header map[string]string, body string) Responder {
	return func(req *http.Request) (*http.Response, error) {
		h := http.Header{}
		for k, v := range header {
			h.Set(k, v)
		}
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", "application/json")
		}
		return &http.Response{
			StatusCode: code, Status: strconv.Itoa(code) + " " + http.StatusText(code),
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: h, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)),
		}, nil
	}
}

// Delay answers with next after d, or fails when the request is cancelled.
func Delay(d time.Duration, next Responder) Responder {
	return func(req *http.Request) (*http.Response, error) {
		select {
		case <-time.After(d):
			return next(req)
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
}

// Sequence answers the first call with the first responder, the second
// with the second, and every later call with the last.
func Sequence(rs ...Responder) Responder {
	var mu sync.Mutex
	n := 0
	return func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		i := min(n, len(rs)-1)
		n++
		mu.Unlock()
		return rs[i](req)
	}
}
