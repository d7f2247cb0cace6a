package enrich

import (
	"context"
	"sync/atomic"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// StopWhenUnreachable wraps s so that once the service cannot be reached
// (a network error after the client's retries), later values are not
// sent: each gets an error of the same kind at once. An export of a
// million rows with the service down then ends in seconds, every row
// written with status error, instead of retrying each distinct value.
// (A refused token stops the same way, in lookup.StopOnRefusedToken.)
func StopWhenUnreachable(s lookup.Searcher) lookup.Searcher { return &unreachable{next: s} }

type unreachable struct {
	next lookup.Searcher
	down atomic.Pointer[error]
}

func (u *unreachable) Search(ctx context.Context, value string) (*api.SearchResponse, error) {
	if p := u.down.Load(); p != nil {
		return nil, failure.Wrap(failure.Network, *p, "not sent: the service could not be reached for an earlier value").
			WithHint("check the base URL and the network, then run again")
	}
	resp, err := u.next.Search(ctx, value)
	if failure.KindOf(err) == failure.Network {
		u.down.CompareAndSwap(nil, &err)
	}
	return resp, err
}
