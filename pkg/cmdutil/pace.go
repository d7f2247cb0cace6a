package cmdutil

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// MaxConcurrency bounds -c: more requests in flight than this only queue
// at the service (and each costs memory here).
const MaxConcurrency = 64

// AddPaceFlags gives a command that looks many values up -c/--concurrency
// (what it bounds: concurrencyHelp) and --rate.
func AddPaceFlags(cmd *cobra.Command, concurrency *int, rate *float64, concurrencyHelp string) {
	fl := cmd.Flags()
	fl.IntVarP(concurrency, "concurrency", "c", 4, fmt.Sprintf("%s (`N`, 1-%d)", concurrencyHelp, MaxConcurrency))
	fl.Float64Var(rate, "rate", 0, "at most `R` requests/s, retries included")
}

// CheckPace refuses what AddPaceFlags' flags cannot mean. A rate too low
// for the per-value deadline is refused later, by api.Client.SetRate.
func CheckPace(concurrency int, rate float64) error {
	if concurrency < 1 || concurrency > MaxConcurrency {
		return UsageError("--concurrency must be between 1 and %d", MaxConcurrency)
	}
	if rate < 0 {
		return UsageError("--rate must be 0 (unlimited) or more")
	}
	return nil
}

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

// BulkGC makes Go's collector run a quarter as often as its default, for
// the rest of the process, unless GOGC says otherwise. A streaming bulk
// search allocates some 8 KB per value (mostly net/http's) over a live heap
// that the pipeline bounds to a few MB; at the default the collector ran
// every few hundred values and took about a tenth of the CPU. Runs that
// keep every answer (documents, triage) keep the default, so that their
// heap does not grow five times their data. A streaming run holds at most
// the ordering budget (4 MiB), Dedup's recent answers (8 MiB) and the
// answers in flight; its peak RSS is about 32 MB (bench/bulk), against 22
// at the default.
//
// A soft memory limit (128 MiB, unless GOMEMLIMIT says otherwise) stops
// that growth where answers are large: at GOGC=400 four 30 MB answers in
// flight let the heap reach 680 MB, against 150 MB with the limit (bench/memory),
// while a run of small answers never reaches it and keeps its speed.
func BulkGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
		if getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(bulkMemoryLimit)
		}
	}
}

const bulkMemoryLimit = 128 << 20
