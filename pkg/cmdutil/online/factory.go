// Package online is what a command that calls the service needs beyond
// pkg/cmdutil: the token store (the OS keyring), the API client built
// from the configuration and the token, the one lookup chain (Lookups) and
// the spinner shown while an answer is awaited. Only the commands that
// call the service import it, so that an offline command (detect, extract,
// config, version) and its tests link neither the keyring (go-keyring,
// D-Bus) nor the lookup chain.
package online

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
)

// Factory is cmdutil's Factory for a command that calls the service: it
// builds the token store and the API client lazily, once the command runs.
type Factory struct {
	*cmdutil.Factory

	// Keyring replaces the OS keyring; tests set it.
	Keyring credentials.Keyring
	// Resolver replaces the system resolver of the plain-http loopback
	// guard; tests set it.
	Resolver api.Resolver

	// Set by pkg/service (service.Attach): the built-in sandbox, the
	// answer caches and shared_rate's pace. A nil one is none.
	Sandbox   func() (io.Closer, error)
	Cached    CacheFunc
	SharePace func(*api.Client)

	// tokenOverride beats every stored token: --sandbox's demo token.
	tokenOverride string

	credOnce sync.Once
	cred     *credentials.Store
	credErr  error
}

// OverrideToken forces the token for this process (used by --sandbox).
func (f *Factory) OverrideToken(token string) { f.tokenOverride = token }

// TokenOverridden reports whether the token is forced (--sandbox's).
func (f *Factory) TokenOverridden() bool { return f.tokenOverride != "" }

// Credentials returns the token store, built once.
func (f *Factory) Credentials() (*credentials.Store, error) {
	f.credOnce.Do(func() {
		cfg, err := f.ConfigUnchecked()
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
