// Package api calls the two endpoints of the TI service: the exact search and
// the current-caller events. It owns everything between a value and the
// decoded response: URLs, the bearer header and cookie, timeouts, retries
// with shared backoff, the response size cap, redirects that must not carry
// the token away, and errors with a kind.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/tilookup/tilookup/pkg/failure"
)

// Operation names, used in error messages.
const (
	OpSearch = "search"
	OpEvents = "events"
)

const (
	searchPath = "/api/ti/resources/search"
	eventsPath = "/api/events/me"

	maxRedirects   = 5
	backoffBase    = 500 * time.Millisecond
	backoffCap     = 10 * time.Second
	maxRetryAfter  = 2 * time.Minute
	defaultMaxBody = DefaultMaxResponseSize
)

// The client's defaults; pkg/config gives its keys the same ones.
const (
	// DefaultTimeout bounds one request.
	DefaultTimeout = 30 * time.Second
	// DefaultDeadline bounds one value, every try and wait included, so
	// that a service that keeps answering 503 with Retry-After cannot hold
	// a bulk run forever.
	DefaultDeadline = 2 * time.Minute
	// DefaultMaxResponseSize is the largest body read.
	DefaultMaxResponseSize = 32 << 20
)

// Options configure a Client. Zero values get sane defaults.
type Options struct {
	BaseURL       string        // search host, may carry a path prefix
	EventsBaseURL string        // events host; "" = BaseURL
	Token         string        // search bearer token
	EventsToken   string        // events token; "" = Token
	CookieName    string        // events cookie carrying the token; "" sends none
	Timeout       time.Duration // one request, from dialing to the last body byte
	// Deadline bounds one value, all tries and waits included; never
	// shorter than Timeout. 0 = DefaultDeadline.
	Deadline  time.Duration
	Retries   int
	MaxBody   int64
	UserAgent string
	Debug     io.Writer // request/response log with credentials redacted; nil = none
	Transport http.RoundTripper
	// Sleep waits between retries; tests replace it. It returns early with
	// ctx's error when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client is safe for concurrent use; bulk searches share one.
type Client struct {
	opt    Options
	base   *url.URL
	events *url.URL
	http   *http.Client

	// pause is the shared backoff: a 429 or 503 with Retry-After holds back
	// every request of this client, not only the one that saw it.
	mu    sync.Mutex
	pause time.Time

	// The request headers of each operation, built once and shared,
	// read-only, by every request: net/http copies them before a redirect
	// changes them.
	searchHeader, eventsHeader http.Header

	// throttle, when set, is waited on before every try, retries included,
	// so that --rate bounds what the service sees, not only first tries.
	throttle func(context.Context) error
	// pacer, when set, is a rate shared with other processes (shared_rate):
	// waited on after throttle, and told of a 429's Retry-After.
	pacer Pacer

	// timeoutCtx is the context the tries of the moment share: see
	// tryContext.
	timeoutCtx atomic.Pointer[sharedTimeout]
}

// sharedTimeout is a context ending a little after Timeout from when it
// was made, shared by the tries started soon after with the same parent.
type sharedTimeout struct {
	parent context.Context
	ctx    context.Context
	end    time.Time
	cancel context.CancelFunc // never called: the context ends at end
}

// timeoutSlack is the share of Timeout by which a try's timeout may run
// late, so that tries started within it share one context and timer.
const timeoutSlack = 32

// SetRate limits this client to perSecond tries, retries included, so that
// --rate bounds what the service sees; 0 means no limit. A rate so low that
// one try would wait past a value's deadline is refused. Call it before the
// client is used.
func (c *Client) SetRate(perSecond float64) error {
	if perSecond <= 0 {
		c.throttle = nil
		return nil
	}
	if perSecond < 1/c.opt.Deadline.Seconds() {
		return failure.New(failure.Usage, "--rate %g allows one request every %.0fs, longer than the %s deadline for one value", perSecond, 1/perSecond, c.opt.Deadline).
			WithHint(fmt.Sprintf("use --rate %s or more, or raise deadline", roundUp2(1/c.opt.Deadline.Seconds())))
	}
	c.throttle = rate.NewLimiter(rate.Limit(perSecond), 1).Wait
	return nil
}

// Pacer is a rate that other processes and hosts share with this client
// (shared_rate): Wait takes a slot before every try, after --rate's;
// Pause holds all of them back when the service answers 429 with
// Retry-After. A Pacer that cannot reach its peers returns at once: the
// client's own rate goes on.
type Pacer interface {
	Wait(ctx context.Context) error
	Pause(d time.Duration)
}

// SetPacer adds a shared rate to the client's own (nil: none). Call it
// before the client is used.
func (c *Client) SetPacer(p Pacer) { c.pacer = p }

// roundUp2 writes x rounded up to two significant digits, so that a
// suggested rate reads 0.0084 rather than 0.008333333333333333 and still
// satisfies the bound it was computed from.
func roundUp2(x float64) string {
	step := math.Pow(10, math.Floor(math.Log10(x))-1)
	return strconv.FormatFloat(math.Ceil(x/step-1e-9)*step, 'g', 2, 64)
}

// ErrNoBaseURL is New's error when no base URL is configured: a command
// without --base-url (browse's p) says what else to do.
var ErrNoBaseURL = errors.New("no base URL is configured")

// New checks the URLs and builds a client. It refuses a plain-http URL to a
// host that is not loopback unless allowInsecure, because the bearer token
// would cross the network in clear.
func New(o Options, allowInsecure bool) (*Client, error) {
	if o.BaseURL == "" {
		return nil, failure.Wrap(failure.Config, ErrNoBaseURL, ErrNoBaseURL.Error()).
			WithHint("pass --base-url, set TILOOKUP_BASE_URL, or run `tilookup config set base_url URL` (or try --sandbox)")
	}
	base, err := parseBase(o.BaseURL, allowInsecure)
	if err != nil {
		return nil, err
	}
	events := base
	if o.EventsBaseURL != "" {
		if events, err = parseBase(o.EventsBaseURL, allowInsecure); err != nil {
			return nil, err
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Deadline <= 0 {
		o.Deadline = DefaultDeadline
	}
	o.Deadline = max(o.Deadline, o.Timeout)
	if o.MaxBody <= 0 {
		o.MaxBody = defaultMaxBody
	}
	if o.EventsToken == "" {
		o.EventsToken = o.Token
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Transport == nil {
		o.Transport = DefaultTransport(4)
	}
	c := &Client{opt: o, base: base, events: events}
	c.searchHeader = requestHeader(o.UserAgent, o.Token, "")
	c.eventsHeader = requestHeader(o.UserAgent, o.EventsToken, o.CookieName)
	c.http = &http.Client{Transport: o.Transport, CheckRedirect: c.checkRedirect}
	return c, nil
}

// DefaultTransport is a keep-alive transport with idle connections sized
// to the number of concurrent requests, honouring HTTPS_PROXY and NO_PROXY.
func DefaultTransport(concurrency int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(concurrency, 2)
	t.MaxIdleConns = max(concurrency*2, 100)
	t.ResponseHeaderTimeout = 0 // the per-request context bounds it
	return t
}

func parseBase(raw string, allowInsecure bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, failure.New(failure.Config, "base URL %q is not an http:// or https:// URL", RedactRawURL(raw))
	}
	if u.Scheme == "http" && !allowInsecure && !IsLoopback(u.Hostname()) {
		return nil, failure.New(failure.Config, "refusing to send the token over plain http to %s", u.Host).
			WithHint("use https://, or set allow_insecure_http: true if you accept that the token crosses the network in clear")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u, nil
}

// IsLoopback reports whether host names this machine: localhost or a
// loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Search asks for one exact value. limit <= 0 sends no limit.
func (c *Client) Search(ctx context.Context, q string, limit int) (*SearchResponse, error) {
	body, err := c.search(ctx, q, limit)
	if err != nil {
		return nil, err
	}
	return DecodeSearch(body)
}

// SearchRaw is Search for callers that print the server's JSON as it came
// (json, ndjson, --jq): the body is checked to be a JSON object and its
// results counted, but not decoded into fields, which bulk runs would pay
// for on every value.
func (c *Client) SearchRaw(ctx context.Context, q string, limit int) (*SearchResponse, error) {
	body, err := c.search(ctx, q, limit)
	if err != nil {
		return nil, err
	}
	return decodeSearch(body, true)
}

func (c *Client) search(ctx context.Context, q string, limit int) ([]byte, error) {
	// What url.Values{"q", "limit"}.Encode() gives (keys sorted), without
	// a map and a sort per value.
	query := "q=" + url.QueryEscape(q)
	if limit > 0 {
		query = "limit=" + strconv.Itoa(limit) + "&" + query
	}
	u := *c.base
	u.Path += searchPath
	u.RawQuery = query
	return c.send(ctx, OpSearch, http.MethodGet, &u, c.searchHeader, nil)
}

// DecodeSearch reads a search response tolerantly: any field may be missing,
// null or of an unexpected type; only a body that is not a JSON object fails.
func DecodeSearch(body []byte) (*SearchResponse, error) { return decodeSearch(body, false) }

func decodeSearch(body []byte, light bool) (*SearchResponse, error) {
	results, compact, err := ScanSearch(body)
	if err != nil {
		return nil, err
	}
	r := &SearchResponse{}
	if !light {
		// Only what a format shows is kept (results.go); JSON output
		// still passes the raw bytes.
		r.decodeHead(body)
	}
	r.Raw, r.count, r.oneLine = body, results, !compact
	return r, nil
}

// EventsMe calls GET /api/events/me and returns the JSON payload as sent.
func (c *Client) EventsMe(ctx context.Context) ([]byte, error) {
	u := *c.events
	u.Path += eventsPath
	body, err := c.send(ctx, OpEvents, http.MethodGet, &u, c.eventsHeader, nil)
	if err != nil {
		return nil, err
	}
	if !json.Valid(body) {
		msg := "the response is not valid JSON"
		if len(strings.TrimSpace(string(body))) == 0 {
			msg = "the service answered with an empty body"
		}
		return nil, &APIError{Op: OpEvents, Status: http.StatusOK, Kind: failure.Decode, Message: msg}
	}
	return body, nil
}

// requestHeader is what every request of one operation sends: JSON wanted,
// who asks, the bearer token, and for events the token as a cookie too.
func requestHeader(userAgent, token, cookie string) http.Header {
	h := http.Header{}
	h.Set("Accept", "application/json")
	if userAgent != "" {
		h.Set("User-Agent", userAgent)
	}
	h.Set("Authorization", "Bearer "+token)
	if cookie != "" {
		h.Set("Cookie", (&http.Cookie{Name: cookie, Value: token}).String())
	}
	return h
}

// errDeadline is the cause of a request's context when the value's overall
// deadline, not the per-request timeout, cut it short, told apart in
// messages.
var errDeadline = errors.New("overall deadline passed")

// Send makes one request of any method to u, a URL under the base URL
// (see URL), with header as the caller built it (credentials included:
// the redirect rules drop them off the host) and payload as the body (nil
// for none). It has everything a search has: the timeout, the deadline,
// the retries of Retried and connection errors (honouring Retry-After),
// the size cap and the --debug log. A write is retried too, so the caller
// must make it idempotent (push sends objects with their own ids).
func (c *Client) Send(ctx context.Context, op, method string, u *url.URL, header http.Header, payload []byte) ([]byte, error) {
	return c.send(ctx, op, method, u, header, payload)
}

// URL is path joined under the base URL (and its path prefix).
func (c *Client) URL(path string) *url.URL {
	u := *c.base
	u.Path += path
	return &u
}

// send performs a request with retries and returns a 2xx body. The value's
// deadline is a time, not a context: each try's one context carries
// whichever of the timeout and the deadline comes first, which spares a
// bulk run a second context and timer per value.
func (c *Client) send(ctx context.Context, op, method string, u *url.URL, header http.Header, payload []byte) (body []byte, err error) {
	start := time.Now()
	deadline := start.Add(c.opt.Deadline)
	tries := 0
	defer func() { err = countTries(err, tries, time.Since(start)) }()
	var lastErr error
	for attempt := 0; attempt <= c.opt.Retries; attempt++ {
		if err := c.waitPause(ctx, deadline); err != nil {
			return nil, c.interrupted(ctx, op, err, lastErr)
		}
		if err := c.wait(ctx, deadline); err != nil {
			return nil, c.interrupted(ctx, op, err, lastErr)
		}
		tries++
		body, wait, err := c.try(ctx, deadline, op, method, u, header, payload)
		if err == nil {
			return body, nil
		}
		lastErr = err
		if wait < 0 || attempt == c.opt.Retries || ctx.Err() != nil {
			break
		}
		if wait == 0 {
			wait = backoff(attempt)
		}
		if time.Until(deadline) < wait {
			// Sleeping past the deadline only to fail later helps nobody:
			// report the last answer now.
			return nil, lastErr
		}
		if err := c.opt.Sleep(ctx, wait); err != nil {
			return nil, c.interrupted(ctx, op, err, lastErr)
		}
	}
	if ctx.Err() != nil {
		return nil, c.interrupted(ctx, op, ctx.Err(), lastErr)
	}
	return nil, lastErr
}

// countTries makes a timeout's message say what happened: a user who
// gave --timeout 2 and waited 7s (three tries and the waits between them)
// is told both, not only "within 2s".
func countTries(err error, tries int, took time.Duration) error {
	var e *APIError
	if !errors.As(err, &e) || e.Kind != failure.Timeout || tries == 0 {
		return err
	}
	counted := *e
	what := "1 try"
	if tries > 1 {
		what = fmt.Sprintf("%d tries", tries)
	}
	counted.Message = fmt.Sprintf("%s (%s, %s waited in all)", e.Message, what, took.Round(100*time.Millisecond))
	return &counted
}

// try makes one request. wait < 0 means the error is final; wait > 0 is the
// server's Retry-After; 0 means retry with backoff.
func (c *Client) try(parent context.Context, deadline time.Time, op, method string, u *url.URL, header http.Header, payload []byte) ([]byte, time.Duration, error) {
	ctx, cancel := c.tryContext(parent, deadline)
	if cancel != nil {
		defer cancel()
	}
	// Built from the URL already at hand: NewRequest would print and parse
	// it again, on every value of a bulk run.
	req := (&http.Request{
		Method: method, URL: u, Host: u.Host, Header: header,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}).WithContext(ctx)
	if payload != nil {
		// A known length, never chunked: some servers (TAXII's
		// medallion) refuse a body without Content-Length. GetBody lets
		// a 307 or 308 redirect send it again.
		req.ContentLength = int64(len(payload))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(payload)), nil }
		req.Body, _ = req.GetBody()
	}
	start := c.logRequest(req)
	resp, err := c.http.Do(req)
	if err != nil {
		if c.opt.Debug != nil {
			c.logf("< %s error after %s: %v", op, since(start), redactURLErr(err))
		}
		if errors.Is(err, errTooManyRedirects) {
			return nil, -1, &APIError{Op: op, Kind: failure.Network, Err: err,
				Message: fmt.Sprintf("stopped after %d redirects", maxRedirects),
				Hint:    "the service redirects in a loop; check base_url"}
		}
		if e := finalTransportError(op, err); e != nil {
			return nil, -1, e // a bad certificate or a dead proxy: another try fails the same way
		}
		return nil, 0, c.transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	body, readErr := c.readBody(resp)
	c.logResponse(resp, start, len(body))
	if readErr != nil {
		if errors.Is(readErr, errTooLarge) {
			return nil, -1, &APIError{Op: op, Status: resp.StatusCode, Kind: failure.Decode,
				Message: fmt.Sprintf("the response is larger than the %s cap", formatSize(c.opt.MaxBody)),
				Hint:    "raise max_response_size, or lower --limit"}
		}
		return nil, 0, c.transportError(ctx, op, readErr)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if e := emptyAnswer(op, resp.StatusCode, body); e != nil {
			return nil, -1, e
		}
		return body, 0, nil
	}
	e := statusError(op, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	if final := resp.Request.URL; !strings.EqualFold(final.Host, u.Host) && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		e.RedirectedTo = clean(final.Host)
		e.Hint = fmt.Sprintf("the service redirected to %s, which does not get the token (a token belongs to one host); point base_url at the host that answers", e.RedirectedTo)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Message = "redirected too many times or to a location that was not followed"
		return nil, -1, e
	}
	if Retried(resp.StatusCode) {
		ra := resp.Header.Get("Retry-After")
		wait := retryAfter(ra, time.Now())
		if wait > maxRetryAfter {
			e.Hint = fmt.Sprintf("the service asks to wait longer than %s (Retry-After: %s); try again later", maxRetryAfter, clean(strings.TrimSpace(ra)))
			return nil, -1, e
		}
		if resp.StatusCode == http.StatusTooManyRequests && wait > 0 {
			// 429 is about this client's pace: every request of it waits.
			// A 503 or 502 is about the service or this one value: only
			// this value waits, the others go on.
			c.pauseAll(wait)
			if c.pacer != nil {
				c.pacer.Pause(wait)
			}
		}
		return nil, wait, e
	}
	return nil, -1, e
}

// tryContext is the context of one try: it ends after Timeout, or at the
// value's deadline (with errDeadline as its cause) when that comes first.
// A try that the deadline does not cut short shares the context of the
// tries started in the same Timeout/timeoutSlack: its timeout may run
// that much late, but a bulk run is spared a context, a timer and the
// parent's bookkeeping for every request.
func (c *Client) tryContext(parent context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	now := time.Now()
	end := now.Add(c.opt.Timeout)
	if deadline.Before(end) {
		return context.WithDeadlineCause(parent, deadline, errDeadline)
	}
	if s := c.timeoutCtx.Load(); s != nil && s.parent == parent && !s.end.Before(end) {
		return s.ctx, nil
	}
	late := end.Add(c.opt.Timeout / timeoutSlack)
	if deadline.Before(late) || !reflect.TypeOf(parent).Comparable() {
		return context.WithDeadline(parent, end)
	}
	s := &sharedTimeout{parent: parent, end: late}
	s.ctx, s.cancel = context.WithDeadline(parent, s.end)
	c.timeoutCtx.Store(s)
	return s.ctx, nil
}

var errTooLarge = errors.New("response too large")

func (c *Client) readBody(resp *http.Response) ([]byte, error) {
	if resp.ContentLength > c.opt.MaxBody {
		return nil, errTooLarge
	}
	if n := resp.ContentLength; n > 0 {
		// The usual case: the length is known, so read into a buffer of
		// that size instead of growing one. net/http ends the body at
		// Content-Length and reports a shorter one as ErrUnexpectedEOF.
		body := make([]byte, n)
		got, err := io.ReadFull(resp.Body, body)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return body[:got], err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.opt.MaxBody+1))
	if err != nil {
		return body, err
	}
	if int64(len(body)) > c.opt.MaxBody {
		return nil, errTooLarge
	}
	return body, nil
}

var errTooManyRedirects = errors.New("too many redirects")

// checkRedirect follows at most maxRedirects, and strips the credentials
// when a redirect leaves the original host or drops to plain http: a token
// belongs to one host.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects { // via holds the first request too
		return errTooManyRedirects
	}
	first := via[0].URL
	if !strings.EqualFold(req.URL.Host, first.Host) || (first.Scheme == "https" && req.URL.Scheme != "https") {
		req.Header.Del("Authorization")
		req.Header.Del("Cookie")
	}
	c.logRequest(req)
	return nil
}

