// Package service wires what a command needs to look values up beyond the
// client: the built-in sandbox and the answer caches (on disk and shared
// through cache_url), with shared_rate's pace. pkg/cli attaches it to the
// online.Factory; keeping it out of pkg/cmdutil/online means a command that
// calls the service without looking values up (auth) builds without it,
// and one that never calls the service (detect, extract, version, config)
// links none of it.
package service

import (
	"io"
	"sync"

	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/sharedcache"
)

// Attach sets f's Sandbox, Cached and SharePace.
func Attach(f *online.Factory) {
	w := &wiring{f: f}
	f.Sandbox = func() (io.Closer, error) { return sandboxCloser(f) }
	f.Cached = w.cached
	f.SharePace = w.sharePace
}

// wiring is what the caches keep for one Factory: the process's one
// connection to cache_url, opened on first use.
type wiring struct {
	f          *online.Factory
	sharedOnce sync.Once
	shared     *sharedcache.Store
}
