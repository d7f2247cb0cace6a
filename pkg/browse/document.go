// Package browse is `tilookup browse`'s full-screen browser of a result:
// the indicators of a search, triage, pivot or watch document, filterable,
// each opened on its matches and preview records, marked and exported.
//
// It is the only package that imports Bubble Tea, and only the browse
// command (and -i) imports it: nothing of it runs for other commands.
package browse

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/report"
)

// Item is one indicator as the browser shows it.
type Item struct {
	Value  string
	Type   string
	Status string // matched, no_match, unsupported, failed, skipped, or watch's change
	// Note says more: why it failed, was skipped or is unsupported.
	Note      string
	Resources []Resource
	// Links are a pivot node's neighbours, as "value (resource.field)".
	Links []string

	// in is the indicator as the exporters take it (indicator); skip is
	// set instead for a value that was never looked up. An item made
	// from an answer keeps no in: its answer says indicator builds it
	// from the item's own resources, so that each result is held once (a
	// 100,000-node pivot held every one twice).
	in   *report.Indicator
	skip *report.Skipped
	ans  *answerHead
	// key is what the filter looks in, lower-cased once.
	key string
}

// answerHead is an answer's query, detected type and unsupported reason.
// Most answers' are the item's value and type and none: those share
// asItem, and an item is 48 bytes smaller (a 100,000-node pivot's are
// all so; see docs/PERFORMANCE.md).
type answerHead struct {
	query, detected, unsupported string
}

// asItem is the head of an answer to the item's own value and type.
var asItem = &answerHead{}

func newHead(it *Item, a *answer) *answerHead {
	if a.Query == it.Value && a.DetectedType == it.Type && a.UnsupportedReason == "" {
		return asItem
	}
	return &answerHead{a.Query, a.DetectedType, a.UnsupportedReason}
}

// Resource is one matching resource of an item.
type Resource struct {
	api.Result
	// preview is the resource's preview records as the document has
	// them, decoded when the item is opened: a 50,000-indicator document
	// opens without decoding records nobody looks at.
	preview json.RawMessage
}

// Previews decodes the preview records, numbers as written (an id
// beyond 2^53 shows exactly).
func (r Resource) Previews() []map[string]any {
	var recs []map[string]any
	if len(r.preview) > 0 {
		dec := json.NewDecoder(bytes.NewReader(r.preview))
		dec.UseNumber()
		_ = dec.Decode(&recs) // previews that are not objects are left out
	}
	return recs
}

// Document is what browse reads.
type Document struct {
	Title string
	Items []Item
}

// answer is a search answer (api.SearchResponse's fields) with its
// previews kept as bytes.
type answer struct {
	Query             string     `json:"query"`
	DetectedType      string     `json:"detected_type"`
	UnsupportedReason string     `json:"unsupported_reason"`
	Results           []result   `json:"results"`
	Error             *errorInfo `json:"error"`
}

// result is api.Result with its preview records kept as bytes: the
// outer Preview, shallower, is the one encoding/json fills.
type result struct {
	api.Result
	Preview json.RawMessage `json:"preview"`
}

type errorInfo struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// head is an object's fields other than its arrays that can be long
// (Load streams those): a search answer's, a watch change's.
type head struct {
	answer
	Value     string `json:"value"`
	Type      string `json:"type"`
	Change    string `json:"change"`
	Resources []struct {
		Resource string       `json:"resource"`
		Label    string       `json:"label"`
		Before   *json.Number `json:"before"`
		After    *json.Number `json:"after"`
	} `json:"resources"`
}

