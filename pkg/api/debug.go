package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// The --debug log: one line per request and per response, to stderr. The
// Authorization header and every cookie value are redacted here, the only
// place that prints headers.

func (c *Client) logf(format string, args ...any) {
	if c.opt.Debug != nil {
		fmt.Fprintf(c.opt.Debug, "[debug] "+format+"\n", args...)
	}
}

func (c *Client) logRequest(req *http.Request) {
	if c.opt.Debug == nil {
		return
	}
	names := make([]string, 0, len(req.Header))
	for name := range req.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	var hdr []string
	for _, name := range names {
		for _, v := range req.Header[name] {
			hdr = append(hdr, name+": "+redactHeader(name, v))
		}
	}
	c.logf("> %s %s [%s]", req.Method, req.URL.String(), strings.Join(hdr, "; "))
}

func redactHeader(name, value string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization":
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
	}
	return value
}

// redactURLErr keeps transport errors free of user-info in URLs.
func redactURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.User != nil {
			u.User = url.User("[redacted]")
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
	}
	return err
}
