// Package pivot is `tilookup pivot`: from a few indicators to their
// neighbourhood. The walk looks the values up, takes the indicators named in
// their answers' preview records (pkg/ioc, the rules of extract and triage)
// and looks those up in turn, breadth-first, within a depth and a budget of
// lookups; the renderers draw the graph it found (a terminal tree, JSON,
// Graphviz DOT, Mermaid, Markdown, a self-contained HTML page).
package pivot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/triage"
)

// Status is what became of a node.
type Status string

const (
	Matched     Status = "matched"       // at least one resource matched
	NoMatch     Status = "no_match"      // looked up; nothing matched
	Unsupported Status = "unsupported"   // the service gave an unsupported_reason
	Error       Status = "error"         // the lookup failed
	Skipped     Status = "skipped"       // a triage skip rule (Reason says which)
	NotLookedUp Status = "not_looked_up" // the budget ran out, or the run was interrupted
)

// Statuses lists every status, in the order legends and summaries show them.
var Statuses = []Status{Matched, NoMatch, Unsupported, Error, Skipped, NotLookedUp}

// Limits of the walk, as the contract states them.
const (
	DefaultDepth      = 1
	MaxDepth          = 3
	DefaultMaxLookups = 50
)

// Resource is one resource that matched a node's value.
type Resource struct {
	Resource      string      `json:"resource"`
	Label         string      `json:"label"`
	Count         json.Number `json:"count"`
	MatchedColumn string      `json:"matched_column,omitempty"`
	DetailURL     string      `json:"detail_url,omitempty"`
}

// ErrorInfo is why a node's lookup failed.
type ErrorInfo struct {
	Kind    failure.Kind `json:"kind"`
	Message string       `json:"message"`
}

// Node is one indicator of the graph.
type Node struct {
	// ID is derived from the type and the value only, so that the same
	// indicator has the same id in every run (diffs, links between runs).
	ID     string   `json:"id"`
	Value  string   `json:"value"`
	Type   ioc.Type `json:"type"`
	Depth  int      `json:"depth"`
	Status Status   `json:"status"`
	// Reason is why a node was skipped, or the service's unsupported
	// reason.
	Reason    string     `json:"reason,omitempty"`
	Error     *ErrorInfo `json:"error,omitempty"`
	Resources []Resource `json:"resources"`
	// LeftOut counts the indicators this node's answer named beyond the
	// walk's room for one answer (Config.room): named, but no node.
	LeftOut int `json:"left_out,omitempty"`
}

// Edge says where To was found: in the preview of From's answer from
// Resource, under Field (a dotted path for nested records), or in the
// matched value when Field is "matched_value".
type Edge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Resource string `json:"resource"`
	Field    string `json:"field"`
}

// Summary counts the graph.
type Summary struct {
	Nodes       int `json:"nodes"`
	Edges       int `json:"edges"`
	Lookups     int `json:"lookups"`
	MaxLookups  int `json:"max_lookups"`
	Depth       int `json:"depth"`
	Matched     int `json:"matched"`
	NoMatch     int `json:"no_match"`
	Unsupported int `json:"unsupported"`
	Error       int `json:"error"`
	Skipped     int `json:"skipped"`
	NotLookedUp int `json:"not_looked_up"`
	// LeftOut is the nodes' LeftOut added up (a value two answers name
	// is counted in both).
	LeftOut    int  `json:"left_out,omitempty"`
	Incomplete bool `json:"incomplete"`
}

// Graph is what a walk found: nodes in the order they were found
// (breadth-first), edges in the order they were seen.
type Graph struct {
	Nodes   []*Node `json:"nodes"`
	Edges   []Edge  `json:"edges"`
	Summary Summary `json:"summary"`
}

// Start is one value the user gave, prepared (refanged, typed).
type Start struct {
	Value string
	Type  ioc.Type
}

// Config bounds a walk.
type Config struct {
	Depth       int // levels of neighbours looked up; 0 = the starts only
	MaxLookups  int // lookups in all, the starts included
	Concurrency int // lookups in flight at once
	// Skipper holds the triage skip rules applied to what is found (never
	// to the starts, which the user asked for); nil skips nothing.
	Skipper *triage.Skipper
}

// maxRoom bounds Config.room whatever the budget: an answer adds at most
// twice this many nodes, a few MB, well within what one answer may cost
// (README: 3 times its size plus 40 MB).
const maxRoom = 1000

