package lookup

import (
	"context"
	"sync/atomic"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
)

// StopOnRefusedToken wraps s so that once the service refuses the token
// (401), later values are not sent: each gets an error of the same kind
// instead. A bulk run with a wrong or expired token then makes a handful
// of requests (those already in flight), not thousands that can lock an
// account out, and still has one record per value.
func StopOnRefusedToken(s Searcher) Searcher { return &refusal{next: s} }

type refusal struct {
	next    Searcher
	refused atomic.Bool
}

var errNotSent = failure.New(failure.Auth, "not sent: the service refused the token for an earlier value").
	WithHint("run `tilookup auth login` or set TILOOKUP_TOKEN, then run again")

func (r *refusal) Search(ctx context.Context, value string) (*api.SearchResponse, error) {
	if r.refused.Load() {
		return nil, errNotSent
	}
	resp, err := r.next.Search(ctx, value)
	if failure.KindOf(err) == failure.Auth {
		r.refused.Store(true)
	}
	return resp, err
}
