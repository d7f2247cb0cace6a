package api

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// The --debug log: one line per request and per response, to stderr. The
// Authorization header, every cookie value, the user info of every URL
// and the tokens wherever they appear are redacted here, the only place
// that prints headers. Every line is
// sanitized as a whole: the status line, header values and redirect
// targets come from the server and may carry escape sequences.

func (c *Client) logf(format string, args ...any) {
	if c.opt.Debug != nil {
		line := redactSecrets(fmt.Sprintf(format, args...), c.opt.Token, c.opt.EventsToken)
		fmt.Fprintln(c.opt.Debug, "[debug] "+sanitize.String(line))
	}
}

// redactSecrets replaces every occurrence of a token in a --debug line,
// in any header or anywhere else: a server that echoes the bearer token
// in a header of its own (X-Echo-Authorization, a Location, a
// WWW-Authenticate) must not get it printed. The forms a server is likely
// to send it back in are covered: as is, percent-encoded, and base64
// (which Basic credentials and some echoes use).
func redactSecrets(line string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) < minSecret {
			continue // a token this short would redact ordinary words
		}
		for _, form := range []string{sec, url.QueryEscape(sec), url.PathEscape(sec),
			base64.StdEncoding.EncodeToString([]byte(sec)), base64.RawURLEncoding.EncodeToString([]byte(sec))} {
			line = strings.ReplaceAll(line, form, "[redacted]")
		}
	}
	return line
}

// minSecret is the shortest token redacted wherever it appears.
const minSecret = 4

// logRequest logs the request line and headers, and returns when the
// request starts for logResponse; without --debug, neither reads the clock.
func (c *Client) logRequest(req *http.Request) (start time.Time) {
	if c.opt.Debug == nil {
		return start
	}
	c.logf("> %s %s [%s]", req.Method, RedactURL(req.URL), headerLine(req.Header))
	return time.Now()
}

// logResponse logs the status line, the time taken, the body's size and
// the response headers.
func (c *Client) logResponse(resp *http.Response, start time.Time, size int) {
	if c.opt.Debug == nil {
		return
	}
	c.logf("< %s %s (%s, %d bytes) [%s]", resp.Proto, resp.Status, since(start), size, headerLine(resp.Header))
}

// headerLine prints h sorted by name, credentials redacted.
func headerLine(h http.Header) string {
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	var hdr []string
	for _, name := range names {
		for _, v := range h[name] {
			hdr = append(hdr, name+": "+redactHeader(name, v))
		}
	}
	return strings.Join(hdr, "; ")
}

func redactHeader(name, value string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization":
		if scheme, _, ok := strings.Cut(value, " "); ok {
			return scheme + " [redacted]"
		}
		return "[redacted]"
	case "Cookie":
		parts := strings.Split(value, ";")
		for i, p := range parts {
			if k, _, ok := strings.Cut(strings.TrimSpace(p), "="); ok {
				parts[i] = k + "=[redacted]"
			}
		}
		return strings.Join(parts, "; ")
	case "Set-Cookie":
		if k, _, ok := strings.Cut(value, "="); ok {
			return k + "=[redacted]"
		}
		return "[redacted]"
	}
	return value
}

// RedactURL prints u with its user info, password and user name alike,
// replaced: "https://admin:hunter2@ti.example/" gives
// "https://[redacted]@ti.example/". Every URL that tilookup prints in an
// error or a log line goes through it.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	if u.User == nil {
		return u.String()
	}
	c := *u
	c.User = nil
	s := c.String()
	if c.Scheme != "" && strings.HasPrefix(s, c.Scheme+"://") {
		return c.Scheme + "://[redacted]@" + s[len(c.Scheme)+3:]
	}
	return s
}

// RedactRawURL is RedactURL for a URL as typed, which may not even parse:
// whatever stands between the scheme and the last "@" before the path is
// replaced.
func RedactRawURL(raw string) string {
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		start = i + 3
	}
	end := len(raw)
	if j := strings.IndexAny(raw[start:], "/?#"); j >= 0 {
		end = start + j
	}
	at := strings.LastIndexByte(raw[start:end], '@')
	if at < 0 {
		return raw
	}
	return raw[:start] + "[redacted]" + raw[start+at:]
}

// redactURLErr keeps transport errors free of user-info in URLs.
func redactURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.User != nil {
			return &url.Error{Op: ue.Op, URL: RedactURL(u), Err: ue.Err}
		}
	}
	return err
}
