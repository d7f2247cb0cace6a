package enrich

import (
	"context"
	"sync"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/report"
)

// DefaultRemember is how many distinct answers Remember keeps: a few
// hundred bytes each, some 15 MB at most.
const DefaultRemember = 50000

// Remember wraps s so that a value answered once is answered from memory
// when it comes again, however far down the export: lookup.Dedup keeps
// only the last 2,048 answers, and an export of tens of thousands of
// distinct addresses repeats them over millions of rows. Only what the
// added cells show is kept (report.Lean). Beyond max distinct values, a
// new one is looked up but not kept (the --cache still answers it once
// on disk). Errors are not kept: a later copy asks again.
func Remember(s lookup.Searcher, max int) lookup.Searcher {
	return &remember{next: s, max: max, answers: map[string]*api.SearchResponse{}}
}

type remember struct {
	next    lookup.Searcher
	max     int
	mu      sync.Mutex
	answers map[string]*api.SearchResponse
}

func (r *remember) Search(ctx context.Context, value string) (*api.SearchResponse, error) {
	r.mu.Lock()
	resp, ok := r.answers[value]
	r.mu.Unlock()
	if ok {
		return resp, nil
	}
	resp, err := r.next.Search(ctx, value)
	if err != nil || resp == nil {
		return resp, err
	}
	lean := report.Lean(resp)
	r.mu.Lock()
	if len(r.answers) < r.max {
		r.answers[value] = lean
	}
	r.mu.Unlock()
	return lean, nil
}
