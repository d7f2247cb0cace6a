package api

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// maxExcerpt bounds how much server text an error message quotes.
const maxExcerpt = 200

// APIError is a response the service gave instead of what the spec promises:
// an error status, or a body that could not be read.
type APIError struct {
	Op      string       // "search" or "events"
	Status  int          // HTTP status, 0 when no response arrived
	Kind    failure.Kind // what the user should do about it
	Message string       // the server's own words, sanitized and truncated
	Hint    string       // what to do next
	Err     error        // the cause, for --debug
	// Body is the error answer's body as received (within the size cap),
	// for a caller that reads a service's own error shape: MISP says why
	// it refused an attribute in "errors", beside a "message" that only
	// says it did.
	Body []byte
	// RedirectedTo is the host a redirect took the request to when it is
	// not the host asked: the credentials were not sent there, so its
	// 401 or 403 says nothing about them.
	RedirectedTo string
	// unreachable: no connection to the service was made (refused, no
	// such host, no route, a TLS handshake or a proxy that failed), so
	// the service never saw the request. See Unreachable.
	unreachable bool
}

// Unreachable reports whether err is a request that never reached the
// service: the connection itself failed. A run stops sending after a few
// of these in a row (lookup.StopSending), as nothing later can fare
// better; an answer of any status, even a 5xx, is not this.
func Unreachable(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.unreachable
}

// Silent reports whether err is a request the service never answered in
// time: a time-out (the per-request --timeout or the value's deadline)
// with no status received. A hung proxy, or a load balancer with no
// backend, accepts the connection and then says nothing; a firewall that
// drops the SYN looks the same. Such failures in a row stop a run as
// unreachable ones do (lookup.StopSending): each would otherwise cost
// every try's whole time-out.
func Silent(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Kind == failure.Timeout && e.Status == 0
}

// dialFailed reports whether err happened while connecting: dialing, or
// resolving the host's name.
func dialFailed(err error) bool {
	var oe *net.OpError
	var dns *net.DNSError
	return (errors.As(err, &oe) && oe.Op == "dial") || errors.As(err, &dns)
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	b.WriteString(": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
	}
	if e.Message != "" {
		if e.Status != 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Message)
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

func (e *APIError) Unwrap() error             { return e.Err }
func (e *APIError) FailureKind() failure.Kind { return e.Kind }
func (e *APIError) HTTPStatus() int           { return e.Status }

// statusError builds the error for a non-2xx response.
func statusError(op string, status int, contentType string, body []byte) *APIError {
	e := &APIError{Op: op, Status: status, Message: excerpt(contentType, body), Body: body}
	switch {
	case status == http.StatusBadRequest:
		e.Kind = failure.BadRequest
		if op == OpEvents {
			e.Hint = "the service refused the request"
		} else {
			e.Hint = "the service refused the request; check the value and --limit"
		}
	case status == http.StatusUnauthorized:
		e.Kind = failure.Auth
		if op == OpEvents {
			e.Hint = "the events service wants a valid JWT, sent as a bearer token and as the events_cookie_name cookie (default jwt); run `tilookup auth login` or set TILOOKUP_TOKEN"
		} else {
			e.Hint = "the token was not accepted; run `tilookup auth login` or set TILOOKUP_TOKEN"
		}
	case status == http.StatusForbidden:
		e.Kind = failure.Forbidden
		e.Hint = "the token is valid but lacks permission for this; ask the service's administrator"
	case status == http.StatusNotFound:
		e.Kind = failure.NotFound
		if op == OpEvents {
			e.Hint = "the service has no event record for this caller, or events_base_url is wrong"
		} else {
			e.Hint = "check base_url (it may need a path prefix)"
		}
	case status == http.StatusTooManyRequests:
		e.Kind = failure.RateLimited
		e.Hint = "the service is rate limiting; retry later, or lower --rate and --concurrency"
	case status >= 500:
		e.Kind = failure.Server
		e.Hint = "the service failed; try again later"
	case status >= 400:
		e.Kind = failure.BadRequest
	default:
		e.Kind = failure.Decode
		e.Hint = "unexpected status"
	}
	return e
}

// excerpt pulls a short human message out of an error body of any shape:
// a JSON error object, an HTML page (its title only), or plain text.
func excerpt(contentType string, body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	if msg := jsonMessage(body); msg != "" {
		return clean(msg)
	}
	if isHTML(contentType, body) {
		if t := htmlTitle(contentType, body); t != "" {
			return clean("HTML page: " + t)
		}
		return "an HTML page"
	}
	return clean(string(body))
}

func clean(s string) string {
	s = strings.Join(strings.Fields(sanitize.String(s)), " ")
	return sanitize.Truncate(s, maxExcerpt)
}

// jsonMessage finds the message in common error shapes: {"message"},
// {"error": "..."}, {"error": {"message"}}, {"detail"}, {"title"},
// {"errors": [{"message"}]}.
func jsonMessage(body []byte) string {
	if body[0] != '{' {
		return ""
	}
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return ""
	}
	return messageIn(obj, 0)
}