// room is how many new nodes one answer may add, of those to be looked up
// and again of those skipped: the lookup budget, since an answer's
// neighbours beyond it could never all be looked up anyway (the next level
// is looked up in the order its nodes were added). One answer of 1 MB can
// name 65,536 addresses; without this bound, six lookups two levels deep
// made 393,217 nodes and 600 MB.
func (c Config) room() int { return min(max(c.MaxLookups, 1), maxRoom) }

// NodeID is the stable id of an indicator: a digest of its type and value,
// short enough for a DOT or Mermaid identifier and safe in both.
func NodeID(t ioc.Type, value string) string { return nodeKey(t, value).id() }

// key is the digest NodeID spells: the walk's sets are keyed on it, so
// that the indicators an answer names beyond the walk's room (65,536 in
// one answer of 1 MB) cost no id string each.
type key [8]byte

func nodeKey(t ioc.Type, value string) key {
	sum := sha256.Sum256([]byte(string(t) + "\x00" + value))
	return key(sum[:8])
}

func (k key) id() string { return "n" + hex.EncodeToString(k[:]) }

// Walk looks starts up and walks their neighbourhood breadth-first within
// cfg. It always returns the graph found so far; the error is the run's
// outcome as triage decides it (pkg/failure's Tally: 0 when a node matched,
// 1 when none did, else the largest error code; interrupted on Ctrl-C,
// with the graph marked incomplete).
func Walk(ctx context.Context, s lookup.Searcher, starts []Start, cfg Config) (*Graph, error) {
	w := &walker{
		cfg:   cfg,
		s:     s,
		byKey: map[key]*Node{},
		edges: map[Edge]bool{},
		g:     &Graph{Nodes: []*Node{}, Edges: []Edge{}},
	}
	level := []*Node{}
	for _, st := range starts {
		if w.byKey[nodeKey(st.Type, st.Value)] == nil {
			level = append(level, w.add(st.Value, st.Type, 0, ""))
		}
	}
	var runErr error
	for depth := 0; len(level) > 0 && runErr == nil; depth++ {
		expand := depth < cfg.Depth
		runErr = w.lookUp(ctx, level, depth, expand)
		if !expand {
			break
		}
		level = w.g.Nodes[w.levelStart(depth+1):]
	}
	// Whatever was left waiting (the budget ran out, or Ctrl-C) is shown
	// as such rather than dropped.
	for _, n := range w.g.Nodes {
		if n.Status == "" {
			n.Status = NotLookedUp
		}
	}
	if failure.KindOf(runErr) == failure.Interrupted {
		w.g.Summary.Incomplete = true
	}
	w.summarize()
	return w.g, w.tally.Err(runErr, true)
}

type walker struct {
	cfg     Config
	s       lookup.Searcher
	g       *Graph
	byKey   map[key]*Node
	edges   map[Edge]bool
	lookups int
	tally   failure.Tally
	// whole judges whether a field is one indicator (fieldIndicators).
	whole *ioc.TextExtractor
}

// levelStart is the index of the first node of depth d: nodes are appended
// breadth-first, so each level is a contiguous run.
func (w *walker) levelStart(d int) int {
	return sort.Search(len(w.g.Nodes), func(i int) bool { return w.g.Nodes[i].Depth >= d })
}

// add adds the node of (value, t) at depth, skipped for reason if any.
func (w *walker) add(value string, t ioc.Type, depth int, reason string) *Node {
	k := nodeKey(t, value)
	n := &Node{ID: k.id(), Value: value, Type: t, Depth: depth, Resources: []Resource{}}
	if reason != "" {
		n.Status, n.Reason = Skipped, reason
	}
	w.byKey[k] = n
	w.g.Nodes = append(w.g.Nodes, n)
	return n
}

// named is what one answer has added so far: the new nodes, to look up
// and skipped, each at most Config.room, and the keys of those left out
// (a set, since several resources may name one value).
type named struct {
	room, pending, skipped int
	leftOut                map[key]struct{}
}

// take says whether a new node of k may be added, counting it.
func (a *named) take(k key, skipped bool) bool {
	count := &a.pending
	if skipped {
		count = &a.skipped
	}
	if *count < a.room {
		*count++
		return true
	}
	a.leftOut[k] = struct{}{}
	return false
}