// wait takes the throttle (--rate) before a try. A rate so low that the
// wait would end past the value's deadline fails now instead of sleeping.
func (c *Client) wait(ctx context.Context, deadline time.Time) error {
	if c.throttle == nil && c.pacer == nil {
		return nil
	}
	ctx, cancel := context.WithDeadlineCause(ctx, deadline, errDeadline)
	defer cancel()
	for _, wait := range []func(context.Context) error{c.throttle, c.pacerWait} {
		if wait == nil {
			continue
		}
		if err := wait(ctx); err != nil {
			if ctx.Err() == nil || context.Cause(ctx) == errDeadline {
				return errDeadline // rate.Limiter refuses a wait past the deadline without waiting
			}
			return err
		}
	}
	return nil
}

// pacerWait is the shared rate's wait, when there is one.
func (c *Client) pacerWait(ctx context.Context) error {
	if c.pacer == nil {
		return nil
	}
	return c.pacer.Wait(ctx)
}

func (c *Client) pauseAll(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if until := time.Now().Add(d); until.After(c.pause) {
		c.pause = until
	}
}

func (c *Client) waitPause(ctx context.Context, deadline time.Time) error {
	c.mu.Lock()
	wait := time.Until(c.pause)
	c.mu.Unlock()
	if wait <= 0 {
		return ctx.Err()
	}
	if time.Until(deadline) < wait {
		return errDeadline // waiting would only end past the value's deadline
	}
	return c.opt.Sleep(ctx, wait)
}

