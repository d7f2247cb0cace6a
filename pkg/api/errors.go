package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
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

func (e *APIError) Unwrap() error               { return e.Err }
func (e *APIError) FailureKind() failure.Kind   { return e.Kind }
func (e *APIError) HTTPStatus() int             { return e.Status }
func (e *APIError) withHint(h string) *APIError { e.Hint = h; return e }

// statusError builds the error for a non-2xx response.
func statusError(op string, status int, contentType string, body []byte) *APIError {
	e := &APIError{Op: op, Status: status, Message: excerpt(contentType, body)}
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
		if t := htmlTitle(body); t != "" {
			return clean("HTML page: " + t)
		}
		return "an HTML page"
	}
	if json.Valid(body) {
		return clean(string(body))
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
	for _, k := range []string{"message", "error_description", "detail", "error", "title", "msg", "reason"} {
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
	head := strings.ToLower(string(body[:min(len(body), 512)]))
	return strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") || strings.Contains(head, "<title")
}

func htmlTitle(body []byte) string {
	low := bytes.ToLower(body[:min(len(body), 64<<10)])
	i := bytes.Index(low, []byte("<title"))
	if i < 0 {
		return ""
	}
	j := bytes.IndexByte(low[i:], '>')
	if j < 0 {
		return ""
	}
	start := i + j + 1
	end := bytes.Index(low[start:], []byte("</title"))
	if end < 0 {
		return ""
	}
	return strings.TrimSpace(string(body[start : start+end]))
}
