package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/report"
)

// MaxValues bounds one search call: more is a bulk job for the CLI, and
// its answer would not fit the budget anyway.
const MaxValues = 100

// maxPreviewRows bounds preview_rows.
const maxPreviewRows = 20

// previewRunes bounds one string of a preview record.
const previewRunes = 256

type searchInput struct {
	Values      []string `json:"values" jsonschema:"the values to look up: hashes (md5, sha1, sha256, sha512), IPv4 or IPv6 addresses, domains, URLs or CVE IDs; defanged forms such as hxxps://evil[.]example are refanged"`
	PreviewRows int      `json:"preview_rows,omitempty" jsonschema:"preview records to keep per matching resource (0 for none)"`
	Limit       int      `json:"limit,omitempty" jsonschema:"ask the service for at most this many results per value (sent as limit; omit for the service's default)"`
	NoRefang    bool     `json:"no_refang,omitempty" jsonschema:"send the values exactly as given, without refanging or normalising"`
}

type searchOutput struct {
	Values        []searchValue `json:"values" jsonschema:"one entry per value, in the order given"`
	OmittedValues []string      `json:"omitted_values,omitempty" jsonschema:"the first values looked up whose answers did not fit the budget (long ones shortened)"`
	Truncated     string        `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget: what was left out and how to get it"`
}

type searchValue struct {
	Input             string     `json:"input" jsonschema:"the value as given"`
	Query             string     `json:"query,omitempty" jsonschema:"the value sent to the service, refanged and normalised"`
	Type              string     `json:"type,omitempty" jsonschema:"the type tilookup detected locally"`
	Status            string     `json:"status" jsonschema:"matched, no_match, unsupported or failed"`
	DetectedType      string     `json:"detected_type,omitempty" jsonschema:"the type the service detected"`
	Strategy          string     `json:"strategy,omitempty" jsonschema:"the search strategy the service applied"`
	UnsupportedReason string     `json:"unsupported_reason,omitempty" jsonschema:"why the service does not support this value"`
	Error             *errorInfo `json:"error,omitempty" jsonschema:"why this value has no answer"`
	ResourcesMatched  int        `json:"resources_matched" jsonschema:"how many resources matched"`
	Matches           []match    `json:"matches,omitempty" jsonschema:"one entry per matching resource"`
	MatchesOmitted    int        `json:"matches_omitted,omitempty" jsonschema:"matching resources left out to fit the budget"`
}

type match struct {
	Resource       string           `json:"resource,omitempty"`
	Label          string           `json:"label,omitempty"`
	Group          string           `json:"group,omitempty"`
	MatchedColumn  string           `json:"matched_column,omitempty"`
	MatchedValue   string           `json:"matched_value,omitempty"`
	Count          json.Number      `json:"count,omitempty" jsonschema:"number of matching records in this resource"`
	DetailURL      string           `json:"detail_url,omitempty" jsonschema:"the service's page with every matching record"`
	Preview        []map[string]any `json:"preview,omitempty" jsonschema:"the first matching records, free-form"`
	PreviewOmitted int              `json:"preview_omitted,omitempty" jsonschema:"preview records left out"`
}

type errorInfo struct {
	Kind    string `json:"kind" jsonschema:"usage, input, bad_request, config, auth, forbidden, not_found, rate_limited, server, network, timeout, decode or interrupted"`
	Status  int    `json:"status,omitempty" jsonschema:"the HTTP status, when the service answered"`
	Message string `json:"message"`
}

func searchTool() *sdk.Tool {
	in := schemaFor[searchInput]()
	list(in.Properties["values"], 1, MaxValues)
	rows := in.Properties["preview_rows"]
	rows.Default = json.RawMessage("3")
	rows.Minimum, rows.Maximum = new(0.0), new(float64(maxPreviewRows))
	in.Properties["limit"].Minimum = new(1.0)
	return &sdk.Tool{
		Name:        "search",
		Annotations: readOnly("Search indicators", true),
		InputSchema: in,
		Description: `Look up one or more exact values (hash, IP, domain, URL, CVE ID) across every resource of the threat-intelligence service. For each value: the type detected locally and by the service, the search strategy, why it is unsupported if it is, and each matching resource with its label, group, matched column, count, detail_url and the first preview_rows preview records. Values that fail have an error instead; the others are still answered. Each value costs one request: check doubtful values with detect first, and use triage for a whole report.` + dataWarning,
	}
}

