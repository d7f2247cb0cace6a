// Package service wires what a command needs to look values up beyond the
// client: the built-in sandbox and the answer caches (on disk and shared
// through cache_url), with shared_rate's pace. pkg/cli attaches it to the
// Factory; keeping it out of pkg/cmdutil means a command that never looks
// a value up (detect, extract, version, config) and its tests link none
// of it.
package service

import (
	"io"
	"sync"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/sharedcache"
)

// Attach sets f's Sandbox, Cached and SharePace.
func Attach(f *cmdutil.Factory) {
	w := &wiring{f: f}
	f.Sandbox = func() (io.Closer, error) { return sandboxCloser(f) }
	f.Cached = w.cached
	f.SharePace = w.sharePace
}

// wiring is what the caches keep for one Factory: the process's one
// connection to cache_url, opened on first use.
type wiring struct {
	f          *cmdutil.Factory
	sharedOnce sync.Once
	shared     *sharedcache.Store
}
