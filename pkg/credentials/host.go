package credentials

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
)

// HostKey returns the keyring user for a base URL: host, plus :port when not
// the default for the scheme. Lower-cased; IPv6 in brackets. The path prefix,
// query and any user info are ignored: a token belongs to a host, whatever
// gateway path the API hangs under. A value with no scheme ("ti.example:8443",
// as typed to `auth login --host`) is read as https.
func HostKey(baseURL string) (string, error) {
	raw := strings.TrimSpace(baseURL)
	if raw == "" {
		return "", failure.New(failure.Config, "no base URL to derive the token's host from").
			WithHint("set base_url, or pass --host")
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the input, which might carry a password in
		// its user info, so only the cause's inner error is kept.
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return "", failure.Wrap(failure.Config, err, "the base URL is not a valid URL").
			WithHint("use the form https://host[:port][/path]")
	}
	scheme := strings.ToLower(u.Scheme)
	var defaultPort string
	switch scheme {
	case "https":
		defaultPort = "443"
	case "http":
		defaultPort = "80"
	default:
		return "", failure.New(failure.Config, "the base URL has scheme %q; only http and https are supported", u.Scheme)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", failure.New(failure.Config, "the base URL %s has no host", u.Redacted()).
			WithHint("use the form https://host[:port][/path]")
	}
	if strings.ContainsAny(host, "/#?@ \t") {
		return "", failure.New(failure.Config, "the base URL %s has an invalid host", u.Redacted())
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", failure.New(failure.Config, "the base URL %s has an invalid port", u.Redacted())
		}
		port = strconv.Itoa(n) // "0443" and "443" are the same port
		if port == defaultPort {
			port = ""
		}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return host, nil
}

// checkHost accepts what HostKey returns. It does not normalise further:
// HostKey is not idempotent for a key like "h:443" that came from an http
// URL, so re-deriving would change the key.
func checkHost(host string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(host))
	if h == "" {
		return "", failure.New(failure.Usage, "no host given for the token")
	}
	if strings.ContainsAny(h, "/#?@ \t\r\n") || strings.Contains(h, "://") {
		return "", failure.New(failure.Usage, "%q is not a host; pass what HostKey returns (host or host:port)", oneLine(h, 80))
	}
	return h, nil
}