func (t *tools) search(ctx context.Context, _ *sdk.CallToolRequest, in searchInput) (*sdk.CallToolResult, searchOutput, error) {
	if len(in.Values) == 0 {
		return nil, searchOutput{}, failure.New(failure.Usage, "give at least one value in values")
	}
	results, err := t.lookupAll(ctx, in.Values, in.Limit, !in.NoRefang)
	if err != nil {
		return nil, searchOutput{}, err
	}
	if err := allFailed(results); err != nil {
		return nil, searchOutput{}, err
	}
	r := &searchRender{results: results, rows: in.PreviewRows, budget: t.cfg.MaxBytes}
	r.plan()
	return fit(t.cfg.MaxBytes, len(r.plans), r.render)
}

// looked is one value and its answer.
type looked struct {
	lookup.Result
	Type ioc.Type
}

// lookupAll looks every value up through the pipeline the CLI uses:
// prepared (refanged, normalised) once, identical values asked once,
// several in flight, answers in input order.
func (t *tools) lookupAll(ctx context.Context, values []string, limit int, refang bool) ([]looked, error) {
	if len(values) > MaxValues {
		return nil, failure.New(failure.Usage, "%d values: at most %d per call; split them, or run tilookup search -f FILE in a terminal for bulk lookups", len(values), MaxValues)
	}
	src := &valueSource{}
	refused := 0
	for _, v := range values {
		it := lookup.Item{Input: v}
		it.Value, it.Type, it.Err = ioc.Prepare(v, refang)
		if it.Err != nil {
			refused++
		}
		src.items = append(src.items, it)
	}
	// Values that are all refused fail as such, before any configuration
	// or token is needed, as on the command line.
	var searcher lookup.Searcher = lookup.SearcherFunc(nil)
	if refused < len(values) {
		var err error
		if searcher, err = t.cfg.Searcher(limit); err != nil {
			return nil, err
		}
	}
	sink := &collect{}
	err := lookup.Run(ctx, src, lookup.Dedup(searcher), lookup.Options{Concurrency: t.cfg.Concurrency}, sink)
	if err != nil {
		return nil, err
	}
	out := make([]looked, len(sink.got))
	for i, r := range sink.got {
		out[i] = looked{Result: r, Type: r.Item.Type}
	}
	return out, nil
}

// allFailed is the call's error when no value got an answer: one value's
// own message, or the first of several.
func allFailed(results []looked) error {
	for _, r := range results {
		if r.Err == nil {
			return nil
		}
	}
	if len(results) == 1 {
		return results[0].Err
	}
	return fmt.Errorf("all %d values failed; the first, %s: %w", len(results), clean(results[0].Item.Input, noteRunes), results[0].Err)
}

// valueSource is a lookup.Source over prepared values.
type valueSource struct {
	items []lookup.Item
	next  int
}

func (s *valueSource) Next() (lookup.Item, bool, error) {
	if s.next == len(s.items) {
		return lookup.Item{}, false, nil
	}
	s.next++
	return s.items[s.next-1], true, nil
}

// collect is a lookup.Sink that keeps the results (at most MaxValues).
type collect struct{ got []lookup.Result }

func (c *collect) Add(r lookup.Result) error { c.got = append(c.got, r); return nil }
func (c *collect) Flush() error              { return nil }

// searchPlan is one way to cut an answer: preview records per resource,
// matches per value (-1: all) and values kept.
type searchPlan struct {
	rows, matches, values int
}

// searchRender renders the answer at each level of cutting.
type searchRender struct {
	results []looked
	rows    int
	budget  int
	plans   []searchPlan
}

// plan lists the levels, from the whole answer to counts only: fewer
// preview records first (the least useful), then fewer matches per
// value, then fewer values.
func (r *searchRender) plan() {
	n := len(r.results)
	for rows := r.rows; rows >= 0; rows-- {
		r.plans = append(r.plans, searchPlan{rows: rows, matches: -1, values: n})
	}
	most := 0
	for _, l := range r.results {
		if l.Resp != nil {
			most = max(most, len(l.Resp.Results))
		}
	}
	for k := most - 1; k >= 0; k-- {
		r.plans = append(r.plans, searchPlan{rows: 0, matches: k, values: n})
	}
	for v := n - 1; v >= 0; v-- {
		r.plans = append(r.plans, searchPlan{rows: 0, matches: 0, values: v})
	}
}

func (r *searchRender) render(level int) searchOutput {
	p := r.plans[level]
	var cut cutCount
	out := searchOutput{Values: make([]searchValue, 0, p.values)}
	for i, l := range r.results {
		if i >= p.values {
			if len(out.OmittedValues) < maxListed {
				out.OmittedValues = append(out.OmittedValues, clean(l.Item.Input, noteRunes))
			}
			continue
		}
		out.Values = append(out.Values, renderValue(l, p, &cut))
	}
	cut.values = len(r.results) - p.values
	out.Truncated = cut.note(r.budget, r.rows, p)
	return out
}

