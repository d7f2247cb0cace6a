// Package cmdutil holds what every command shares: the Factory, which builds
// config, credentials and the API client lazily (only the commands that need
// them pay for them), and small helpers for flags and errors.
package cmdutil

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// Factory is handed to every command constructor.
type Factory struct {
	IO        *iostreams.IOStreams
	Version   string
	UserAgent string

	// Flags are the root's persistent flags, bound into the config.
	Flags      *pflag.FlagSet
	ConfigFlag *string
	DebugFlag  *bool

	// Keyring replaces the OS keyring; tests set it.
	Keyring credentials.Keyring
	// Resolver replaces the system resolver of the plain-http loopback
	// guard; tests set it.
	Resolver api.Resolver

	// Overrides beat every config layer; --sandbox uses them to point a
	// call at the in-process server with its demo token.
	overrides     map[string]string
	tokenOverride string

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error // the file could not be read or the profile is missing

	credOnce sync.Once
	cred     *credentials.Store
	credErr  error

	// Set by pkg/service (service.Attach): the built-in sandbox, the
	// answer caches and shared_rate's pace. A nil one is none.
	Sandbox   func() (io.Closer, error)
	Cached    CacheFunc
	SharePace func(*api.Client)
}

// Overridden reports whether key is forced for this process (--sandbox).
func (f *Factory) Overridden(key string) bool {
	_, ok := f.overrides[key]
	return ok
}

// TokenOverridden reports whether the token is forced (--sandbox's).
func (f *Factory) TokenOverridden() bool { return f.tokenOverride != "" }

// Config loads the configuration once and checks its values: what a
// command that calls the service needs.
func (f *Factory) Config() (*config.Config, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	return cfg, cfg.Check()
}

// ConfigUnchecked is Config without the check of values, for commands that
// show or repair them.
func (f *Factory) ConfigUnchecked() (*config.Config, error) { return f.config() }

// Settings are the checked, typed settings of this invocation.
func (f *Factory) Settings() (config.Settings, error) {
	cfg, err := f.config()
	if err != nil {
		return config.Settings{}, err
	}
	return cfg.Settings()
}

// ConfigPath is the --config flag's value, "" when not given.
func (f *Factory) ConfigPath() string {
	if f.ConfigFlag == nil {
		return ""
	}
	return *f.ConfigFlag
}

// config loads the configuration once, without failing on an invalid value.
func (f *Factory) config() (*config.Config, error) {
	f.cfgOnce.Do(func() {
		f.cfg, f.cfgErr = config.Open(f.ConfigPath(), f.Flags, false)
		if f.cfgErr == nil {
			for k, v := range f.overrides {
				f.cfg.Override(k, v)
			}
		}
	})
	return f.cfg, f.cfgErr
}

// Get returns a setting, honouring overrides. An invalid value elsewhere in
// the configuration does not stop it; Client checks them all.
func (f *Factory) Get(key string) (string, error) {
	if v, ok := f.overrides[key]; ok {
		return v, nil
	}
	cfg, err := f.config()
	if err != nil {
		return "", err
	}
	return cfg.Get(key), nil
}

// Override forces a setting for this process (used by --sandbox).
func (f *Factory) Override(key, value string) {
	if f.overrides == nil {
		f.overrides = map[string]string{}
	}
	f.overrides[key] = value
	if f.cfg != nil {
		f.cfg.Override(key, value)
	}
}

// OverrideToken forces the token for this process (used by --sandbox).
func (f *Factory) OverrideToken(token string) { f.tokenOverride = token }

// Credentials returns the token store, built once.
func (f *Factory) Credentials() (*credentials.Store, error) {
	f.credOnce.Do(func() {
		cfg, err := f.config()
		if err != nil {
			f.credErr = err
			return
		}
		kr := f.Keyring
		if kr == nil {
			kr = credentials.SystemKeyring()
		}
		// A bad keyring_timeout is reported by Settings to the commands
		// that need it; the store then waits the default.
		s, _ := cfg.Settings()
		f.cred = &credentials.Store{
			Keyring:    kr,
			File:       cfg,
			Timeout:    s.KeyringTimeout,
			Warn:       func(msg string) { fmt.Fprintln(f.IO.ErrOut, "tilookup: warning: "+msg) },
			Configured: func() []string { return configuredHosts(cfg) },
		}
	})
	return f.cred, f.credErr
}

