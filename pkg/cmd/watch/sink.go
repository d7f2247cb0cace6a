package watch

import (
	"encoding/json"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/watch"
)

// Change is one line of the output: the contract's record.
type Change struct {
	Value             string        `json:"value"`
	Type              string        `json:"type"`
	Change            string        `json:"change"`
	Resources         []watch.Delta `json:"resources"`
	CheckedAt         string        `json:"checked_at"`
	PreviousCheckedAt *string       `json:"previous_checked_at"`
	Error             *ErrorInfo    `json:"error,omitempty"`
	// pages are this answer's results with a detail page (resource, label
	// and detail_url only): MISP makes link attributes of them.
	pages []api.Result
}

// ErrorInfo is why a value's lookup failed this time.
type ErrorInfo struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// errorChange is what a failed value shows as.
const errorChange = "error"

// sink compares each answer, in input order, with the value's last good
// answer, hands the changes to the writer and keeps the new answers
// aside: the state takes them at the end (finish), so that a value asked
// twice in one run is compared with the last run, not with itself.
type sink struct {
	state *watch.State
	w     writer
	at    int64
	now   string
	tally failure.Tally
	next  map[string]*watch.Entry // this run's good answers and kept ones
}

func newSink(st *watch.State, w writer, now time.Time) *sink {
	return &sink{state: st, w: w, at: now.Unix(), now: now.UTC().Format(time.RFC3339),
		next: make(map[string]*watch.Entry, len(st.Values))}
}

func (s *sink) Add(r lookup.Result) error {
	v := r.Item.Value
	prev := s.state.Values[v]
	c := Change{Value: v, Type: string(r.Item.Type), CheckedAt: s.now, PreviousCheckedAt: s.when(prev)}
	if v == "" {
		c.Value = r.Item.Input // a line rejected before any lookup
	}
	if r.Err != nil {
		s.tally.Add(r.Err, false)
		if prev != nil {
			s.next[v] = prev // the last good answer stays
		}
		c.Change = errorChange
		c.Error = &ErrorInfo{Kind: string(failure.KindOf(r.Err)), Message: sanitize.Line(r.Err.Error())}
		return s.w.Add(c)
	}
	if _, seen := s.next[v]; seen {
		return nil // a repeat of a value of this run: reported once
	}
	cur := watch.EntryOf(r.Resp, s.at, s.state.Labels)
	s.next[v] = cur
	kind, deltas := watch.Compare(prev, cur, s.state.Labels)
	s.tally.Add(nil, kind != watch.KindNone)
	if kind == watch.KindNone {
		return nil
	}
	c.Change, c.Resources = string(kind), deltas
	for _, res := range r.Resp.Results {
		if res.DetailURL != "" {
			c.pages = append(c.pages, api.Result{Resource: res.Resource, Label: res.Label, DetailURL: res.DetailURL})
		}
	}
	return s.w.Add(c)
}

func (s *sink) Flush() error { return s.w.Flush() }

func (s *sink) when(e *watch.Entry) *string {
	if e == nil {
		return nil
	}
	t := time.Unix(e.At, 0).UTC().Format(time.RFC3339)
	return &t
}

// finish makes the state the new one. A complete run's list is its
// input; an interrupted run keeps the old state of every value it did not
// reach.
func (s *sink) finish(complete bool) {
	if complete {
		s.state.Values = s.next
	} else {
		for v, e := range s.next {
			s.state.Values[v] = e
		}
	}
	s.state.CheckedAt = s.at
	s.state.Changes = s.tally.Matched
	s.state.Errors = s.tally.Failed
	s.pruneLabels()
}

// pruneLabels drops the labels no value refers to any more.
func (s *sink) pruneLabels() {
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

// countText is a count for table, CSV and Markdown: "-" where the
// resource did not match.
func countText(n *json.Number) string {
	if n == nil {
		return "-"
	}
	return n.String()
}