// lookUp looks up the waiting nodes of one level, as many as the budget
// allows, and (when expand) adds the neighbours their answers name.
func (w *walker) lookUp(ctx context.Context, level []*Node, depth int, expand bool) error {
	var todo []*Node
	for _, n := range level {
		if n.Status == "" && w.lookups < w.cfg.MaxLookups {
			todo = append(todo, n)
			w.lookups++
		}
	}
	if len(todo) == 0 {
		return nil
	}
	sink := &levelSink{w: w, nodes: todo, depth: depth, expand: expand}
	err := lookup.Run(ctx, &nodeSource{nodes: todo}, w.s, lookup.Options{Concurrency: max(w.cfg.Concurrency, 1)}, sink)
	// A lookup that never answered (Ctrl-C) was not spent.
	w.lookups -= len(todo) - sink.done
	return err
}

// nodeSource feeds a level's nodes to lookup.Run.
type nodeSource struct {
	nodes []*Node
	i     int
}

func (s *nodeSource) Next() (lookup.Item, bool, error) {
	if s.i == len(s.nodes) {
		return lookup.Item{}, false, nil
	}
	n := s.nodes[s.i]
	s.i++
	return lookup.Item{Input: n.Value, Value: n.Value, Type: n.Type}, true, nil
}

// levelSink takes a level's answers in order, so that the neighbours are
// added in the same order whatever the timing of the lookups.
type levelSink struct {
	w      *walker
	nodes  []*Node
	depth  int
	expand bool
	done   int
}

func (s *levelSink) Add(r lookup.Result) error {
	n := s.nodes[s.done]
	s.done++
	a, err := decode(r.Resp, r.Err)
	s.w.answer(n, a, err)
	if s.expand && n.Status == Matched {
		s.w.neighbours(n, a, s.depth+1)
	}
	return nil
}

// decode reads an answer's results and preview records within the bounds
// the formats use, from its bytes when it has them: only what the walk
// reads is decoded, in ordered records rather than maps, and nothing of
// the answer is kept once its node and neighbours are taken from it.
func decode(resp *api.SearchResponse, err error) (*api.Answer, error) {
	if err != nil {
		return nil, err
	}
	a, err := resp.Decode(api.DefaultBounds())
	if err != nil {
		return nil, failure.Wrap(failure.Decode, err, "cannot read the answer: "+err.Error())
	}
	return a, nil
}

func (s *levelSink) Flush() error { return nil }

// answer records a lookup's outcome on its node.
func (w *walker) answer(n *Node, resp *api.Answer, err error) {
	switch {
	case err != nil:
		n.Status = Error
		n.Error = &ErrorInfo{Kind: failure.KindOf(err), Message: err.Error()}
	case resp.UnsupportedReason != "":
		n.Status, n.Reason = Unsupported, resp.UnsupportedReason
	case len(resp.Results) > 0:
		n.Status = Matched
		for _, r := range resp.Results {
			n.Resources = append(n.Resources, Resource{Resource: r.Resource, Label: r.Label, Count: r.Count,
				MatchedColumn: r.MatchedColumn, DetailURL: r.DetailURL})
		}
	default:
		n.Status = NoMatch
	}
	w.tally.Add(err, n.Status == Matched)
}

// neighbours adds the indicators that n's answer names, with an edge for
// each resource and field where one was found first.
func (w *walker) neighbours(n *Node, resp *api.Answer, depth int) {
	a := &named{room: w.cfg.room(), leftOut: map[key]struct{}{}}
	defer func() { n.LeftOut = len(a.leftOut) }()
	for _, r := range resp.Results {
		// One extractor per resource: an indicator named in several
		// fields of a resource's records gets the edge of the first.
		x := ioc.NewTextExtractor()
		field := ""
		found := func(ind ioc.Indicator) error {
			w.link(n, a, ind, depth, r.Resource, field)
			return nil
		}
		if r.MatchedValue != "" {
			field = "matched_value"
			w.fieldIndicators(x, r.MatchedValue, found)
		}
		for _, rec := range r.Records {
			// A record that is not an object names nothing, as when
			// records were decoded into maps.
			if rec, ok := rec.(api.Record); ok {
				walkFields("", rec, func(f, text string) {
					field = f
					w.fieldIndicators(x, text, found)
				})
			}
		}
	}
}

