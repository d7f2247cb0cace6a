package watch

import (
	"context"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Change is one change of a run: the contract's record, as `tilookup
// watch` prints it and the MCP watch tool answers it.
type Change struct {
	Value             string     `json:"value"`
	Type              string     `json:"type"`
	Change            string     `json:"change"`
	Resources         []Delta    `json:"resources"`
	CheckedAt         string     `json:"checked_at"`
	PreviousCheckedAt *string    `json:"previous_checked_at"`
	Error             *ErrorInfo `json:"error,omitempty"`
	// Pages are this answer's results with a detail page (resource, label
	// and detail_url only): MISP makes link attributes of them, and an
	// assistant cites them as evidence.
	Pages []api.Result `json:"-"`
}

// ErrorInfo is why a value's lookup failed this time.
type ErrorInfo struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// ErrorChange is what a failed value shows as.
const ErrorChange = "error"

// Emitter takes the changes of a run as they come: the CLI's printers,
// the MCP tool's answer.
type Emitter interface {
	Add(Change) error
	// Flush is called when the next answer is not ready.
	Flush() error
}

// Check is one run's comparison, a lookup.Sink: it compares each answer,
// in input order, with the value's last good answer, hands the changes to
// the emitter and keeps the new answers aside: the state takes them at
// the end (Finish), so that a value asked twice in one run is compared
// with the last run, not with itself.
type Check struct {
	state *State
	w     Emitter
	at    int64
	now   string
	// Tally counts the values: Matched is the changes.
	Tally failure.Tally
	next  map[string]*Entry // this run's good answers and kept ones
}

// NewCheck is a run over st, started at now, whose changes go to w.
func NewCheck(st *State, w Emitter, now time.Time) *Check {
	return &Check{state: st, w: w, at: now.Unix(), now: now.UTC().Format(time.RFC3339),
		next: make(map[string]*Entry, len(st.Values))}
}

// Add compares one answer.
func (s *Check) Add(r lookup.Result) error {
	v := r.Item.Value
	prev := s.state.Values[v]
	c := Change{Value: v, Type: string(r.Item.Type), CheckedAt: s.now, PreviousCheckedAt: s.when(prev)}
	if v == "" {
		c.Value = r.Item.Input // a line rejected before any lookup
	}
	if r.Err != nil {
		s.Tally.Add(r.Err, false)
		if prev != nil {
			s.next[v] = prev // the last good answer stays
		}
		c.Change = ErrorChange
		c.Error = &ErrorInfo{Kind: string(failure.KindOf(r.Err)), Message: sanitize.Line(r.Err.Error())}
		return s.w.Add(c)
	}
	if _, seen := s.next[v]; seen {
		return nil // a repeat of a value of this run: reported once
	}
	cur := EntryOf(r.Resp, s.at, s.state.Labels)
	s.next[v] = cur
	kind, deltas := Compare(prev, cur, s.state.Labels)
	s.Tally.Add(nil, kind != KindNone)
	if kind == KindNone {
		return nil
	}
	c.Change, c.Resources = string(kind), deltas
	for _, res := range r.Resp.Results {
		if res.DetailURL != "" {
			c.Pages = append(c.Pages, api.Result{Resource: res.Resource, Label: res.Label, DetailURL: res.DetailURL})
		}
	}
	return s.w.Add(c)
}

// Flush passes the pause on to the emitter.
func (s *Check) Flush() error { return s.w.Flush() }

func (s *Check) when(e *Entry) *string {
	if e == nil {
		return nil
	}
	t := time.Unix(e.At, 0).UTC().Format(time.RFC3339)
	return &t
}

// Finish makes the state the new one. A complete run's list is its
// input; an interrupted run keeps the old state of every value it did not
// reach.
func (s *Check) Finish(complete bool) {
	if complete {
		s.state.Values = s.next
	} else {
		for v, e := range s.next {
			s.state.Values[v] = e
		}
	}
	s.state.CheckedAt = s.at
	s.state.Changes = s.Tally.Matched
	s.state.Errors = s.Tally.Failed
	s.pruneLabels()
}

// pruneLabels drops the labels no value refers to any more.
func (s *Check) pruneLabels() {
	used := make(map[string]bool, len(s.state.Labels))
	for _, e := range s.state.Values {
		for _, r := range e.Resources {
			used[r.ID] = true
		}
	}
	for id := range s.state.Labels {
		if !used[id] {
			delete(s.state.Labels, id)
		}
	}
}

// DecodeMatches asks for answers as search -o ndjson does (checked and
// counted, not decoded) and decodes only those that matched: most of a
// watch list is answered "no match", and the comparison needs the fields
// of a match only. A run's chain is online.Chain{Raw: true, Wrap:
// DecodeMatches}, without the answer cache.
func DecodeMatches(next lookup.Searcher) lookup.Searcher {
	return lookup.SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		resp, err := next.Search(ctx, v)
		if err != nil || resp.ResultCount() == 0 {
			return resp, err
		}
		return api.DecodeSearch(resp.Raw)
	})
}
