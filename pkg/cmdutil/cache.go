package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// AddCacheFlags gives a command that looks values up --cache and
// --refresh. --cache is the cache setting's flag: the config layer reads
// it (flag > TILOOKUP_CACHE > profile > file).
func AddCacheFlags(cmd *cobra.Command, refresh *bool) {
	fl := cmd.Flags()
	fl.String("cache", "", "keep answers on disk `DURATION` (24h, 7d; 0 = off)")
	fl.BoolVar(refresh, "refresh", false, "ask again, and cache the fresh answers")
	_ = cmd.RegisterFlagCompletionFunc("cache", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"1h", "24h", "7d", "0"}, cobra.ShellCompDirectiveNoFileComp
	})
}

// Cached wraps next, the Searcher of client with this limit, in the
// on-disk answer cache when the cache setting is on; otherwise it returns
// next. raw says how next makes answers (lookup.Client's raw), so that a
// cached answer is made the same way. The cache is never fatal: when it
// cannot be used, a warning says so and the run goes on without it.
func (f *Factory) Cached(next lookup.Searcher, client *api.Client, limit int, raw, refresh bool) lookup.Searcher {
	s, err := f.Settings()
	ttl := s.Cache
	if err == nil && ttl == 0 && refresh {
		fmt.Fprintln(f.IO.ErrOut, "tilookup: warning: --refresh does nothing while the cache is off; turn it on with --cache DURATION or `tilookup config set cache 24h`")
	}
	if err != nil || ttl == 0 {
		if debug := f.Debug(); debug != nil {
			why := ""
			if _, ok := f.overrides["cache"]; ok {
				why = " with --sandbox"
			}
			fmt.Fprintln(debug, "[debug] cache: off"+why)
		}
		return next
	}
	dir, err := cache.DefaultDir()
	if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "tilookup: warning: answers are not cached: %s (set XDG_CACHE_HOME)\n", sanitize.String(err.Error()))
		return next
	}
	maxSize := s.CacheMaxSize
	if maxSize <= 0 {
		maxSize = cache.DefaultMaxSize
	}
	debug := f.Debug()
	if debug != nil {
		fmt.Fprintf(debug, "[debug] cache: on, matches kept %s, no match %s, in %s\n", cache.FormatDuration(ttl), cache.FormatDuration(min(ttl, cache.NoMatchTTL)), sanitize.String(dir))
	}
	c := cache.Open(cache.Options{Dir: dir, MaxSize: maxSize, MaxEntry: s.MaxResponseSize + 4<<10})
	if err := c.Check(); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "tilookup: warning: answers are not cached: %s\n", sanitize.String(err.Error()))
		return next
	}
	return c.Searcher(next, cache.ScopeOf(client, limit), cache.SearchOptions{TTL: ttl, Raw: raw, Refresh: refresh, Debug: debug, Warn: f.IO.ErrOut})
}
