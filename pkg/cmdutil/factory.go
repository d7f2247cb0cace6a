// Package cmdutil holds what every command shares: the Factory, which
// loads the configuration lazily (only the commands that read it pay for
// it), the output format's resolution, and small helpers for flags and
// errors. What calls the service (credentials, the API client, the lookup
// chain) is in pkg/cmdutil/online, which only the commands that call it
// import: an offline command's binary links neither the client nor the
// keyring.
package cmdutil

import (
	"io"
	"sync"

	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// Factory is handed to every command constructor; the commands that call
// the service get it inside an online.Factory.
type Factory struct {
	IO        *iostreams.IOStreams
	Version   string
	UserAgent string

	// Flags are the root's persistent flags, bound into the config.
	Flags      *pflag.FlagSet
	ConfigFlag *string
	DebugFlag  *bool

	// Overrides beat every config layer; --sandbox uses them to point a
	// call at the in-process server.
	overrides map[string]string

	cfgOnce sync.Once
	cfg     *config.Config
	cfgErr  error // the file could not be read or the profile is missing
}

// Overridden reports whether key is forced for this process (--sandbox).
func (f *Factory) Overridden(key string) bool {
	_, ok := f.overrides[key]
	return ok
}

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
// the configuration does not stop it; Config checks them all.
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

// Debug is where --debug lines go: stderr with --debug, else nil.
func (f *Factory) Debug() io.Writer {
	if f.DebugFlag != nil && *f.DebugFlag {
		return f.IO.ErrOut
	}
	return nil
}
