package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Tokens the sandbox knows. They are published on purpose: the sandbox
// holds only demo data.
const (
	// DemoToken is accepted by both endpoints unless Options.Token names
	// another.
	DemoToken = "sandbox-demo-token"
	// NoPermissionToken searches normally (the spec gives search no 403)
	// but gets 403 from the events endpoint.
	NoPermissionToken = "sandbox-no-permission"
	// NoEventsToken searches normally but gets 404 from the events
	// endpoint: a caller with no event record.
	NoEventsToken = "sandbox-no-events"
)

// Options configures the sandbox's handlers and Server.
type Options struct {
	// Token is the accepted bearer token; "" means DemoToken.
	Token string
	// Faults is the fault spec applied to every request unless the
	// request's FaultHeader says otherwise; "" means none. See FAULTS.md.
	Faults string
	// Log receives one line per request: time, endpoint, method, path,
	// status, duration and the fault applied. Never headers, so never the
	// token. nil means no log.
	Log io.Writer
}

// NewSearchHandler serves GET /api/ti/resources/search at exactly that path,
// and the detail pages its results link to (/ti/resources/<id>?q=...).
// Anything else is 404.
func NewSearchHandler(opts Options) http.Handler {
	h := newHandler("search", searchPath, opts)
	h.produce = h.search
	h.detail = h.detailPage
	return h
}

// NewEventsHandler serves GET /api/events/me at exactly that path; anything
// else is 404.
func NewEventsHandler(opts Options) http.Handler {
	h := newHandler("events", eventsPath, opts)
	h.produce = h.events
	return h
}

// handler routes, applies faults and logs for one endpoint. The endpoint
// itself only produces a reply.
type handler struct {
	name    string
	path    string
	produce func(*http.Request) reply
	detail  func(*http.Request) reply // nil: no detail pages here

	token    string
	fault    *fault // server-wide, from Options.Faults
	faultErr error  // why Options.Faults did not parse
	counters faultCounters
	log      *syncWriter
}

func newHandler(name, path string, opts Options) *handler {
	h := &handler{name: name, path: path, token: opts.Token, log: lockWriter(opts.Log)}
	if h.token == "" {
		h.token = DemoToken
	}
	h.fault, h.faultErr = parseFault(opts.Faults)
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	status, applied := h.serve(w, r)
	h.logRequest(r, status, applied, time.Since(start))
}

// serve answers r and returns the status written (0: connection dropped)
// and the fault applied, if any.
func (h *handler) serve(w http.ResponseWriter, r *http.Request) (int, string) {
	switch {
	case r.URL.Path == h.path:
	case h.detail != nil && strings.HasPrefix(r.URL.Path, detailPrefix):
		if r.Method != http.MethodGet {
			return methodNotAllowed(r).write(w, ""), ""
		}
		return h.detail(r).write(w, ""), ""
	default:
		return errorReply(http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint at %q; this server serves %s", r.URL.Path, h.path)).write(w, ""), ""
	}
	if r.Method != http.MethodGet {
		return methodNotAllowed(r).write(w, ""), ""
	}
	f, rep, ok := h.faultFor(r)
	if !ok {
		return rep.write(w, ""), ""
	}
	// Faults come before authentication, as a failing proxy or load
	// balancer in front of the real service would.
	if f == nil || !f.applies(r.URL.Path, queryParam(r), &h.counters) {
		return h.produce(r).write(w, ""), ""
	}
	return f.inject(w, r, h.produce), f.spec
}

func methodNotAllowed(r *http.Request) reply {
	rep := errorReply(http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("method %s is not allowed here; use GET", r.Method))
	rep.header.Set("Allow", http.MethodGet)
	return rep
}

// faultFor picks the request's fault: the header's when sent, else the
// server-wide one. ok is false with the error reply for a spec that does not
// parse.
func (h *handler) faultFor(r *http.Request) (*fault, reply, bool) {
	if spec := strings.TrimSpace(r.Header.Get(FaultHeader)); spec != "" {
		f, err := parseFault(spec)
		if err != nil {
			return nil, errorReply(http.StatusBadRequest, "bad_fault", "invalid "+FaultHeader+" header: "+err.Error()), false
		}
		return f, reply{}, true
	}
	if h.faultErr != nil {
		return nil, errorReply(http.StatusInternalServerError, "bad_fault", "the sandbox's own fault spec is invalid: "+h.faultErr.Error()), false
	}
	return h.fault, reply{}, true
}

// logRequest writes the request log line. The path is written escaped and
// the fault quoted, so that a crafted request cannot put control
// characters on the operator's terminal.
func (h *handler) logRequest(r *http.Request, status int, fault string, d time.Duration) {
	if h.log == nil {
		return
	}
	st := fmt.Sprint(status)
	if status == 0 {
		st = "dropped"
	}
	line := fmt.Sprintf("%s %s %s %s %s %s", time.Now().Format("15:04:05.000"), h.name, r.Method, r.URL.EscapedPath(), st, d.Round(10*time.Microsecond))
	if fault != "" {
		line += fmt.Sprintf(" fault=%q", fault)
	}
	h.log.writeLine(line)
}

// syncWriter serialises log lines from concurrent requests and from both
// listeners, which share one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func lockWriter(w io.Writer) *syncWriter {
	if w == nil {
		return nil
	}
	if s, ok := w.(*syncWriter); ok {
		return s
	}
	return &syncWriter{w: w}
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) writeLine(line string) {
	_, _ = s.Write([]byte(line + "\n"))
}

