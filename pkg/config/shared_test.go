package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/failure"
)

// sharedFlags are flags() with the shared cache's.
func sharedFlags() *pflag.FlagSet {
	fs := flags()
	for _, name := range []string{"cache_url", "shared_rate"} {
		k, _ := Lookup(name)
		fs.String(k.Flag, "", "")
	}
	return fs
}

// A cache_url that is not a Redis URL, or shared_rate without cache_url,
// is a configuration error (exit 3) naming the key, whether it came from
// a flag, the environment, the file or a profile; the message is the same
// but for where the value came from and how to fix it there.
func TestSharedCacheKeysAreConfigErrorsFromEverySource(t *testing.T) {
	for _, tc := range []struct {
		name, key, value string
		want             string // what the message says, from any source
	}{
		{"bad cache_url", "cache_url", "redis//x", `invalid value "redis//x" for cache_url: want redis://`},
		{"shared_rate alone", "shared_rate", "5", "shared_rate needs cache_url: the processes share their rate through it"},
	} {
		k, _ := Lookup(tc.key)
		sources := map[string]func(t *testing.T) (*Config, error){
			"flag": func(t *testing.T) (*Config, error) {
				fs := sharedFlags()
				if err := fs.Parse([]string{"--" + k.Flag, tc.value}); err != nil {
					t.Fatal(err)
				}
				return Open(writeFile(t, ""), fs, false)
			},
			"env": func(t *testing.T) (*Config, error) {
				t.Setenv(k.Env, tc.value)
				return Open(writeFile(t, ""), sharedFlags(), false)
			},
			"file": func(t *testing.T) (*Config, error) {
				return Open(writeFile(t, tc.key+": "+tc.value+"\n"), sharedFlags(), false)
			},
			"profile": func(t *testing.T) (*Config, error) {
				return Open(writeFile(t, "profile: p\nprofiles:\n  p:\n    "+tc.key+": "+tc.value+"\n"), sharedFlags(), false)
			},
		}
		for src, open := range sources {
			t.Run(tc.name+" from "+src, func(t *testing.T) {
				c, err := open(t)
				if err != nil {
					t.Fatal(err)
				}
				err = c.Check()
				if failure.ExitCode(err) != 3 {
					t.Fatalf("exit %d (%v), want 3", failure.ExitCode(err), err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, "\n") {
					t.Errorf("message %q, want one line starting %q", msg, tc.want)
				}
				if tc.key == "shared_rate" && !strings.Contains(msg, "config set cache_url URL") {
					t.Errorf("message %q does not say how to set cache_url", msg)
				}
				if v, cerr := c.Checked("cache_url"); tc.key == "cache_url" && (cerr == nil || cerr.Error() != msg) {
					t.Errorf("Checked(cache_url) = %q, %v; want Settings' error", v, cerr)
				}
			})
		}
	}
}

// config set refuses shared_rate where the file sets no cache_url for that
// scope, and unset refuses to take cache_url from under it: every command
// would stop on the file otherwise.
func TestSharedRateNeedsCacheURLInTheFile(t *testing.T) {
	const url = "redis://:pw@redis.test:6379/0"
	open := func(t *testing.T, path string, args ...string) *Config {
		t.Helper()
		fs := sharedFlags()
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		c, err := Open(path, fs, true)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	path := writeFile(t, "")
	err := open(t, path).Set("shared_rate", "5")
	if failure.ExitCode(err) != 2 || !strings.Contains(err.Error(), "`tilookup config set cache_url URL`") {
		t.Fatalf("shared_rate without cache_url: %v", err)
	}
	for _, off := range []string{"0", "0.0"} {
		if err := open(t, path).Set("shared_rate", off); err != nil {
			t.Fatalf("shared_rate %s (off): %v", off, err)
		}
	}
	// An environment variable is not there on the next run: the file
	// must hold cache_url itself.
	t.Setenv("TILOOKUP_CACHE_URL", url)
	if err := open(t, path).Set("shared_rate", "5"); err == nil {
		t.Fatal("shared_rate accepted on the strength of TILOOKUP_CACHE_URL")
	}
	t.Setenv("TILOOKUP_CACHE_URL", "")

	for _, step := range []func() error{
		func() error { return open(t, path).Set("cache_url", url) },
		func() error { return open(t, path).Set("shared_rate", "5") },
		// A profile falls back to the top level's cache_url.
		func() error { return open(t, path, "--profile", "p").Set("shared_rate", "3") },
		func() error { return open(t, path, "--profile", "p").Set("cache_url", url) },
		func() error { return open(t, path, "--profile", "p").Unset("cache_url") },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	for _, remove := range []func(*Config) error{
		func(c *Config) error { return c.Unset("cache_url") },
		func(c *Config) error { return c.Set("cache_url", "") },
	} {
		err := remove(open(t, path))
		if failure.ExitCode(err) != 2 || !strings.Contains(err.Error(), "`tilookup config unset shared_rate`") {
			t.Fatalf("cache_url removed under shared_rate: %v", err)
		}
	}
	if c := open(t, path); c.Check() != nil || c.Get("cache_url") != url {
		t.Fatalf("the file after the refusals: cache_url %q, %v", c.Get("cache_url"), c.Check())
	}
	if err := open(t, path).Unset("shared_rate"); err != nil {
		t.Fatal(err)
	}
	// Profile p still has a shared_rate of its own, on the top level's
	// cache_url.
	err = open(t, path).Unset("cache_url")
	if !strings.Contains(fmt.Sprint(err), "profile p") || !strings.Contains(fmt.Sprint(err), "`tilookup --profile p config unset shared_rate`") {
		t.Fatalf("cache_url removed under profile p's shared_rate: %v", err)
	}
	if err := open(t, path, "--profile", "p").Unset("shared_rate"); err != nil {
		t.Fatal(err)
	}
	if err := open(t, path).Unset("cache_url"); err != nil {
		t.Fatalf("cache_url once shared_rate is off everywhere: %v", err)
	}
}
