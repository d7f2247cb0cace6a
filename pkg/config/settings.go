package config

import (
	"strconv"
	"strings"
	"time"
)

// Settings are the effective values, parsed once. Every command that calls
// the service reads them from here rather than parsing strings again.
type Settings struct {
	Endpoints
	CookieName         string
	Timeout            time.Duration
	Deadline           time.Duration // never shorter than Timeout
	Retries            int
	Output             string
	Profile            string
	AllowInsecureHTTP  bool
	KeyringTimeout     time.Duration
	MaxResponseSize    int64
	CACert             string
	InsecureSkipVerify bool
	Cache              time.Duration // 0 = off
	CacheMaxSize       int64
	CacheURL           string  // the shared cache; "" = none
	SharedRate         float64 // requests a second for the fleet; 0 = off
}

// Settings parses every effective value. The first invalid one is an error
// whose advice names where the value came from: a flag (a usage error, exit
// 2), an environment variable, a profile or the file (exit 3).
func (c *Config) Settings() (Settings, error) {
	s := Settings{Endpoints: c.Endpoints(), Profile: c.profile}
	p := parser{c: c}
	for _, name := range []string{"base_url", "events_base_url", "output", "color"} {
		p.check(name)
	}
	s.CookieName = p.str("events_cookie_name")
	s.Timeout = p.duration("timeout")
	s.Deadline = max(p.duration("deadline"), s.Timeout)
	s.Retries = p.count("retries")
	s.Output = strings.ToLower(strings.TrimSpace(c.Get("output")))
	s.AllowInsecureHTTP = p.boolean("allow_insecure_http")
	s.KeyringTimeout = p.duration("keyring_timeout")
	s.MaxResponseSize = p.size("max_response_size")
	s.CACert = c.Get("ca_cert")
	s.InsecureSkipVerify = p.boolean("insecure_skip_verify")
	if p.check("cache") {
		s.Cache, _ = ParseCacheTTL(c.Get("cache"))
	}
	s.CacheMaxSize = p.size("cache_max_size")
	s.CacheURL = strings.TrimSpace(p.str("cache_url"))
	if p.check("shared_rate") {
		s.SharedRate, _ = ParseRate(c.Get("shared_rate"))
	}
	for _, k := range Keys {
		p.requires(k)
	}
	return s, p.err
}

// Checked is one key's effective value, checked as Settings checks it (the
// same error for a bad one), for a command that needs that key alone.
func (c *Config) Checked(name string) (string, error) {
	p := parser{c: c}
	v := p.str(name)
	return v, p.err
}

// parser keeps the first error, so that Settings reads as a list.
type parser struct {
	c   *Config
	err error
}

// check validates one key's value; it returns false once any key failed.
func (p *parser) check(name string) bool {
	if p.err != nil {
		return false
	}
	k, _ := Lookup(name)
	if v := p.c.Get(name); v != "" || name == "events_cookie_name" {
		if err := k.Validate(v); err != nil {
			p.err = p.c.invalid(name, err)
			return false
		}
	}
	return true
}

// requires fails when k is on while the key it works through is not set.
func (p *parser) requires(k Key) {
	if p.err == nil && k.needs != "" && k.on(p.c.Get(k.Name)) && strings.TrimSpace(p.c.Get(k.needs)) == "" {
		p.err = p.c.withoutNeeded(k)
	}
}

func (p *parser) str(name string) string {
	p.check(name)
	return p.c.Get(name)
}

func (p *parser) duration(name string) time.Duration {
	if !p.check(name) {
		return 0
	}
	d, _ := ParseDuration(p.c.Get(name))
	return d
}

func (p *parser) count(name string) int {
	if !p.check(name) {
		return 0
	}
	n, _ := parseCount(p.c.Get(name))
	return n
}

func (p *parser) size(name string) int64 {
	if !p.check(name) {
		return 0
	}
	n, _ := ParseSize(p.c.Get(name))
	return n
}

func (p *parser) boolean(name string) bool {
	if !p.check(name) {
		return false
	}
	b, _ := strconv.ParseBool(strings.ToLower(strings.TrimSpace(p.c.Get(name))))
	return b
}
