package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// Built-in defaults, typed. The Default strings of Keys spell the same
// values for `config list` and help; a test keeps the two in step. The
// client's own are pkg/api's, which must not import this package (and
// viper with it).
const (
	DefaultTimeout         = api.DefaultTimeout
	DefaultDeadline        = api.DefaultDeadline
	DefaultRetries         = 2
	DefaultKeyringTimeout  = 3 * time.Second
	DefaultMaxResponseSize = api.DefaultMaxResponseSize
	DefaultCookieName      = "jwt"
	DefaultOutput          = string(format.Table)
)

// Key describes one configuration setting: where it may come from and what
// values it accepts. The table below is the single list that `config
// get/set/list`, flag binding, environment binding, flag help and completion
// read.
type Key struct {
	Name    string
	Flag    string // global flag name, "" when there is none
	Env     string // environment variable, "" when there is none
	Default string
	Help    string
	Values  []string // allowed values, for validation and completion
	// SetValues, when set, are the only Values that config set writes
	// (and completes): output is read in any format a command writes,
	// but set only to what search writes.
	SetValues []string
	validate  func(string) error
	// emptyEnv: the variable set to "" is a value. For every other key an
	// empty variable is unset, as shells make it easy to leave one empty.
	emptyEnv bool
	// setup: a bad value is a configuration error (exit 3) wherever it
	// comes from, a flag included, as the contract says of the shared
	// cache's keys: they describe how a fleet shares Redis, not one run.
	setup bool
	// Password: the value is a URL whose password is never printed, not
	// even by `config get`, which prints other values as stored: the
	// Redis password, like a token.
	Password bool
	// needs is the key this one works through when it is on (see on),
	// and needsWhy says why; see Settings, Set and Unset.
	needs, needsWhy string
}

// Keys lists every setting, in the order `config list` prints them.
var Keys = []Key{
	{Name: "base_url", Flag: "base-url", Env: "TILOOKUP_BASE_URL", Help: "where /api/ti/resources/search is served (may carry a path prefix)", validate: validURL},
	{Name: "events_base_url", Flag: "events-base-url", Env: "TILOOKUP_EVENTS_BASE_URL", Help: "where /api/events/me is served (default: base_url of the same scope)", validate: validURL},
	{Name: "events_cookie_name", Env: "TILOOKUP_EVENTS_COOKIE_NAME", Default: DefaultCookieName, Help: "cookie that also carries the token on the events call; empty sends none", validate: validCookieName, emptyEnv: true},
	{Name: "timeout", Flag: "timeout", Env: "TILOOKUP_TIMEOUT", Default: "30s", Help: "per-request timeout (Go duration; a bare number is seconds)", validate: validDuration},
	{Name: "retries", Flag: "retries", Env: "TILOOKUP_RETRIES", Default: "2", Help: "extra tries for 429, 502, 503, 504 and connection errors", validate: validCount},
	{Name: "output", Flag: "output", Env: "TILOOKUP_OUTPUT", Default: DefaultOutput, Help: "output format", Values: format.Names(), SetValues: format.Settable()},
	{Name: "color", Flag: "color", Default: "auto", Help: "colour: auto, always or never (NO_COLOR is honoured)", Values: []string{"auto", "always", "never"}},
	{Name: "pager", Env: "TILOOKUP_PAGER", Help: "pager for long output on a terminal (default: PAGER, else less -FRX; cat for none)"},
	{Name: "profile", Flag: "profile", Env: "TILOOKUP_PROFILE", Help: "named section under profiles: to use"},
	{Name: "allow_insecure_http", Env: "TILOOKUP_ALLOW_INSECURE_HTTP", Default: "false", Help: "allow sending the token over plain http to a non-loopback host", Values: []string{"true", "false"}},
	{Name: "keyring_timeout", Env: "TILOOKUP_KEYRING_TIMEOUT", Default: "3s", Help: "how long to wait for the OS keyring (Go duration; a bare number is seconds)", validate: validDuration},
	{Name: "max_response_size", Env: "TILOOKUP_MAX_RESPONSE_SIZE", Default: "32MiB", Help: "largest response body accepted (bytes, or with KiB/MiB/GiB)", validate: validSize},
	{Name: "deadline", Env: "TILOOKUP_DEADLINE", Default: "2m", Help: "longest time for one value, every retry and wait included (Go duration; never less than timeout)", validate: validDuration},
	{Name: "ca_cert", Env: "TILOOKUP_CA_CERT", Help: "PEM file of extra CA certificates to trust (a private CA), besides the system's"},
	{Name: "mcp_max_bytes", Env: "TILOOKUP_MCP_MAX_BYTES", Default: "30KiB", Help: "largest answer of one tilookup mcp tool call (bytes, or with KiB/MiB); more is cut with a note", validate: validSize},
	{Name: "insecure_skip_verify", Env: "TILOOKUP_INSECURE_SKIP_VERIFY", Default: "false", Help: "do not verify TLS certificates (dangerous: warned about on every run)", Values: []string{"true", "false"}},
	{Name: "cache", Flag: "cache", Env: "TILOOKUP_CACHE", Default: "0", Help: "keep answers on disk this long (24h, 7d, or seconds; 0 = off)", validate: validCacheTTL},
	{Name: "cache_max_size", Env: "TILOOKUP_CACHE_MAX_SIZE", Default: "100MiB", Help: "size cap of the answer cache; the oldest answers go first", validate: validSize},
	{Name: "cache_url", Flag: "cache-url", Env: "TILOOKUP_CACHE_URL", Help: "a Redis shared by every process and host that uses it (redis://[user:pass@]host:port/db, rediss:// for TLS, unix:///path?db=N)", validate: validCacheURL, setup: true, Password: true},
	{Name: "shared_rate", Flag: "shared-rate", Env: "TILOOKUP_SHARED_RATE", Default: "0", Help: "requests a second for every process and host that uses the same cache_url and service together (0 = off)", validate: validRate, setup: true, needs: "cache_url", needsWhy: "the processes share their rate through it"},
	{Name: "allowlist", Flag: "allowlist", Env: "TILOOKUP_ALLOWLIST", Help: "triage: file of values, CIDR blocks and domains never to look up"},
	{Name: "warninglists", Flag: "warninglists", Env: "TILOOKUP_WARNINGLISTS", Help: "triage: a checkout of MISP warninglists; values on them are skipped (on cidr lists, marked)"},
	{Name: "misp_url", Flag: "misp-url", Env: "TILOOKUP_MISP_URL", Help: "push misp: the MISP instance the event goes to", validate: validURL},
	{Name: "taxii_url", Flag: "taxii-url", Env: "TILOOKUP_TAXII_URL", Help: "push taxii: the TAXII 2.1 API root the bundle goes to (https://host/api1/)", validate: validURL},
	{Name: "taxii_collection", Flag: "collection", Env: "TILOOKUP_TAXII_COLLECTION", Help: "push taxii: the id of the collection the objects go to"},
}