// shutdownGrace is how long Close lets in-flight requests finish. Faults
// like latency and slow-drip outlast it on purpose; they are cut off.
const shutdownGrace = 2 * time.Second

// Server is a running sandbox: search and events on two listeners, as the
// spec shows them on two hosts.
type Server struct {
	// SearchURL and EventsURL are base URLs, like http://127.0.0.1:41234,
	// to which the API paths are appended.
	SearchURL string
	EventsURL string

	servers []*http.Server
	fresh   freshConns
	grace   time.Duration      // shutdownGrace; shorter in tests
	cancel  context.CancelFunc // ends every request's context
	once    sync.Once
	err     error
	// requests counts the requests the search listener has begun to
	// serve, so that a test can wait for a run to be under way.
	requests atomic.Int64
}

// Requests is how many search requests the server has begun to serve.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Start listens on searchAddr and eventsAddr ("" means 127.0.0.1:0, a free
// loopback port) and serves until Close. It returns once both listeners are
// bound, so the URLs are usable at once. An invalid Options.Faults is an
// error here rather than on every request.
func Start(opts Options, searchAddr, eventsAddr string) (*Server, error) {
	if err := CheckFaults(opts.Faults); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	logw := lockWriter(opts.Log)
	if logw != nil {
		opts.Log = logw // one lock for both listeners' lines
	}
	search, err := listen(searchAddr)
	if err != nil {
		return nil, err
	}
	events, err := listen(eventsAddr)
	if err != nil {
		_ = search.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		SearchURL: "http://" + search.Addr().String(),
		EventsURL: "http://" + events.Addr().String(),
		grace:     shutdownGrace,
		cancel:    cancel,
	}
	for _, pair := range []struct {
		l net.Listener
		h http.Handler
	}{{search, s.counted(NewSearchHandler(opts))}, {events, NewEventsHandler(opts)}} {
		srv := &http.Server{
			Handler:           pair.h,
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       time.Minute,
			BaseContext:       func(net.Listener) context.Context { return ctx },
			ErrorLog:          serverLog(logw),
			ConnState:         s.fresh.track,
		}
		s.servers = append(s.servers, srv)
		go func() { _ = srv.Serve(pair.l) }()
	}
	return s, nil
}

func (s *Server) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h.ServeHTTP(w, r)
	})
}

func listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sandbox: listen on %s: %w", addr, err)
	}
	return l, nil
}

// serverLog sends net/http's own complaints to the request log, or nowhere:
// by default they would go to stderr, under the CLI's output.
func serverLog(w *syncWriter) *log.Logger {
	if w == nil {
		return log.New(io.Discard, "", 0)
	}
	return log.New(w, "sandbox: ", log.Ltime)
}

// Close stops both listeners, lets in-flight requests finish for a short
// grace period, then cuts off what remains. It is safe to call more than
// once.
func (s *Server) Close() error {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.grace)
		defer cancel()
		errs := make([]error, len(s.servers))
		var wg sync.WaitGroup
		for i, srv := range s.servers {
			wg.Go(func() {
				if srv.Shutdown(ctx) != nil {
					s.cancel() // wake handlers sleeping in latency or slow-drip
					errs[i] = srv.Close()
				}
			})
		}
		// Shutdown waits up to 5 s for a connection that has sent no
		// request yet (net/http's rule for new connections), and a
		// client's spare dial, never used, is one: it held every Close
		// for the whole grace. Such a connection has nothing in flight.
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for waiting := true; waiting; {
			s.fresh.closeAll()
			select {
			case <-done:
				waiting = false
			case <-tick.C:
			}
		}
		s.cancel()
		s.err = errors.Join(errs...)
	})
	return s.err
}

// freshConns are the connections that have not yet sent a request.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (f *freshConns) track(c net.Conn, state http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if state != http.StateNew {
		delete(f.conns, c)
		return
	}
	if f.conns == nil {
		f.conns = map[net.Conn]struct{}{}
	}
	f.conns[c] = struct{}{}
}

func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close()
		delete(f.conns, c)
	}
}