// configuredHosts lists the host keys of every base URL in the config file.
func configuredHosts(cfg *config.Config) []string {
	var hosts []string
	for _, u := range cfg.ConfiguredURLs() {
		if h, err := credentials.HostKey(u); err == nil {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// ClientFor says which endpoint a client is for, so that only that
// endpoint's token is looked up.
type ClientFor int

const (
	ForSearch ClientFor = iota
	ForEvents
)

// Client builds an API client: URLs are checked (and a token that would
// leak refused) before any token is looked up; no token means exit 3 and
// nothing sent.
func (f *Factory) Client(forWhat ClientFor, concurrency int) (*api.Client, error) {
	return f.newClient(forWhat, concurrency, nil)
}

// ClientWithToken builds a client that sends token, not a stored one: `auth
// login` checks a token with it before storing it. The caller decides that
// the endpoint may receive that token.
func (f *Factory) ClientWithToken(forWhat ClientFor, token string) (*api.Client, error) {
	return f.newClient(forWhat, 1, &token)
}

// newClient builds a client with token, or with the stored token when
// token is nil (looked up only once the URLs passed their checks).
func (f *Factory) newClient(forWhat ClientFor, concurrency int, token *string) (*api.Client, error) {
	opts, s, err := f.clientOptions(forWhat, concurrency)
	if err != nil {
		return nil, err
	}
	if token == nil {
		stored, err := f.token(forWhat, s)
		if err != nil {
			return nil, err
		}
		token = &stored
	}
	if forWhat == ForEvents {
		opts.EventsToken = *token
	} else {
		opts.Token = *token
	}
	return api.New(opts, s.AllowInsecureHTTP)
}

// clientOptions turns the settings into api.Options, with URLs checked and
// plain-http names pinned to the loopback addresses they resolve to. Only
// an events client is given the events host: a search client's events
// call, if anyone made one, would stay on the search host with the search
// host's token.
func (f *Factory) clientOptions(forWhat ClientFor, concurrency int) (api.Options, config.Settings, error) {
	s, err := f.Settings()
	if err != nil {
		return api.Options{}, s, err
	}
	opts := api.Options{
		BaseURL:    s.BaseURL,
		CookieName: s.CookieName,
		UserAgent:  f.UserAgent,
		Timeout:    s.Timeout,
		Deadline:   s.Deadline,
		Retries:    s.Retries,
		MaxBody:    s.MaxResponseSize,
	}
	if forWhat == ForEvents {
		opts.EventsBaseURL = s.EventsURL
	}
	opts.Debug = f.Debug()
	if err := api.CheckBaseURLs(opts, s.AllowInsecureHTTP); err != nil {
		return opts, s, err
	}
	guard, err := f.guard(s.AllowInsecureHTTP, opts.BaseURL, opts.EventsBaseURL)
	if err != nil {
		return opts, s, err
	}
	// The header wait gets the same bound as the whole request: a service
	// that has not even started answering within it is not going to.
	transport, err := api.NewTransport(api.TransportOptions{
		CACertFile:         s.CACert,
		InsecureSkipVerify: s.InsecureSkipVerify,
		HeaderTimeout:      s.Timeout,
		Concurrency:        concurrency,
		Guard:              guard,
	})
	if err != nil {
		return opts, s, err
	}
	opts.Transport = transport
	if s.InsecureSkipVerify {
		// Every run, not once: the setting may sit forgotten in a config
		// file while tokens go to whoever answers.
		fmt.Fprintln(f.IO.ErrOut, "tilookup: warning: insecure_skip_verify is set: TLS certificates are not checked, so anyone on the network path can read the token")
	}
	return opts, s, nil
}

// guardTimeout bounds the one lookup of a local name; a resolver that
// needs longer for localhost is broken.
const guardTimeout = 5 * time.Second

// guard checks, by address, every plain-http base URL that was let through
// because its name looks local (localhost, *.localhost).
func (f *Factory) guard(allowInsecure bool, urls ...string) (*api.LoopbackGuard, error) {
	if allowInsecure {
		return nil, nil
	}
	g := &api.LoopbackGuard{Resolver: f.Resolver}
	ctx, cancel := context.WithTimeout(context.Background(), guardTimeout)
	defer cancel()
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme != "http" {
			continue
		}
		if err := g.Check(ctx, u.Hostname()); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// token finds the token for the endpoint. The events host gets the search
// host's token only when the two are configured in the same scope.
func (f *Factory) token(forWhat ClientFor, s config.Settings) (string, error) {
	if f.tokenOverride != "" {
		return f.tokenOverride, nil
	}
	store, err := f.Credentials()
	if err != nil {
		return "", err
	}
	searchHost, err := credentials.HostKey(s.BaseURL)
	if err != nil {
		return "", failure.Wrap(failure.Config, err, err.Error())
	}
	if forWhat == ForEvents {
		eventsHost, err := credentials.HostKey(s.EventsURL)
		if err != nil {
			return "", failure.Wrap(failure.Config, err, err.Error())
		}
		tok, _, err := store.EventsToken(eventsHost, searchHost, s.Paired)
		return tok, err
	}
	tok, _, err := store.Token(searchHost)
	return tok, err
}

// Debug is where --debug lines go: stderr with --debug, else nil.
func (f *Factory) Debug() io.Writer {
	if f.DebugFlag != nil && *f.DebugFlag {
		return f.IO.ErrOut
	}
	return nil
}