// on tells whether v turns k on: a number other than 0 (shared_rate 0 is
// off, and needs no cache_url), or any other value set but the default.
func (k Key) on(v string) bool {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		return n != 0
	}
	return v != "" && v != k.Default
}

// Lookup finds a key by name.
func Lookup(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// KeyNames lists every key name, for completion and error messages.
func KeyNames() []string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	return names
}

// DefaultOf is a key's built-in default as written in help texts, so that
// the flag help does not keep a copy of its own.
func DefaultOf(name string) string {
	k, _ := Lookup(name)
	return k.Default
}

// Settable are the values config set takes and completes.
func (k Key) Settable() []string {
	if k.SetValues != nil {
		return k.SetValues
	}
	return k.Values
}

// CheckSettable refuses a valid value that config set does not write (one
// of Values but not of SetValues); Validate judges the rest.
func (k Key) CheckSettable(v string) error {
	if k.SetValues == nil || k.Validate(v) != nil {
		return nil
	}
	for _, ok := range k.SetValues {
		if strings.EqualFold(strings.TrimSpace(v), ok) {
			return nil
		}
	}
	return fmt.Errorf("%s %q is written by some commands only: config set %s takes %s", k.Name, strings.TrimSpace(v), k.Name, strings.Join(k.SetValues, ", "))
}

// Validate checks a value for this key.
func (k Key) Validate(v string) error {
	if len(k.Values) > 0 {
		for _, ok := range k.Values {
			if strings.EqualFold(strings.TrimSpace(v), ok) {
				return nil
			}
		}
		return fmt.Errorf("invalid value %q for %s: want one of %s", v, k.Name, strings.Join(k.Values, ", "))
	}
	if k.validate != nil && v != "" {
		if err := k.validate(v); err != nil {
			// A URL's password is never printed, not even a wrong one's.
			if strings.Contains(v, "://") {
				v = api.RedactRawURL(v)
			}
			return fmt.Errorf("invalid value %q for %s: %v", v, k.Name, err)
		}
	}
	return nil
}

func validURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("want an http:// or https:// URL")
	}
	if u.Host == "" {
		return fmt.Errorf("the URL has no host")
	}
	if u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#") {
		return fmt.Errorf("a base URL has no query or fragment: tilookup adds the query itself")
	}
	// A full endpoint pasted from the API docs would have the API path
	// joined under it a second time; say which URL is meant.
	path := strings.TrimRight(u.EscapedPath(), "/")
	for _, api := range []string{"/api/ti/resources/search", "/api/events/me", "/api/ti/resources"} {
		if prefix, ok := strings.CutSuffix(path, api); ok {
			base := *u
			base.Path, base.RawPath = prefix, ""
			return fmt.Errorf("tilookup adds %s itself: give the URL before it, %s", api, base.String())
		}
	}
	return nil
}

// validCacheURL accepts what the shared cache dials: redis:// or rediss://
// with a host and an optional database number, or unix:// with a path.
// The value is never quoted back: it may hold a password.
func validCacheURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("not a URL")
	}
	switch u.Scheme {
	case "redis", "rediss":
		if u.Host == "" {
			return fmt.Errorf("the URL has no host")
		}
		if db := strings.Trim(u.Path, "/"); db != "" {
			if _, err := strconv.ParseUint(db, 10, 16); err != nil {
				return fmt.Errorf("the path is the database number, as in redis://host:6379/0")
			}
		}
	case "unix":
		if u.Path == "" {
			return fmt.Errorf("want unix:///path/to/redis.sock")
		}
	default:
		return fmt.Errorf("want redis://host:port/db, rediss://... (TLS) or unix:///path?db=N")
	}
	return nil
}

func validRate(s string) error {
	_, err := ParseRate(s)
	return err
}

// ParseRate reads a number of requests a second; 0 is off.
func ParseRate(s string) (float64, error) {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || r != r || r < 0 || r > 1e6 {
		return 0, fmt.Errorf("want a number of requests a second (0 = off)")
	}
	return r, nil
}

func validDuration(s string) error {
	_, err := ParseDuration(s)
	return err
}

// ParseDuration reads a Go duration ("30s", "1m30s") or a bare number of
// seconds ("5", "2.5"), as curl's --max-time does. It must be positive.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	d, err := time.ParseDuration(t)
	if err != nil {
		secs, ferr := strconv.ParseFloat(t, 64)
		if ferr != nil || secs != secs || secs > 1e9 {
			return 0, fmt.Errorf("want a duration such as 30s or 2m, or a number of seconds")
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 {
		return 0, fmt.Errorf("want a positive duration")
	}
	return d, nil
}

func validCacheTTL(s string) error {
	_, err := ParseCacheTTL(s)
	return err
}

// ParseCacheTTL reads the cache setting: a Go duration ("24h"), days
// ("7d", the unit a cache is thought of in) or a bare number of seconds;
// 0 turns the cache off.
func ParseCacheTTL(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	d, err := time.ParseDuration(t)
	if err != nil {
		unit := time.Second
		if days, ok := strings.CutSuffix(t, "d"); ok {
			t, unit = days, 24*time.Hour
		}
		n, ferr := strconv.ParseFloat(t, 64)
		if ferr != nil || n != n || n*float64(unit) > float64(maxCacheTTL) {
			return 0, fmt.Errorf("want a duration such as 24h or 7d, a number of seconds, or 0 for off")
		}
		d = time.Duration(n * float64(unit))
	}
	if d < 0 {
		return 0, fmt.Errorf("want a duration of 0 (off) or more")
	}
	// An entry's expiry is stored in Unix nanoseconds, which end in 2262:
	// a longer span (2562047h parses) would overflow and never hit.
	if d > maxCacheTTL {
		return 0, fmt.Errorf("want at most 100 years (876000h, 36500d)")
	}
	return d, nil
}

// maxCacheTTL is the longest --cache: what the expiry can hold, with room.
const maxCacheTTL = 100 * 365 * 24 * time.Hour

func validCount(s string) error {
	_, err := parseCount(s)
	return err
}

func parseCount(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > 20 {
		return 0, fmt.Errorf("want a whole number from 0 to 20")
	}
	return n, nil
}

func validSize(s string) error {
	_, err := ParseSize(s)
	return err
}

// validCookieName accepts an RFC 7230 token, which is what a cookie name
// must be: anything else would be dropped by net/http, leaving an empty
// Cookie header on the wire.
func validCookieName(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return fmt.Errorf("a cookie name may hold letters, digits and !#$%%&'*+-.^_`|~ only")
		}
	}
	return nil
}

// ParseSize reads a byte count such as 1048576, 512KiB, 32MiB or 1GiB.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, fmt.Errorf("want a positive size such as 32MiB")
	}
	return n * mult, nil
}