func messageIn(obj map[string]any, depth int) string {
	// description before title: a TAXII error's title may be a class
	// name ("ProcessingError"), its description says what went wrong.
	for _, k := range []string{"message", "error_description", "detail", "description", "error", "title", "msg", "reason"} {
		switch v := obj[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case map[string]any:
			if depth < 2 {
				if m := messageIn(v, depth+1); m != "" {
					return m
				}
			}
		}
	}
	if list, ok := obj["errors"].([]any); ok && len(list) > 0 {
		switch v := list[0].(type) {
		case string:
			return v
		case map[string]any:
			if depth < 2 {
				return messageIn(v, depth+1)
			}
		}
	}
	return ""
}

func isHTML(contentType string, body []byte) bool {
	if strings.Contains(strings.ToLower(contentType), "html") {
		return true
	}
	head := body[:min(len(body), 512)]
	return hasPrefixFold(head, "<!doctype html") || hasPrefixFold(head, "<html") || indexFold(head, "<title") >= 0
}

// maxTitleScan bounds how far into an HTML page the title is looked for.
const maxTitleScan = 64 << 10

// htmlTitle returns the text of the page's <title>, entities decoded, or "".
// Offsets are found in body itself, never in a case-folded copy: folding
// can change a byte sequence's length (invalid UTF-8, some non-ASCII
// letters), and offsets from the copy would cut body in the wrong place.
func htmlTitle(contentType string, body []byte) string {
	head := body[:min(len(body), maxTitleScan)]
	i := indexFold(head, "<title")
	if i < 0 {
		return ""
	}
	j := bytes.IndexByte(head[i:], '>')
	if j < 0 {
		return ""
	}
	start := i + j + 1
	end := indexFold(head[start:], "</title")
	if end < 0 {
		return ""
	}
	title := head[start : start+end]
	if isLatin1(contentType) {
		return strings.TrimSpace(html.UnescapeString(latin1(title)))
	}
	return strings.TrimSpace(html.UnescapeString(string(title)))
}

// indexFold is bytes.Index for an ASCII pattern, ignoring ASCII case.
func indexFold(s []byte, pattern string) int {
	for i := 0; i+len(pattern) <= len(s); i++ {
		if hasPrefixFold(s[i:], pattern) {
			return i
		}
	}
	return -1
}

