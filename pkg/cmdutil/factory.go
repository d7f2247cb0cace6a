// Package cmdutil holds what every command shares: the Factory, which builds
// config, credentials and the API client lazily (only the commands that need
// them pay for them), and small helpers for flags and errors.
package cmdutil

import (
	"fmt"
	"io"
	"strconv"
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

	// Overrides beat every config layer; --sandbox uses them to point a
	// call at the in-process server with its demo token.
	overrides     map[string]string
	tokenOverride string

	cfgOnce    sync.Once
	cfg        *config.Config
	cfgErr     error // the file could not be read or the profile is missing
	cfgInvalid error // a value is invalid (Config reports it, Get does not)

	credOnce sync.Once
	cred     *credentials.Store
	credErr  error
}

// Config loads the configuration once and checks its values: what a
// command that calls the service needs.
func (f *Factory) Config() (*config.Config, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	return cfg, f.cfgInvalid
}

// ConfigUnchecked is Config without the check of values, for commands that
// show or repair them.
func (f *Factory) ConfigUnchecked() (*config.Config, error) { return f.config() }

// config loads the configuration once, without failing on an invalid value.
func (f *Factory) config() (*config.Config, error) {
	f.cfgOnce.Do(func() {
		flagPath := ""
		if f.ConfigFlag != nil {
			flagPath = *f.ConfigFlag
		}
		path, err := config.Path(flagPath)
		if err != nil {
			f.cfgErr = err
			return
		}
		f.cfg, f.cfgErr = config.LoadUnchecked(path, f.Flags)
		if f.cfgErr == nil {
			f.cfgInvalid = f.cfg.Check()
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
		timeout, _ := time.ParseDuration(cfg.Get("keyring_timeout"))
		kr := f.Keyring
		if kr == nil {
			kr = credentials.SystemKeyring()
		}
		f.cred = &credentials.Store{Keyring: kr, File: cfg, Timeout: timeout}
	})
	return f.cred, f.credErr
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
	if _, err := f.Config(); err != nil {
		return nil, err
	}
	get := func(k string) string { v, _ := f.Get(k); return v }
	allowInsecure, _ := strconv.ParseBool(get("allow_insecure_http"))
	opts := api.Options{
		BaseURL:       get("base_url"),
		EventsBaseURL: get("events_base_url"),
		CookieName:    get("events_cookie_name"),
		UserAgent:     f.UserAgent,
	}
	opts.Timeout, _ = time.ParseDuration(get("timeout"))
	opts.Deadline, _ = time.ParseDuration(get("deadline"))
	opts.Retries, _ = strconv.Atoi(get("retries"))
	opts.MaxBody, _ = config.ParseSize(get("max_response_size"))
	if f.DebugFlag != nil && *f.DebugFlag {
		opts.Debug = f.IO.ErrOut
	}
	if err := api.CheckBaseURLs(opts, allowInsecure); err != nil {
		return nil, err
	}
	insecureTLS, _ := strconv.ParseBool(get("insecure_skip_verify"))
	// The header wait gets the same bound as the whole request: a service
	// that has not even started answering within it is not going to.
	transport, err := api.NewTransport(api.TransportOptions{
		CACertFile:         get("ca_cert"),
		InsecureSkipVerify: insecureTLS,
		HeaderTimeout:      opts.Timeout,
		Concurrency:        concurrency,
	})
	if err != nil {
		return nil, err
	}
	opts.Transport = transport
	if insecureTLS {
		// Every run, not once: the setting may sit forgotten in a config
		// file while tokens go to whoever answers.
		fmt.Fprintln(f.IO.ErrOut, "tilookup: warning: insecure_skip_verify is set: TLS certificates are not checked, so anyone on the network path can read the token")
	}
	token, err := f.token(forWhat, opts)
	if err != nil {
		return nil, err
	}
	if forWhat == ForEvents {
		opts.EventsToken = token
	} else {
		opts.Token = token
	}
	return api.New(opts, allowInsecure)
}

func (f *Factory) token(forWhat ClientFor, opts api.Options) (string, error) {
	if f.tokenOverride != "" {
		return f.tokenOverride, nil
	}
	store, err := f.Credentials()
	if err != nil {
		return "", err
	}
	searchHost, err := credentials.HostKey(opts.BaseURL)
	if err != nil {
		return "", failure.Wrap(failure.Config, err, err.Error())
	}
	if forWhat == ForEvents {
		eventsBase := opts.EventsBaseURL
		if eventsBase == "" {
			eventsBase = opts.BaseURL
		}
		eventsHost, err := credentials.HostKey(eventsBase)
		if err != nil {
			return "", failure.Wrap(failure.Config, err, err.Error())
		}
		tok, _, err := store.EventsToken(eventsHost, searchHost)
		return tok, err
	}
	tok, _, err := store.Token(searchHost)
	return tok, err
}

// Debug returns the --debug writer, or nil.
func (f *Factory) Debug() io.Writer {
	if f.DebugFlag != nil && *f.DebugFlag {
		return f.IO.ErrOut
	}
	return nil
}
