package config

import (
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

func TestParseCacheTTL(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "0s": 0, "24h": 24 * time.Hour, " 90m ": 90 * time.Minute,
		"3600": time.Hour, "1.5": 1500 * time.Millisecond, "7d": 7 * 24 * time.Hour, "0.5d": 12 * time.Hour,
	} {
		if got, err := ParseCacheTTL(in); err != nil || got != want {
			t.Errorf("ParseCacheTTL(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1h", "-5", "soon", "NaN", "1e300", "d", "24 h", "1e12d"} {
		if d, err := ParseCacheTTL(in); err == nil {
			t.Errorf("ParseCacheTTL(%q) = %v, want an error", in, d)
		}
	}
}

// --cache on a command beats TILOOKUP_CACHE, which beats the file; a bad
// value on the command line is a usage error, in the file a config one.
func TestCachePrecedence(t *testing.T) {
	path := writeFile(t, "cache: 24h\ncache_max_size: 10MiB\n")
	fs := flags()
	fs.String("cache", "", "")
	c, err := loadChecked(path, fs)
	if err != nil || c.Get("cache") != "24h" || c.Get("cache_max_size") != "10MiB" {
		t.Fatalf("file: %q %q %v", c.Get("cache"), c.Get("cache_max_size"), err)
	}
	if _, err := loadChecked(writeFile(t, "cache: forever\n"), flags()); failure.KindOf(err) != failure.Config {
		t.Fatalf("bad cache in the file: %v", err)
	}
	if c, _ := loadChecked(writeFile(t, ""), flags()); c.Get("cache") != "0" || c.Get("cache_max_size") != "100MiB" {
		t.Fatalf("defaults: %q %q", c.Get("cache"), c.Get("cache_max_size"))
	}
	t.Setenv("TILOOKUP_CACHE", "1h")
	if c, _ := loadChecked(path, fs); c.Get("cache") != "1h" {
		t.Fatalf("env: %q", c.Get("cache"))
	}
	fs.Set("cache", "0")
	if c, _ := loadChecked(path, fs); c.Get("cache") != "0" || c.Source("cache") != "flag --cache" {
		t.Fatalf("flag: %q from %s", c.Get("cache"), c.Source("cache"))
	}
	fs.Set("cache", "forever")
	if _, err := loadChecked(path, fs); failure.KindOf(err) != failure.Usage {
		t.Fatalf("bad --cache: %v", err)
	}
}
