package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultHeader is the request header that selects a fault for one request.
// It replaces (does not add to) the server-wide Options.Faults; the value
// "none" turns the server-wide fault off for that request.
const FaultHeader = "X-Sandbox-Fault"

// Actions: what a fault does instead of, or to, the normal response. A spec
// holds at most one.
const (
	actStatus       = "status"
	actReset        = "reset"
	actTruncate     = "truncate"
	actMalformed    = "malformed"
	actHTML         = "html"
	actHuge         = "huge"
	actEmpty        = "empty"
	actArray        = "array"
	actSlowDrip     = "slow-drip"
	actRedirectLoop = "redirect-loop"
	actRedirect     = "redirect"
	actEscape       = "escape"
	actHTMLLatin1   = "html-latin1"
	actInvisible    = "invisible"
)

const (
	maxLatency      = 10 * time.Minute
	defaultDrip     = 100 * time.Millisecond
	maxHugeMB       = 1024
	maxRetryAfter   = 24 * 3600
	maxCounterKeys  = 100000
	hugePaddingByte = 'x'
)

// fault is a parsed fault spec (see FAULTS.md).
type fault struct {
	spec string // canonical text: the counter key's first part, and the log's

	latency     time.Duration
	contentType string

	action         string
	status         int
	retryAfter     int // seconds; -1 when not set
	retryAfterDate int // seconds ahead; 0 when not set
	resetMid       bool
	hugeMB         int
	drip           time.Duration
	location       string

	times   int // 0: every request
	rate    float64
	hasRate bool
}

// CheckFaults reports whether spec is a valid fault spec, with the reason
// when it is not, so that `sandbox serve --fault` can refuse a typo before
// the server starts.
func CheckFaults(spec string) error {
	_, err := parseFault(spec)
	return err
}

