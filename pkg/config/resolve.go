package config

import (
	"os"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// scope is one place a setting can come from, highest precedence first.
type scope int

const (
	scopeOverride scope = iota // --sandbox, set by the program
	scopeFlag
	scopeEnv
	scopeProfile
	scopeFile // the file's top level
	scopeDefault
	scopeNone // no scope sets the key
)

// scopes holds each scope's values in a viper of its own, read by viper
// (flags bound, variables bound, the file's maps merged, defaults set), so
// that which scope wins is decided once, by resolve's walk down this order,
// and that walk also says where a value came from, which one viper cannot.
type scopes [scopeNone]*viper.Viper

// newScopes reads the flags of fs, the environment and the defaults; the
// file and profile scopes stay empty until the file is read.
func newScopes(fs *pflag.FlagSet) scopes {
	var s scopes
	for i := range s {
		s[i] = viper.New()
	}
	s[scopeEnv].AllowEmptyEnv(true) // but see emptyEnv: bound only when set
	for _, k := range Keys {
		if f := lookupFlag(fs, k.Flag); f != nil {
			_ = s[scopeFlag].BindPFlag(k.Name, f) // set only when given
		}
		if v, ok := os.LookupEnv(k.Env); k.Env != "" && ok && (v != "" || k.emptyEnv) {
			_ = s[scopeEnv].BindEnv(k.Name, k.Env)
		}
		if k.Default != "" {
			s[scopeDefault].SetDefault(k.Name, k.Default)
		}
	}
	return s
}

func lookupFlag(fs *pflag.FlagSet, name string) *pflag.Flag {
	if fs == nil || name == "" {
		return nil
	}
	return fs.Lookup(name)
}

// fileScope holds one scope of the file, its top level or a profile. Viper
// folds the keys to lower case, in m too, as it always has here.
func fileScope(m map[string]any) *viper.Viper {
	v := viper.New()
	_ = v.MergeConfigMap(m) // never fails: it only merges maps
	return v
}

// resolve finds the highest scope that sets name, and its value there
// (scopeNone and "" when none does). This is the one place that decides
// precedence.
func (c *Config) resolve(name string) (string, scope) {
	for s, v := range c.scopes {
		if v.IsSet(name) {
			return v.GetString(name), scope(s)
		}
	}
	return "", scopeNone
}

// describe says where a value of key name in scope s came from, for
// people: "flag --timeout", "env TILOOKUP_TIMEOUT", "profile staging"...
func (c *Config) describe(name string, s scope) string {
	k, _ := Lookup(name)
	switch s {
	case scopeOverride:
		return "--sandbox"
	case scopeFlag:
		return "flag --" + k.Flag
	case scopeEnv:
		return "env " + k.Env
	case scopeProfile:
		return "profile " + c.profile
	case scopeFile:
		return "file"
	case scopeDefault:
		return "default"
	}
	return ""
}

// Get returns the effective value of a key. events_base_url resolves as a
// pair with base_url: see Endpoints.
func (c *Config) Get(name string) string {
	if name == "events_base_url" {
		return c.Endpoints().EventsURL
	}
	v, _ := c.resolve(name)
	return v
}

// Source says which scope a key's value comes from: flag, env, profile
// NAME, file, default, "base_url, ..." for an events host that is the base
// URL, or "" when unset.
func (c *Config) Source(name string) string {
	if name == "events_base_url" {
		return c.Endpoints().EventsSource
	}
	_, s := c.resolve(name)
	return c.describe(name, s)
}

// Endpoints are the two base URLs of one invocation, resolved as a pair.
type Endpoints struct {
	BaseURL, BaseSource     string
	EventsURL, EventsSource string
	// Paired says the events host was configured in the same scope as
	// base_url (or is base_url itself), so the token stored for the
	// search host may go there. Otherwise the events host needs a token
	// of its own.
	Paired bool
}

// Endpoints resolves base_url and events_base_url as a pair: a scope
// (profile, file, environment, flags) that sets base_url but not
// events_base_url sends events to its own base_url, never to an
// events_base_url of a lower scope. This is the one place the events host
// falls back to base_url.
func (c *Config) Endpoints() Endpoints {
	base, bs := c.resolve("base_url")
	ev, es := c.resolve("events_base_url")
	e := Endpoints{BaseURL: base, BaseSource: c.describe("base_url", bs)}
	switch {
	case ev != "" && es <= bs:
		e.EventsURL, e.EventsSource = ev, c.describe("events_base_url", es)
		e.Paired = es == bs
	case base != "":
		e.EventsURL, e.EventsSource, e.Paired = base, "base_url, "+e.BaseSource, true
	}
	return e
}