// cutCount is what a plan left out.
type cutCount struct {
	previews, previewRunes, matches, values int
}

// note says what the plan cut to fit the budget, and what the fixed
// bound on preview strings cut, with how to get the rest; "" when nothing
// was cut. rows is the preview_rows asked for: fewer is a cut, as many is
// the caller's choice.
func (c cutCount) note(budget, rows int, p searchPlan) string {
	var parts []string
	switch {
	case p.rows == rows:
	case p.rows == 0:
		parts = append(parts, fmt.Sprintf("preview records left out (%d; see preview_omitted)", c.previews))
	default:
		parts = append(parts, fmt.Sprintf("preview records cut to %d per resource (%d left out; see preview_omitted)", p.rows, c.previews))
	}
	if c.matches > 0 {
		parts = append(parts, fmt.Sprintf("matching resources cut to %d per value (%d left out; see matches_omitted)", p.matches, c.matches))
	}
	if c.values > 0 {
		listed := "listed in omitted_values"
		if c.values > maxListed {
			listed = fmt.Sprintf("the first %d listed in omitted_values", maxListed)
		}
		parts = append(parts, fmt.Sprintf("%s left out (%s)", plural(c.values, "value"), listed))
	}
	var notes []string
	if len(parts) > 0 {
		how := "call search again with fewer values"
		if rows > 0 {
			how += " or a smaller preview_rows"
		}
		notes = append(notes, fmt.Sprintf("Cut to fit the %d-byte answer budget (config mcp_max_bytes): %s. For the rest, %s, pass a smaller limit, or run `tilookup search -o json VALUE` in a terminal for the complete answer.", budget, strings.Join(parts, "; "), how))
	}
	if c.previewRunes > 0 {
		notes = append(notes, fmt.Sprintf("%s in preview records cut to %d characters; the detail_url has them whole.", plural(c.previewRunes, "string"), previewRunes))
	}
	return strings.Join(notes, " ")
}

func renderValue(l looked, p searchPlan, cut *cutCount) searchValue {
	ind := report.Indicator{Value: l.Item.Value, Type: string(l.Type), Resp: l.Resp, Err: l.Err}
	v := searchValue{
		Input:  clean(l.Item.Input, maxString),
		Query:  clean(l.Item.Value, maxString),
		Type:   string(l.Type),
		Status: string(ind.Status()),
	}
	if l.Err != nil {
		v.Error = errorOf(l.Err)
		return v
	}
	resp := l.Resp
	v.DetectedType = clean(resp.DetectedType, maxString)
	v.Strategy = clean(resp.Strategy, maxString)
	v.UnsupportedReason = clean(resp.UnsupportedReason, maxString)
	v.ResourcesMatched = resp.ResultCount() // Results keeps the first api.KeptResults
	keep := len(resp.Results)
	if p.matches >= 0 && keep > p.matches {
		keep = p.matches
	}
	v.MatchesOmitted = resp.ResultCount() - keep
	cut.matches += v.MatchesOmitted
	for _, res := range resp.Results[:keep] {
		v.Matches = append(v.Matches, renderMatch(res, p.rows, cut))
	}
	return v
}

func renderMatch(res api.Result, rows int, cut *cutCount) match {
	m := match{
		Resource:      clean(res.Resource, maxString),
		Label:         clean(res.Label, maxString),
		Group:         clean(res.Group, maxString),
		MatchedColumn: clean(res.MatchedColumn, maxString),
		MatchedValue:  clean(res.MatchedValue, maxString),
		Count:         res.Count,
		DetailURL:     clean(res.DetailURL, maxString),
	}
	keep := min(rows, len(res.Preview))
	m.PreviewOmitted = len(res.Preview) - keep
	cut.previews += m.PreviewOmitted
	ff := freeForm{maxRunes: previewRunes, maxItems: -1}
	for _, rec := range res.Preview[:keep] {
		m.Preview = append(m.Preview, ff.object(rec))
	}
	cut.previewRunes += ff.cutRunes
	return m
}

// errorOf is the error object of a failed value, as search's error
// records have it.
func errorOf(err error) *errorInfo {
	e := &errorInfo{Kind: string(failure.KindOf(err)), Message: toolError(err).Error()}
	var hs interface{ HTTPStatus() int }
	if errors.As(err, &hs) {
		e.Status = hs.HTTPStatus()
	}
	return e
}