// parseFault parses spec; a nil fault with a nil error means "no fault".
func parseFault(spec string) (*fault, error) {
	f := &fault{retryAfter: -1}
	var canon []string
	seen := map[string]bool{}
	none := false
	for _, clause := range strings.Split(spec, ";") {
		clause = strings.TrimSpace(clause)
		if clause == "" {
			continue
		}
		name, value, hasValue := strings.Cut(clause, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		if isDigits(name) && !hasValue {
			name, value, hasValue = actStatus, name, true // "503" is short for "status=503"
		}
		if seen[name] {
			return nil, fmt.Errorf("fault spec %q: %s given twice", spec, name)
		}
		seen[name] = true
		if err := f.set(name, value, hasValue); err != nil {
			return nil, fmt.Errorf("fault spec %q: %w", spec, err)
		}
		none = none || name == "none"
		if hasValue {
			canon = append(canon, name+"="+value)
		} else {
			canon = append(canon, name)
		}
	}
	if none {
		if len(canon) > 1 {
			return nil, fmt.Errorf("fault spec %q: none cannot be combined with other clauses", spec)
		}
		return nil, nil
	}
	if len(canon) == 0 {
		return nil, nil
	}
	if err := f.finish(); err != nil {
		return nil, fmt.Errorf("fault spec %q: %w", spec, err)
	}
	f.spec = strings.Join(canon, ";")
	return f, nil
}

// set applies one clause to f.
func (f *fault) set(name, value string, hasValue bool) error {
	needValue := func() error {
		if !hasValue || value == "" {
			return fmt.Errorf("%s needs a value (%s=...)", name, name)
		}
		return nil
	}
	noValue := func() error {
		if hasValue {
			return fmt.Errorf("%s takes no value", name)
		}
		return nil
	}
	switch name {
	case "none":
		return noValue()
	case "latency":
		if err := needValue(); err != nil {
			return err
		}
		d, err := time.ParseDuration(value)
		if err != nil || d <= 0 || d > maxLatency {
			return fmt.Errorf("latency must be a Go duration above 0 and at most %s, like 2s or 150ms; got %q", maxLatency, value)
		}
		f.latency = d
	case "content-type":
		if err := needValue(); err != nil {
			return err
		}
		f.contentType = value
	case "times":
		if err := needValue(); err != nil {
			return err
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 {
			return fmt.Errorf("times must be a whole number of at least 1; got %q", value)
		}
		f.times = n
	case "rate":
		if err := needValue(); err != nil {
			return err
		}
		p, err := strconv.ParseFloat(value, 64)
		if err != nil || p < 0 || p > 1 {
			return fmt.Errorf("rate must be a fraction from 0 to 1, like 0.05; got %q", value)
		}
		f.rate, f.hasRate = p, true
	case "retry-after":
		if err := needValue(); err != nil {
			return err
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 || n > maxRetryAfter {
			return fmt.Errorf("retry-after must be whole seconds from 0 to %d; got %q", maxRetryAfter, value)
		}
		f.retryAfter = n
	case "retry-after-date":
		f.retryAfterDate = 1
		if hasValue {
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 || n > maxRetryAfter {
				return fmt.Errorf("retry-after-date takes whole seconds ahead from 1 to %d; got %q", maxRetryAfter, value)
			}
			f.retryAfterDate = n
		}
	default:
		return f.setAction(name, value, hasValue, needValue, noValue)
	}
	return nil
}

func (f *fault) setAction(name, value string, hasValue bool, needValue, noValue func() error) error {
	switch name {
	case actStatus, actReset, actTruncate, actMalformed, actHTML, actHuge, actEmpty, actArray,
		actSlowDrip, actRedirectLoop, actRedirect, actEscape, actHTMLLatin1, actInvisible:
	default:
		return fmt.Errorf("unknown clause %q; see FAULTS.md for the list", name)
	}
	if f.action != "" {
		return fmt.Errorf("%s and %s are both actions; a spec holds one", f.action, name)
	}
	f.action = name
	switch name {
	case actStatus:
		if err := needValue(); err != nil {
			return err
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 200 || n > 599 {
			return fmt.Errorf("status must be an HTTP status from 200 to 599; got %q", value)
		}
		f.status = n
	case actReset:
		switch {
		case !hasValue || value == "before":
		case value == "mid":
			f.resetMid = true
		default:
			return fmt.Errorf("reset takes before (the default) or mid; got %q", value)
		}
	case actHuge:
		if err := needValue(); err != nil {
			return err
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > maxHugeMB {
			return fmt.Errorf("huge takes a size in MiB from 1 to %d; got %q", maxHugeMB, value)
		}
		f.hugeMB = n
	case actSlowDrip:
		f.drip = defaultDrip
		if hasValue {
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 || d > 10*time.Second {
				return fmt.Errorf("slow-drip takes the pause between bytes, above 0 and at most 10s; got %q", value)
			}
			f.drip = d
		}
	case actRedirect:
		if err := needValue(); err != nil {
			return err
		}
		u, err := url.Parse(value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("redirect takes an absolute http or https URL; got %q", value)
		}
		f.location = value
	default:
		return noValue()
	}
	return nil
}

// finish checks the clauses against each other.
func (f *fault) finish() error {
	if f.retryAfter >= 0 && f.retryAfterDate > 0 {
		return fmt.Errorf("retry-after and retry-after-date are two forms of one header; give one")
	}
	if f.retryAfter >= 0 || f.retryAfterDate > 0 {
		switch f.action {
		case "":
			f.action, f.status = actStatus, http.StatusTooManyRequests
		case actStatus:
		default:
			return fmt.Errorf("retry-after goes with a status (429 or 503), not with %s", f.action)
		}
	}
	if f.action == "" && f.latency == 0 && f.contentType == "" {
		return fmt.Errorf("nothing to inject: times and rate only say when a fault applies")
	}
	return nil
}

// RateSelects reports whether a fault with rate=rate applies to query q:
// when the FNV-1a 32-bit hash of q's bytes (as the server receives them,
// percent-decoded) is below rate × 2³². Tests call it to know in advance
// which values of a bulk run will fault.
func RateSelects(q string, rate float64) bool {
	h := fnv.New32a()
	_, _ = h.Write([]byte(q))
	return float64(h.Sum32()) < rate*(1<<32)
}

// faultCounters counts requests per (fault, path, q) for times=N.
type faultCounters struct {
	mu   sync.Mutex
	seen map[string]int
}

func (c *faultCounters) next(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil || len(c.seen) >= maxCounterKeys {
		// A long-running sandbox must not grow without bound; forgetting
		// old keys only lets their fault fire again.
		c.seen = make(map[string]int)
	}
	c.seen[key]++
	return c.seen[key]
}

// applies decides whether f fires for this request, counting it.
func (f *fault) applies(path, q string, c *faultCounters) bool {
	if f.hasRate && !RateSelects(q, f.rate) {
		return false
	}
	if f.times == 0 {
		return true
	}
	return c.next(f.spec+"\x00"+path+"\x00"+q) <= f.times
}

// inject serves the request under fault f. produce makes the reply the
// endpoint would send; actions that mangle a response mangle that one. It
// returns the status written, or 0 when the connection was dropped.
func (f *fault) inject(w http.ResponseWriter, r *http.Request, produce func(*http.Request) reply) int {
	if f.latency > 0 && !sleepCtx(r.Context(), f.latency) {
		return 0
	}
	switch f.action {
	case actStatus:
		rep := errorReply(f.status, errorCode(f.status), fmt.Sprintf("injected fault: %d %s", f.status, http.StatusText(f.status)))
		if f.retryAfter >= 0 {
			rep.header.Set("Retry-After", strconv.Itoa(f.retryAfter))
		}
		if f.retryAfterDate > 0 {
			rep.header.Set("Retry-After", retryDate(time.Now(), f.retryAfterDate))
		}
		return rep.write(w, f.contentType)
	case actReset:
		var rep reply
		if f.resetMid {
			rep = produce(r)
		}
		return f.rawWrite(w, rep, len(rep.body)/2, true)
	case actTruncate:
		rep := produce(r)
		return f.rawWrite(w, rep, len(rep.body)/2, false)
	case actMalformed:
		body := `{"query":` + quote(queryParam(r)) + `,"detected_type":"md5","results":[{"resource":"malware_samples","count":}` + "\n"
		return reply{status: http.StatusOK, header: http.Header{"Content-Type": {jsonType}}, body: []byte(body)}.write(w, f.contentType)
	case actHTML:
		return reply{status: http.StatusBadGateway, header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body: []byte(badGatewayPage)}.write(w, f.contentType)
	case actHuge:
		return f.writeHuge(w, produce(r))
	case actEmpty:
		return reply{status: http.StatusOK, header: http.Header{"Content-Type": {jsonType}}}.write(w, f.contentType)
	case actArray:
		rep := produce(r)
		body := append(append([]byte("["), bytes.TrimSpace(rep.body)...), "]\n"...)
		return reply{status: http.StatusOK, header: http.Header{"Content-Type": {jsonType}}, body: body}.write(w, f.contentType)
	case actSlowDrip:
		return f.slowDrip(w, r, produce(r))
	case actRedirectLoop:
		return redirect(w, r.URL.RequestURI(), f.contentType)
	case actRedirect:
		return redirect(w, f.location, f.contentType)
	case actEscape:
		return escapeReply(queryParam(r)).write(w, f.contentType)
	case actHTMLLatin1:
		return reply{status: http.StatusServiceUnavailable, header: http.Header{"Content-Type": {"text/html; charset=ISO-8859-1"}}, body: []byte(latin1Page)}.write(w, f.contentType)
	case actInvisible:
		return invisibleReply(queryParam(r)).write(w, f.contentType)
	}
	// latency or content-type alone: the normal response, late or relabelled.
	return produce(r).write(w, f.contentType)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryDate is an HTTP date at least ahead seconds after now: rounded up to
// the next whole second, since the format has no fractions.
func retryDate(now time.Time, ahead int) string {
	t := now.Add(time.Duration(ahead) * time.Second)
	if t.Truncate(time.Second) != t {
		t = t.Truncate(time.Second).Add(time.Second)
	}
	return t.UTC().Format(http.TimeFormat)
}

// rawWrite takes over the connection, writes rep's head and n bytes of its
// body (nothing at all when rep is the zero reply), and closes: with a TCP
// reset when abort is set, else with an orderly close a client sees as a
// short body. Content-Length always promises the whole body.
func (f *fault) rawWrite(w http.ResponseWriter, rep reply, n int, abort bool) int {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 cannot hand over its connection; aborting the handler
		// still resets the stream, which is the nearest equivalent.
		panic(http.ErrAbortHandler)
	}
	status := 0
	if rep.status != 0 {
		var head bytes.Buffer
		fmt.Fprintf(&head, "HTTP/1.1 %d %s\r\n", rep.status, http.StatusText(rep.status))
		h := rep.header.Clone()
		if f.contentType != "" {
			h.Set("Content-Type", f.contentType)
		}
		h.Set("Content-Length", strconv.Itoa(len(rep.body)))
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
		_ = h.Write(&head)
		head.WriteString("\r\n")
		head.Write(rep.body[:n])
		_, _ = conn.Write(head.Bytes())
		status = rep.status
	}
	if tcp, ok := conn.(*net.TCPConn); ok && abort {
		_ = tcp.SetLinger(0) // makes Close send RST instead of FIN
	}
	_ = conn.Close()
	if abort {
		return 0
	}
	return status
}

// writeHuge sends rep as a 200 whose object starts with a padding string of
// f.hugeMB MiB, streamed so the server never holds it in memory.
func (f *fault) writeHuge(w http.ResponseWriter, rep reply) int {
	rest := bytes.TrimSpace(rep.body)
	prefix := []byte(`{"padding":"`)
	suffix := []byte("\"}\n")
	if len(rest) > 2 && rest[0] == '{' {
		suffix = append([]byte(`",`), rest[1:]...)
		suffix = append(suffix, '\n')
	}
	size := f.hugeMB << 20
	h := w.Header()
	h.Set("Content-Type", jsonType)
	if f.contentType != "" {
		h.Set("Content-Type", f.contentType)
	}
	h.Set("Content-Length", strconv.Itoa(len(prefix)+size+len(suffix)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(prefix); err != nil {
		return http.StatusOK
	}
	chunk := bytes.Repeat([]byte{hugePaddingByte}, 64<<10)
	for left := size; left > 0; left -= len(chunk) {
		if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
			return http.StatusOK // the client gave up; nothing more to do
		}
	}
	_, _ = w.Write(suffix)
	return http.StatusOK
}

// slowDrip sends rep one byte at a time, flushing each, f.drip apart.
func (f *fault) slowDrip(w http.ResponseWriter, r *http.Request, rep reply) int {
	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	if f.contentType != "" {
		h.Set("Content-Type", f.contentType)
	}
	h.Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for i := range rep.body {
		if i > 0 && !sleepCtx(r.Context(), f.drip) {
			break
		}
		if _, err := w.Write(rep.body[i : i+1]); err != nil {
			break
		}
		if err := rc.Flush(); err != nil {
			break
		}
	}
	return rep.status
}

func redirect(w http.ResponseWriter, location, contentType string) int {
	rep := errorReply(http.StatusFound, "redirect", "injected fault: redirecting to "+location)
	rep.header.Set("Location", location)
	return rep.write(w, contentType)
}

// queryParam is the request's q as the server reads it, or "" — the key
// for times= and rate= on any endpoint.
func queryParam(r *http.Request) string {
	params, _ := url.ParseQuery(r.URL.RawQuery) // keeps what parsed even on error
	return params.Get("q")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const badGatewayPage = `<!DOCTYPE html>
<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>sandbox-proxy (injected fault)</center>
</body>
</html>
`

// latin1Page is a 503 page in ISO-8859-1, as old proxies still send them:
// umlauts and 0xff bytes before the title are not UTF-8, and each one
// grows to three bytes when a client lower-cases the page to find <title>.
const latin1Page = "<!DOCTYPE html>\n<html>\n<head>\n" +
	"<!-- Gr\xfc\xdfe aus M\xfcnchen: \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff -->\n" +
	"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">\n" +
	"<title>503 Dienst vor\xfcbergehend nicht verf\xfcgbar</title>\n</head>\n" +
	"<body><h1>Wartungsarbeiten</h1><p>Bitte versuchen Sie es sp\xe4ter.</p></body>\n</html>\n"

// invisibleReply is a well-formed 200 search answer whose strings carry
// characters a terminal shows as nothing: zero-width space, non-joiner and
// joiner, word joiner, BOM, soft hyphen and tag characters, so that
// "evil\u200b.example" would look like "evil.example".
func invisibleReply(q string) reply {
	preview, _ := json.Marshal(map[string]any{
		"domain":       "evil\u200b.example",
		"bom\ufeffkey": "a key with a BOM",
		"tags":         "visible\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065\U000E007F",
	})
	resp := searchResponse{
		Query:        q,
		DetectedType: detectType(q),
		Strategy:     "exact\u2060match",
		Results: []searchResult{{
			Resource:      "invisible_demo",
			Label:         "Label\u200c with\u200d joiners",
			Group:         "pay\u00adpal",
			MatchedColumn: "\ufeffdomain",
			MatchedValue:  "evil\u200b.example",
			Count:         1,
			Preview:       []json.RawMessage{preview},
			DetailURL:     "http://127.0.0.1/evil\u200b.example",
		}},
	}
	return jsonReply(http.StatusOK, resp)
}

// invalidUTF8Marker stands in for bytes that are not UTF-8 until the body
// is encoded: encoding/json would otherwise replace them with U+FFFD.
const invalidUTF8Marker = "@@INVALID-UTF8@@"

// escapeReply is a well-formed 200 search answer whose strings carry what a
// hostile or broken server might send to a terminal: ESC-led CSI and OSC
// sequences (screen clear, window title, hyperlink), C1 controls, a bidi
// override and bytes that are not UTF-8. A client must print none of them
// raw.
func escapeReply(q string) reply {
	preview, _ := json.Marshal(map[string]any{
		"title":      "\x1b]0;window title set by data\x07",
		"clear":      "before\x1b[2J\x1b[Hafter",
		"color":      "\x1b[31mred\x1b[0m",
		"hyperlink":  "\x1b]8;;http://evil.example/\x1b\\click me\x1b]8;;\x1b\\",
		"c1_csi":     "\u009b31mC1 CSI\u009b0m",
		"c1_nel":     "line\u0085break",
		"bidi":       "invoice\u202Efdp.exe",
		"backspaces": "safe\b\b\b\bEVIL\r",
		"invalid":    "bytes " + invalidUTF8Marker + " here",
		"\x1b[1mkey": "a key with an escape",
		"score":      42,
	})
	resp := searchResponse{
		Query:             q,
		DetectedType:      detectType(q),
		Strategy:          "exact_hash\x1b[8m",
		UnsupportedReason: "\x1b]0;pwned\x07",
		Results: []searchResult{{
			Resource:      "escape\x1b[31m_demo",
			Label:         "Label \x1b[2J\x1b[H with screen clear",
			Group:         "\u009b1mC1 group",
			MatchedColumn: "col\u202Eumn",
			MatchedValue:  "value " + invalidUTF8Marker,
			Count:         1,
			Preview:       []json.RawMessage{preview},
			DetailURL:     "http://127.0.0.1/\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\",
		}},
	}
	rep := jsonReply(http.StatusOK, resp)
	rep.body = bytes.ReplaceAll(rep.body, []byte(invalidUTF8Marker), []byte("\xff\xfe\xc3\x28"))
	return rep
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