type skipped struct {
	Value  string `json:"value"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

type edge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Resource string `json:"resource"`
	Field    string `json:"field"`
}

type triageIndicator struct {
	Value  string     `json:"value"`
	Type   string     `json:"type"`
	Result *answer    `json:"result"`
	Error  *errorInfo `json:"error"`
}

type pivotNode struct {
	ID        string     `json:"id"`
	Value     string     `json:"value"`
	Type      string     `json:"type"`
	Status    string     `json:"status"`
	Reason    string     `json:"reason"`
	Error     *errorInfo `json:"error"` // pivot.ErrorInfo: kind and message
	Resources []result   `json:"resources"`
}

// title is "Triage of report.json": the kind of document, and its name.
func title(kinds map[string]bool, name string) string {
	what := "Result"
	if len(kinds) == 1 {
		for k := range kinds {
			what = strings.ToUpper(k[:1]) + k[1:]
		}
	}
	return what + " of " + name
}

// fromAnswer is one looked-up value: its answer, or its error.
func fromAnswer(value, typ string, a *answer, failed *errorInfo) Item {
	if failed == nil && a != nil {
		failed = a.Error
	}
	if failed != nil || a == nil {
		msg := "no answer"
		if failed != nil {
			msg = failed.Message
		}
		in := &report.Indicator{Value: value, Type: typ, Err: errors.New(msg)}
		return Item{Value: value, Type: typ, Status: string(report.Failed), Note: msg, in: in}
	}
	it := Item{Value: value, Type: typ}
	it.ans = newHead(&it, a)
	it.Resources = make([]Resource, 0, len(a.Results))
	for _, r := range a.Results {
		it.Resources = append(it.Resources, r.result())
	}
	in, _ := it.indicator()
	it.Status = string(in.Status())
	it.Note = a.UnsupportedReason
	return it
}

// indicator is the item as the exporters take it; false for a value
// never looked up.
func (it Item) indicator() (report.Indicator, bool) {
	switch {
	case it.in != nil:
		return *it.in, true
	case it.ans == nil:
		return report.Indicator{}, false
	}
	resp := &api.SearchResponse{Query: it.ans.query, DetectedType: it.ans.detected, UnsupportedReason: it.ans.unsupported}
	if it.ans == asItem {
		resp.Query, resp.DetectedType = it.Value, it.Type
	}
	for _, r := range it.Resources {
		resp.Results = append(resp.Results, r.Result)
	}
	return report.Indicator{Value: it.Value, Type: it.Type, Resp: resp}, true
}

func (r result) result() Resource {
	return Resource{Result: r.Result, preview: r.Preview}
}

// fromNode is a pivot node, without its links.
func fromNode(n *pivotNode) Item {
	a := &answer{Query: n.Value, DetectedType: n.Type, Results: n.Resources}
	if n.Status == string(report.Unsupported) {
		a.UnsupportedReason = n.Reason
	}
	it := fromAnswer(n.Value, n.Type, a, n.Error)
	if n.Status != "" && it.Status != string(report.Failed) {
		it.Status = n.Status // not_looked_up, skipped: pivot's own words
	}
	if it.Note == "" {
		it.Note = n.Reason
	}
	return it
}

// fromChange is one change of a watch: its resources with the counts
// before and after.
func fromChange(o *head) Item {
	it := Item{Value: o.Value, Type: o.Type, Status: o.Change}
	resp := &api.SearchResponse{Query: o.Value, DetectedType: o.Type}
	for _, r := range o.Resources {
		res := api.Result{Resource: r.Resource, Label: r.Label}
		if r.After != nil {
			res.Count = *r.After
		}
		it.Resources = append(it.Resources, Resource{Result: res})
		if r.After != nil {
			resp.Results = append(resp.Results, res)
		}
	}
	if o.Error != nil {
		it.Note = o.Error.Message
		it.in = &report.Indicator{Value: o.Value, Type: o.Type, Err: errors.New(o.Error.Message)}
	} else {
		it.in = &report.Indicator{Value: o.Value, Type: o.Type, Resp: resp}
	}
	return newItem(it)
}

// newItem sets what the filter looks in: the value, type, status and
// the resources matched.
func newItem(it Item) Item {
	var b strings.Builder
	b.WriteString(it.Value + " " + it.Type + " " + it.Status)
	for _, r := range it.Resources {
		b.WriteString(" " + r.Name())
	}
	it.key = strings.ToLower(b.String())
	return it
}