// backoff is capped exponential backoff with full jitter.
func backoff(attempt int) time.Duration {
	d := backoffBase << attempt
	if d > backoffCap || d <= 0 {
		d = backoffCap
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date. A
// delay too large for a time.Duration is the largest one, never a wrapped
// small one.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || secs > uint64(math.MaxInt64/int64(time.Second)) {
			return math.MaxInt64
		}
		return time.Duration(secs) * time.Second
	}
	if strings.HasPrefix(v, "-") {
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// transportError explains a failed request. ctx is the request's context,
// whose cause tells the value's overall deadline apart from the
// per-request timeout.
func (c *Client) transportError(ctx context.Context, op string, err error) error {
	e := &APIError{Op: op, Kind: failure.Network, Err: err, unreachable: dialFailed(err)}
	var netErr net.Error
	switch {
	case errors.Is(context.Cause(ctx), errDeadline):
		e.Kind = failure.Timeout
		e.Message = fmt.Sprintf("no answer within the %s deadline for one value", c.opt.Deadline)
		e.Hint = "the service is slow or keeps failing; raise deadline or try again later"
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		e.Kind = failure.Timeout
		e.Message = fmt.Sprintf("no complete answer within %s", c.opt.Timeout)
		e.Hint = "the service is slow or unreachable; raise --timeout or try again later"
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET):
		e.Message = "the connection closed before the response was complete"
		if errors.Is(err, syscall.ECONNRESET) {
			e.Message = clean(describeNetErr(err))
		}
		e.Hint = "try again; a proxy or the service may be failing"
	default:
		e.Message = clean(describeNetErr(err))
		e.Hint = "check the URL, your network and any proxy (HTTPS_PROXY)"
	}
	return e
}