// fieldIndicators calls found for the indicators one field names. A field
// whose whole value is one indicator, as search would detect it, is taken
// whole: a URL with a space in its path is that URL, never the piece
// before the space (which matches nothing and would be an invented
// value). Other text is free text, for extraction.
func (w *walker) fieldIndicators(x *ioc.TextExtractor, text string, found func(ioc.Indicator) error) {
	if w.whole == nil {
		w.whole = ioc.NewTextExtractor()
	}
	if ind, ok := wholeIndicator(w.whole, text); ok {
		_ = found(ind)
		return
	}
	_ = x.Extract(text, found)
}

// wholeIndicator is text as one indicator: Prepare detects a type, and
// extraction agrees that text names such an indicator and nothing else
// than pieces of it. Extraction's rules still decide what is an indicator
// at all (a detection name such as Win32/Korplug.TC is no domain).
// x is an extractor of the walk's own for this check, judged afresh here.
func wholeIndicator(x *ioc.TextExtractor, text string) (ioc.Indicator, bool) {
	value, t, err := ioc.Prepare(text, true)
	if err != nil || t == ioc.Unknown {
		return ioc.Indicator{}, false
	}
	agrees := false
	x.Forget()
	err = x.Extract(text, func(ind ioc.Indicator) error {
		if ind.Type != t || !strings.HasPrefix(value, ind.Value) {
			return errNotWhole
		}
		agrees = true
		return nil
	})
	return ioc.Indicator{Value: value, Type: t}, err == nil && agrees
}

var errNotWhole = errors.New("not one indicator")

// link adds the edge from n to the indicator, and the indicator's node
// when it is new and a's answer still has room for it.
func (w *walker) link(from *Node, a *named, ind ioc.Indicator, depth int, resource, field string) {
	if ind.Type == ioc.Unknown || ind.Type == from.Type && ind.Value == from.Value {
		return
	}
	k := nodeKey(ind.Type, ind.Value)
	to := w.byKey[k]
	if to == nil {
		reason := w.cfg.Skipper.Reason(ind.Value, ind.Type)
		if !a.take(k, reason != "") {
			return
		}
		to = w.add(ind.Value, ind.Type, depth, reason)
	}
	if to == from {
		return
	}
	// One edge per pair and resource: the first field that named it says
	// where to look; more would only clutter a drawing.
	key := Edge{From: from.ID, To: to.ID, Resource: resource}
	if w.edges[key] {
		return
	}
	w.edges[key] = true
	w.g.Edges = append(w.g.Edges, Edge{From: from.ID, To: to.ID, Resource: resource, Field: field})
}

// walkFields calls fn for every string in a preview record, with its
// field's path: nested objects as dotted keys, lists under their own key.
// Keys are taken in sorted order, the last of a repeated key only, as
// when records were decoded into maps: the ids do not depend on it, the
// order of nodes does, and it stays what it was whatever the service's
// order.
func walkFields(prefix string, v any, fn func(field, text string)) {
	switch v := v.(type) {
	case string:
		fn(prefix, v)
	case []any:
		for _, e := range v {
			walkFields(prefix, e, fn)
		}
	case api.Record:
		for _, f := range sortedFields(v) {
			p := f.Key
			if prefix != "" {
				p = prefix + "." + f.Key
			}
			walkFields(p, f.Value, fn)
		}
	}
}

// sortedFields is r's fields sorted by key, of a repeated key the last.
func sortedFields(r api.Record) []api.Field {
	fs := slices.Clone(r)
	slices.SortStableFunc(fs, func(a, b api.Field) int { return strings.Compare(a.Key, b.Key) })
	out := fs[:0]
	for i, f := range fs {
		if i+1 < len(fs) && fs[i+1].Key == f.Key {
			continue
		}
		out = append(out, f)
	}
	return out
}

func (w *walker) summarize() {
	s := &w.g.Summary
	s.Nodes, s.Edges = len(w.g.Nodes), len(w.g.Edges)
	s.Lookups, s.MaxLookups, s.Depth = w.lookups, w.cfg.MaxLookups, w.cfg.Depth
	for _, n := range w.g.Nodes {
		s.LeftOut += n.LeftOut
		switch n.Status {
		case Matched:
			s.Matched++
		case NoMatch:
			s.NoMatch++
		case Unsupported:
			s.Unsupported++
		case Error:
			s.Error++
		case Skipped:
			s.Skipped++
		case NotLookedUp:
			s.NotLookedUp++
		}
	}
}
