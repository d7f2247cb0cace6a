package service

import (
	"fmt"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/sharedcache"
)

// Cached wraps next, the Searcher of client with this limit, in the answer
// caches: the shared one (cache_url), then the one on disk when the cache
// setting is on; otherwise it returns next. raw says how next makes
// answers (lookup.Client's raw), so that a cached answer is made the same
// way. No cache is ever fatal: when one cannot be used, a warning says so
// and the run goes on without it.
func (w *wiring) cached(next lookup.Searcher, client *api.Client, limit int, raw, refresh bool) lookup.Searcher {
	f := w.f
	s, err := f.Settings()
	if err != nil {
		w.debugCacheOff()
		return next
	}
	ttl := s.Cache
	scope := cache.ScopeOf(client, limit)
	next = w.sharedCached(next, s, scope, raw, refresh)
	if ttl == 0 && refresh {
		fmt.Fprintln(f.IO.ErrOut, "tilookup: warning: --refresh does nothing while the cache is off; turn it on with --cache DURATION or `tilookup config set cache 24h`")
	}
	if ttl == 0 {
		w.debugCacheOff()
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
	return c.Searcher(next, scope, cache.SearchOptions{TTL: ttl, Raw: raw, Refresh: refresh, Debug: debug, Warn: f.IO.ErrOut})
}

func (w *wiring) debugCacheOff() {
	f := w.f
	if debug := f.Debug(); debug != nil {
		why := ""
		if f.Overridden("cache") {
			why = " with --sandbox"
		}
		fmt.Fprintln(debug, "[debug] cache: off"+why)
	}
}

// sharedCached puts the shared cache between the disk cache and the
// service: a value missing on disk is read from Redis, and asked of the
// service by one process of the fleet at a time. It keeps answers for the
// cache setting's time; with the cache off it keeps none, and an answer
// goes only to the processes that were waiting for it.
func (w *wiring) sharedCached(next lookup.Searcher, s config.Settings, scope cache.Scope, raw, refresh bool) lookup.Searcher {
	f := w.f
	store := w.sharedStore(s)
	if store == nil {
		return next
	}
	debug := f.Debug()
	if debug != nil {
		kept := "answers kept " + cache.FormatDuration(s.Cache)
		if s.Cache == 0 {
			kept = "answers not kept (cache off), only handed to the processes waiting for them"
		}
		fmt.Fprintf(debug, "[debug] shared cache: %s, %s\n", sanitize.String(store.String()), kept)
	}
	return cache.NewSearcher(store, next, scope, cache.SearchOptions{TTL: s.Cache, Raw: raw, Refresh: refresh, Debug: debug, Warn: f.IO.ErrOut, Name: "shared cache"})
}

// SharePace paces client by shared_rate, when one is set: one bucket in
// the shared cache for every process and host that uses it.
func (w *wiring) sharePace(client *api.Client) {
	s, err := w.f.Settings()
	if err != nil || s.SharedRate <= 0 {
		return
	}
	if store := w.sharedStore(s); store != nil {
		client.SetPacer(store.Pacer(cache.ScopeOf(client, 0), s.SharedRate))
	}
}

// sharedStore opens cache_url's store once; nil when none is set (or
// --sandbox, whose answers are demo answers) or it cannot be opened (said
// once on stderr).
func (w *wiring) sharedStore(s config.Settings) *sharedcache.Store {
	f := w.f
	w.sharedOnce.Do(func() {
		if s.CacheURL == "" || f.TokenOverridden() {
			return
		}
		store, err := sharedcache.Open(sharedcache.Options{URL: s.CacheURL, Wait: s.Timeout, MaxAnswer: cache.MaxAnswerOf(s.CacheMaxSize), Notice: f.IO.ErrOut})
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "tilookup: warning: the shared cache cannot be used: %s\n", sanitize.String(err.Error()))
			return
		}
		w.shared = store
	})
	return w.shared
}