// describeNetErr drops the "Get URL:" prefix of url.Error: the URL holds the
// query, which can be long, and the operation already says what was called.
func describeNetErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		msg := oe.Err.Error()
		var se *os.SyscallError
		if errors.As(oe.Err, &se) {
			msg = se.Err.Error() // "read: " or "write: " says nothing more
		}
		switch {
		case oe.Addr == nil:
			return msg
		case oe.Op == "dial":
			return fmt.Sprintf("cannot connect to %s: %s", oe.Addr, msg)
		}
		// The connection was up: saying "cannot connect" would send the
		// user after the wrong problem.
		return fmt.Sprintf("the connection to %s broke: %s", oe.Addr, msg)
	}
	return err.Error()
}

// interrupted explains why a value stopped between tries: the user
// interrupted, or its deadline passed (then the last answer says more than
// the deadline does).
func (c *Client) interrupted(ctx context.Context, op string, err, last error) error {
	if errors.Is(err, context.Canceled) {
		return &APIError{Op: op, Kind: failure.Interrupted, Message: "interrupted", Err: err}
	}
	if last != nil {
		return last
	}
	return &APIError{Op: op, Kind: failure.Timeout, Err: err,
		Message: fmt.Sprintf("no answer within the %s deadline for one value", c.opt.Deadline),
		Hint:    "the service asked to wait longer than that; try again later"}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func since(t time.Time) time.Duration { return time.Since(t).Round(time.Millisecond) }

func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CheckBaseURLs validates both base URLs without building a client, so that
// a bad or leaking URL is reported before any token is looked up.
func CheckBaseURLs(o Options, allowInsecure bool) error {
	if o.BaseURL == "" {
		_, err := New(o, allowInsecure)
		return err
	}
	if _, err := parseBase(o.BaseURL, allowInsecure); err != nil {
		return err
	}
	if o.EventsBaseURL != "" {
		if _, err := parseBase(o.EventsBaseURL, allowInsecure); err != nil {
			return err
		}
	}
	return nil
}
