package online

import (
	"context"
	"io"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// Lookups is how a command's values are looked up: the one lookup chain
// that search, triage, enrich, pivot and watch share (the sandbox when
// asked, the client at the command's pace, the stop once the token is
// refused or the service cannot be reached, the answer cache, one request
// per distinct value) and the ordered run over it. A command embeds it in
// its Options and says only what is its own: where the values come from
// (a lookup.Source), what it does with each answer (a lookup.Sink), and
// whether it reads the answers' fields or only their bytes.
type Lookups struct {
	// Client builds the API client for this many requests in flight.
	Client func(concurrency int) (*api.Client, error)
	// StartSandbox runs the built-in server and points Client at it.
	StartSandbox func() (io.Closer, error)
	// Cache wraps the service's Searcher in the answer cache when it is
	// on (Factory.Cached); nil = no cache.
	Cache CacheFunc
	// Pace adds the fleet's shared rate (shared_rate) to the client's
	// own (Factory.SharePace); nil = none.
	Pace func(*api.Client)
	// MaxHeld bounds the bytes held for ordering (0: lookup's default).
	MaxHeld int64

	Sandbox     bool
	Concurrency int
	Rate        float64
	Limit       int
	Refresh     bool
}

// NewLookups are the Lookups of a command of f's that looks values up
// through the search endpoint, with the answer cache and the shared rate;
// a command without the cache (watch) sets Cache to nil.
func NewLookups(f *Factory) Lookups {
	return Lookups{
		Client:       func(c int) (*api.Client, error) { return f.Client(ForSearch, c) },
		StartSandbox: f.Sandbox,
		Cache:        f.Cached,
		Pace:         f.SharePace,
	}
}

// Chain says what a command needs of the answers.
type Chain struct {
	// Raw asks for the answer's bytes and its number of results only
	// (json, ndjson, --jq and the MCP digest read the bytes).
	Raw bool
	// Wrap adds the command's own step between the service (with its
	// cache) and the de-duplication, e.g. decoding or remembering
	// answers; nil adds none.
	Wrap func(lookup.Searcher) lookup.Searcher
}

// Service is a started lookup chain. Close it when the run ends.
type Service struct {
	// Client is the service's client (for a call outside the chain, such
	// as --web's single lookup).
	Client *api.Client
	// Searcher is the whole chain; a command may wrap it further (a
	// spinner while one answer is awaited).
	Searcher lookup.Searcher

	opts lookup.Options
	stop func()
}

// Start readies the service and its chain for one run.
func (l *Lookups) Start(chain Chain) (*Service, error) {
	client, stop, err := startService(l.Sandbox, l.StartSandbox, l.Client, max(l.Concurrency, 1), l.Rate)
	if err != nil {
		return nil, err
	}
	if l.Pace != nil {
		l.Pace(client)
	}
	s := ServiceSearcher(client, l.Limit, chain.Raw, l.Refresh, l.Cache)
	if chain.Wrap != nil {
		s = chain.Wrap(s)
	}
	return &Service{
		Client:   client,
		Searcher: lookup.Dedup(s),
		opts:     lookup.Options{Concurrency: max(l.Concurrency, 1), MaxHeld: l.MaxHeld},
		stop:     stop,
	}, nil
}

// Run looks up every value of src through the chain, at the command's
// concurrency, and hands each result to sink in input order.
func (s *Service) Run(ctx context.Context, src lookup.Source, sink lookup.Sink) error {
	return lookup.Run(ctx, src, s.Searcher, s.opts, sink)
}

// Concurrency is the requests in flight at once, for a command that runs
// the chain its own way (pivot's walk, level by level).
func (s *Service) Concurrency() int { return s.opts.Concurrency }

// Close ends the sandbox, if the run started one.
func (s *Service) Close() { s.stop() }

// CacheFunc wraps a Searcher in the answer cache when it is on: the shape
// of Factory.Cached, as the commands' Options hold it.
type CacheFunc func(next lookup.Searcher, client *api.Client, limit int, raw, refresh bool) lookup.Searcher

// startService readies the service for a run: the built-in sandbox when
// sandbox is set (stop ends it; it is a no-op otherwise), then the client
// for concurrency requests at once and at most rate a second (0: no limit).
func startService(sandbox bool, startSandbox func() (io.Closer, error), newClient func(concurrency int) (*api.Client, error), concurrency int, rate float64) (client *api.Client, stop func(), err error) {
	stop = func() {}
	if sandbox {
		if startSandbox == nil {
			return nil, nil, failure.New(failure.Config, "the built-in sandbox is not available here")
		}
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
	s := lookup.StopSending(lookup.Client(client, limit, raw))
	if cache != nil {
		s = cache(s, client, limit, raw, refresh)
	}
	return s
}
