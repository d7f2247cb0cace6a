package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// AddCacheFlags gives a command that looks values up --cache and
// --refresh. --cache is the cache setting's flag: the config layer reads
// it (flag > TILOOKUP_CACHE > profile > file).
func AddCacheFlags(cmd *cobra.Command, refresh *bool) {
	fl := cmd.Flags()
	fl.String("cache", "", "keep answers on disk for `DURATION` (24h, 7d; 0 = off for this run)")
	fl.BoolVar(refresh, "refresh", false, "ask the service again and store the fresh answers in the cache")
}

// sandboxScope stands for the sandbox's base URL in cache keys: each run
// starts it on another port, and its demo answers are the same on all.
const sandboxScope = "tilookup-sandbox"

// cacheScopeKey is the override StartSandbox sets to sandboxScope.
const cacheScopeKey = "cache_scope"

// Cached wraps next, the Searcher of client with this limit, in the
// on-disk answer cache when the cache setting is on; otherwise it returns
// next. raw says how next makes answers (lookup.Client's raw), so that a
// cached answer is made the same way. The cache is never fatal: when it
// cannot be used, a warning says so and the run goes on without it.
func (f *Factory) Cached(next lookup.Searcher, client *api.Client, limit int, raw, refresh bool) lookup.Searcher {
	setting, _ := f.Get("cache")
	ttl, err := config.ParseCacheTTL(setting)
	if err != nil || ttl == 0 {
		return next
	}
	dir, err := cache.DefaultDir()
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "tilookup: warning: answers are not cached: %s (set XDG_CACHE_HOME)\n", sanitize.String(err.Error()))
		return next
	}
	maxSize := int64(cache.DefaultMaxSize)
	if v, _ := f.Get("cache_max_size"); v != "" {
		if n, err := config.ParseSize(v); err == nil {
			maxSize = n
		}
	}
	scope := cache.ScopeOf(client, limit)
	if s, _ := f.Get(cacheScopeKey); s != "" {
		scope.BaseURL = s
	}
	debug := f.Debug()
	if debug != nil {
		fmt.Fprintf(debug, "[debug] cache: on, answers kept %s (no match: at most %s), in %s\n", ttl, min(ttl, cache.NoMatchTTL), sanitize.String(dir))
	}
	c := cache.Open(cache.Options{Dir: dir, MaxSize: maxSize})
	return c.Searcher(next, scope, cache.SearchOptions{TTL: ttl, Raw: raw, Refresh: refresh, Debug: debug, Warn: f.IO.ErrOut})
}
