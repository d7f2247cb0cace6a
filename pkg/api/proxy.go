package api

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
)

// The proxy settings: HTTPS_PROXY for https:// requests, HTTP_PROXY for
// http:// ones (upper case first, then lower case, as net/http reads them),
// NO_PROXY for the hosts that go direct. They are read and checked once,
// when the transport is built, and strictly: net/http guesses at a value it
// cannot parse and may end up connecting directly, which for a user who set
// a proxy on purpose (the only way out of a corporate network, or a
// monitored one) is the wrong way to fail. A value that is not a proxy URL
// is a configuration error instead.

// proxySettings is the parsed environment.
type proxySettings struct {
	https, http *url.URL // nil: direct
	noProxy     []noProxyEntry
	all         bool // NO_PROXY=*
}

type noProxyEntry struct {
	domain string // lower case, no leading dot; "" for a CIDR or IP entry
	port   string // "" = any port
	ipNet  *net.IPNet
	ip     net.IP
}

// proxyFromEnv reads the proxy variables; a value that is not a usable
// proxy URL is a configuration error naming the variable.
func proxyFromEnv(getenv func(string) string) (*proxySettings, error) {
	s := &proxySettings{}
	var err error
	if s.https, err = proxyVar(getenv, "HTTPS_PROXY"); err != nil {
		return nil, err
	}
	if s.http, err = proxyVar(getenv, "HTTP_PROXY"); err != nil {
		return nil, err
	}
	_, noProxy := envAny(getenv, "NO_PROXY")
	s.parseNoProxy(noProxy)
	return s, nil
}

func envAny(getenv func(string) string, upper string) (name, value string) {
	if v := getenv(upper); v != "" {
		return upper, v
	}
	lower := strings.ToLower(upper)
	return lower, getenv(lower)
}

// proxyVar parses one proxy variable. A value without a scheme is read as
// http://, as curl and net/http do.
func proxyVar(getenv func(string) string, upper string) (*url.URL, error) {
	name, raw := envAny(getenv, upper)
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	withScheme := raw
	if !strings.Contains(raw, "://") {
		withScheme = "http://" + raw
	}
	u, err := url.Parse(withScheme)
	bad := func(why string) error {
		return failure.New(failure.Config, "%s=%s is not a proxy URL: %s", name, RedactRawURL(raw), why).
			WithHint("use the form http://host:port (or https://, socks5://), or unset " + name + " to connect directly")
	}
	switch {
	case err != nil:
		return nil, bad("it does not parse")
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5" && u.Scheme != "socks5h":
		return nil, bad("the scheme " + strconv.Quote(u.Scheme) + " is not http, https, socks5 or socks5h")
	case u.Hostname() == "":
		return nil, bad("it has no host")
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return nil, bad("a proxy URL has no path, query or fragment")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, bad("the port is not a number from 1 to 65535")
		}
	}
	return u, nil
}

func (s *proxySettings) parseNoProxy(v string) {
	for _, f := range strings.Split(v, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		switch {
		case f == "":
			continue
		case f == "*":
			s.all = true
			return
		}
		if _, ipNet, err := net.ParseCIDR(f); err == nil {
			s.noProxy = append(s.noProxy, noProxyEntry{ipNet: ipNet})
			continue
		}
		host, port, err := net.SplitHostPort(f)
		if err != nil {
			host, port = f, ""
		}
		if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
			s.noProxy = append(s.noProxy, noProxyEntry{ip: ip, port: port})
			continue
		}
		host = strings.TrimPrefix(strings.TrimPrefix(host, "*"), ".")
		s.noProxy = append(s.noProxy, noProxyEntry{domain: host, port: port})
	}
}

// proxy is the transport's Proxy function: which proxy, if any, a request
// goes through. Loopback never goes through a proxy, as in net/http.
func (s *proxySettings) proxy(req *http.Request) (*url.URL, error) {
	p := s.http
	if req.URL.Scheme == "https" {
		p = s.https
	}
	if p == nil || s.bypass(req.URL) {
		return nil, nil
	}
	return p, nil
}

// bypass reports whether u's host goes direct: loopback, or NO_PROXY
// (a domain matches itself and its subdomains, "example.com" and
// ".example.com" alike; an IP or CIDR matches addresses; an entry with a
// port matches that port only).
func (s *proxySettings) bypass(u *url.URL) bool {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if IsLoopback(host) || s.all {
		return true
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[u.Scheme]
	}
	ip := net.ParseIP(host)
	for _, e := range s.noProxy {
		if e.port != "" && e.port != port {
			continue
		}
		switch {
		case e.ipNet != nil:
			if ip != nil && e.ipNet.Contains(ip) {
				return true
			}
		case e.ip != nil:
			if ip != nil && e.ip.Equal(ip) {
				return true
			}
		case host == e.domain || strings.HasSuffix(host, "."+e.domain):
			return true
		}
	}
	return false
}

// installProxy sets t's proxy from the environment, and has a proxy's
// refusal to open a tunnel reported as such: net/http would report only the
// proxy's reason phrase ("search: Forbidden"), as if the service had said it.
func installProxy(t *http.Transport) error {
	s, err := proxyFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	t.Proxy = s.proxy
	t.OnProxyConnectResponse = func(_ context.Context, proxy *url.URL, _ *http.Request, resp *http.Response) error {
		if resp.StatusCode == http.StatusOK {
			return nil
		}
		return &tunnelRefused{proxy: proxy.Host, status: resp.StatusCode}
	}
	return nil
}

// tunnelRefused is a proxy's non-200 answer to CONNECT.
type tunnelRefused struct {
	proxy  string
	status int
}

func (e *tunnelRefused) Error() string {
	return fmt.Sprintf("the proxy %s answered %d %s to CONNECT", e.proxy, e.status, http.StatusText(e.status))
}