// hasPrefixFold reports whether s starts with the lower-case ASCII pattern,
// ignoring ASCII case in s.
func hasPrefixFold(s []byte, pattern string) bool {
	if len(s) < len(pattern) {
		return false
	}
	for k := 0; k < len(pattern); k++ {
		c := s[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != pattern[k] {
			return false
		}
	}
	return true
}

// isLatin1 reports whether contentType names a single-byte Western charset.
// windows-1252 differs from ISO-8859-1 only in 0x80-0x9f, which decode to
// C1 controls here and are then sanitized away.
func isLatin1(contentType string) bool {
	_, params, ok := strings.Cut(strings.ToLower(contentType), "charset=")
	if !ok {
		return false
	}
	cs := strings.Trim(strings.TrimSpace(strings.SplitN(params, ";", 2)[0]), `"'`)
	switch cs {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "windows-1252", "cp1252", "us-ascii":
		return true
	}
	return false
}

// latin1 decodes ISO-8859-1: each byte is the code point of the same number.
func latin1(b []byte) string {
	var s strings.Builder
	s.Grow(len(b) + len(b)/4)
	for _, c := range b {
		s.WriteRune(rune(c))
	}
	return s.String()
}

// emptyAnswer is the error for a 2xx with nothing in it (a 204, or a 200
// whose body is empty), naming the status the service really sent.
func emptyAnswer(op string, status int, body []byte) *APIError {
	if len(bytes.TrimSpace(body)) != 0 {
		return nil
	}
	return &APIError{Op: op, Status: status, Kind: failure.Decode, Message: "the service answered with an empty body",
		Hint: "the service sent no " + op + " answer; try again later, or check base_url"}
}

// finalTransportError explains the transport failures that another try
// would only repeat, or nil: a certificate that does not verify, and a
// proxy that cannot be reached or refuses the tunnel. The caller must not
// retry them.
func finalTransportError(op string, err error) *APIError {
	e := tlsError(op, err)
	if e == nil {
		e = proxyError(op, err)
	}
	if e != nil {
		e.unreachable = true
	}
	return e
}

// tlsError explains a certificate that failed verification, or nil.
func tlsError(op string, err error) *APIError {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
	)
	e := &APIError{Op: op, Kind: failure.Network, Err: err}
	switch {
	case errors.As(err, &unknown):
		e.Message = "the service's TLS certificate is signed by an authority this system does not trust"
		e.Hint = "if the service uses a private CA, point ca_cert at its PEM file (`tilookup config set ca_cert FILE`)"
	case errors.As(err, &hostname):
		e.Message = "the service's TLS certificate is not valid for " + clean(hostname.Host)
		e.Hint = "check base_url: the host must be one the certificate names"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		e.Message = "the service's TLS certificate has expired or is not valid yet"
		e.Hint = "check this machine's clock; otherwise the service must renew its certificate"
	case errors.As(err, &invalid), errors.As(err, &verify):
		e.Message = "the service's TLS certificate does not verify: " + clean(describeNetErr(err))
		e.Hint = "if the service uses a private CA, point ca_cert at its PEM file (`tilookup config set ca_cert FILE`)"
	case errors.As(err, &record):
		e.Message = "the service does not speak TLS on this port"
		e.Hint = "check base_url: http:// or https://, and the port"
	default:
		return nil
	}
	return e
}

// proxyError explains a failure to reach the service through a proxy, or
// nil: the proxy could not be reached (net/http's "proxyconnect" error), or
// it refused to open the tunnel.
func proxyError(op string, err error) *APIError {
	variable := "HTTP_PROXY"
	var ue *url.Error
	if errors.As(err, &ue) && strings.HasPrefix(strings.ToLower(ue.URL), "https:") {
		variable = "HTTPS_PROXY"
	}
	e := &APIError{Op: op, Kind: failure.Network, Err: err,
		Hint: "check " + variable + " and NO_PROXY, or unset " + variable + " to connect directly"}
	var refused *tunnelRefused
	var oe *net.OpError
	switch {
	case errors.As(err, &refused):
		e.Message = fmt.Sprintf("the proxy %s (%s) refused to connect to the service: %d %s",
			clean(refused.proxy), variable, refused.status, http.StatusText(refused.status))
		if refused.status == http.StatusProxyAuthRequired {
			e.Hint = "the proxy wants credentials: put them in " + variable + " (http://user:password@host:port)"
		}
	case !errors.As(err, &oe) || oe.Op != "proxyconnect" || oe.Err == nil:
		return nil
	default:
		var dial *net.OpError
		if errors.As(oe.Err, &dial) && dial.Addr != nil {
			e.Message = fmt.Sprintf("cannot connect to the proxy %s (%s): %s", dial.Addr, variable, clean(innermost(dial)))
		} else {
			e.Message = fmt.Sprintf("cannot connect to the proxy (%s): %s", variable, clean(innermost(oe)))
		}
	}
	return e
}

// innermost is the cause at the bottom of a network error, without the
// "dial tcp ADDR: connect:" steps that led to it.
func innermost(oe *net.OpError) string {
	err := oe.Err
	for {
		var next *net.OpError
		if !errors.As(err, &next) || next.Err == nil {
			break
		}
		err = next.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		err = se.Err
	}
	return err.Error()
}
