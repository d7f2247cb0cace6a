package cmdutil

import (
	"io"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// CacheFunc wraps a Searcher in the answer cache when it is on: the shape
// of Factory.Cached, as the commands' Options hold it.
type CacheFunc func(next lookup.Searcher, client *api.Client, limit int, raw, refresh bool) lookup.Searcher

// StartService readies the service for a run: the built-in sandbox when
// sandbox is set (stop ends it; it is a no-op otherwise), then the client
// for concurrency requests at once and at most rate a second (0: no limit).
func StartService(sandbox bool, startSandbox func() (io.Closer, error), newClient func(concurrency int) (*api.Client, error), concurrency int, rate float64) (client *api.Client, stop func(), err error) {
	stop = func() {}
	if sandbox {
		srv, err := startSandbox()
		if err != nil {
			return nil, nil, err
		}
		stop = func() { srv.Close() }
	}
	if client, err = newClient(concurrency); err == nil {
		err = client.SetRate(rate)
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	return client, stop, nil
}

// ServiceSearcher is the service's Searcher as every command uses it: it
// stops sending once the token is refused, and goes through the answer
// cache when cache is set. Callers add lookup.Dedup where values repeat.
func ServiceSearcher(client *api.Client, limit int, raw, refresh bool, cache CacheFunc) lookup.Searcher {
	s := lookup.StopOnRefusedToken(lookup.Client(client, limit, raw))
	if cache != nil {
		s = cache(s, client, limit, raw, refresh)
	}
	return s
}
