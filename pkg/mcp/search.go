package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

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
	Detail      string   `json:"detail,omitempty" jsonschema:"summary: each matched value with its resources and counts only, the smallest answer, for many values or a first look; full: every field and the preview records too, within the budget, for a few values you will act on"`
}

type searchOutput struct {
	Summary   summary       `json:"summary" jsonschema:"counts by status, and the resources that matched the most values"`
	Values    []searchValue `json:"values" jsonschema:"matched values first, then unsupported, failed and no-match ones, each group in the order given"`
	Omitted   *omitted      `json:"omitted,omitempty" jsonschema:"values left out to fit the budget, by status: their count, then as many of them as fit"`
	Truncated string        `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget: what was left out and how to get it"`
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
	Resource       string      `json:"resource,omitempty"`
	Label          string      `json:"label,omitempty"`
	Group          string      `json:"group,omitempty"`
	MatchedColumn  string      `json:"matched_column,omitempty"`
	MatchedValue   string      `json:"matched_value,omitempty"`
	Count          json.Number `json:"count,omitempty" jsonschema:"number of matching records in this resource"`
	DetailURL      string      `json:"detail_url,omitempty" jsonschema:"the service's page with every matching record"`
	Preview        []record    `json:"preview,omitempty" jsonschema:"the first matching records, free-form, fields in the service's order"`
	PreviewOmitted int         `json:"preview_omitted,omitempty" jsonschema:"preview records left out"`
}

type errorInfo struct {
	Kind    string `json:"kind" jsonschema:"usage, input, bad_request, config, auth, forbidden, not_found, rate_limited, server, network, timeout, decode, not_sent or interrupted"`
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
	detailEnum(in, detailFull)
	return &sdk.Tool{
		Name:        "search",
		Title:       "Search indicators",
		Annotations: readOnly("Search indicators", true),
		InputSchema: in,
		Description: `Look up one or more exact values (hash, IP, domain, URL, CVE ID) across every resource of the threat-intelligence service. The answer opens with a summary (matched, no match, unsupported and failed counts; the resources that matched most), then the matched values, each with every matching resource and its count, then the unsupported, failed and no-match ones. Use detail "summary" for many values or a first look (resources and counts only), detail "full" (the default) for a few values you will act on: the service's type and strategy, matched column, detail_url and the first preview_rows preview records. What does not fit the budget is left out in that order (previews, then no-match entries, which are then only counted and named under omitted), never a match before a no-match. Values that fail have an error instead; the others are still answered. Each value costs one request: check doubtful values with detect first, and use triage for a whole report.` + dataWarning,
	}
}

// detailEnum makes the detail property an enum with its default.
func detailEnum(in *jsonschema.Schema, def string) {
	d := in.Properties["detail"]
	d.Enum, d.Default = []any{detailSummary, detailFull}, json.RawMessage(`"`+def+`"`)
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
	rows := in.PreviewRows
	if in.Detail == detailSummary {
		rows = 0
	}
	r := &searchRender{entries: entriesOf(results), rows: rows, budget: t.cfg.MaxBytes, full: in.Detail != detailSummary, tool: "search"}
	r.plan()
	return fit(t.cfg.MaxBytes, len(r.plans), r.filling(), r.bound, func(level int, f filling) searchOutput {
		return r.render(level, f).searchOutput
	})
}

// entry is one value's answer as the server shows it, in the order
// shown: matched first.
type entry struct {
	looked
	status report.Status
	d      *digest // nil when failed
}

// entriesOf reads every answer (bounded, see digest) and orders them by
// status, each status in input order. An answer that cannot be read or
// represented is that value's error.
func entriesOf(results []looked) []entry {
	out := make([]entry, len(results))
	for i, l := range results {
		e := entry{looked: l, d: l.d}
		e.status = indicator(e.Item.Value, string(e.Type), e.d, e.Err).Status()
		out[i] = e
	}
	slices.SortStableFunc(out, func(a, b entry) int { return cmp.Compare(statusRank(a.status), statusRank(b.status)) })
	return out
}

// indicator is the value as the CLI's reports see it, so that statuses
// and totals are decided in one place (report): the answer without what
// a report does not read.
func indicator(value, typ string, d *digest, err error) report.Indicator {
	ind := report.Indicator{Value: value, Type: typ, Err: err}
	if err == nil && d != nil {
		resp := &api.SearchResponse{DetectedType: d.DetectedType, Strategy: d.Strategy, UnsupportedReason: d.UnsupportedReason}
		if d.Count > 0 {
			// ResultCount is what Status reads; one result says "some".
			resp.Results = make([]api.Result, 1)
		}
		ind.Resp = resp
	}
	return ind
}

// looked is one value and its answer: Resp is dropped once read into d
// (nil when Err is set).
type looked struct {
	lookup.Result
	Type ioc.Type
	d    *digest
	// fromURL is the URL in the text whose host this value is (triage).
	fromURL string
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
	err := lookup.Run(ctx, src, lookup.Dedup(t.limited(searcher)), lookup.Options{Concurrency: t.cfg.Concurrency}, sink)
	if err != nil {
		return nil, err
	}
	out := make([]looked, len(sink.got))
	for i, r := range sink.got {
		out[i] = looked{Result: r, Type: r.Item.Type, d: sink.digests[i]}
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
	for _, r := range results {
		if line, ok := lookup.NothingMoreSent(r.Err); ok {
			return fmt.Errorf("all %d values failed; %s", len(results), line)
		}
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

// collect is a lookup.Sink that keeps the results (at most MaxValues),
// each answer read into its digest as it comes and its bytes dropped: a
// call of 100 values holds 100 bounded digests, not 100 answers of up to
// max_response_size each.
type collect struct {
	got     []lookup.Result
	digests []*digest
}

func (c *collect) Add(r lookup.Result) error {
	var d *digest
	if r.Err == nil && r.Resp != nil {
		d, r.Err = digestOf(r.Resp)
	} else if r.Err == nil {
		d = &digest{}
	}
	r.Resp = nil
	c.got = append(c.got, r)
	c.digests = append(c.digests, d)
	return nil
}
func (c *collect) Flush() error { return nil }

// searchPlan is one way to cut an answer: non-matched entries kept,
// preview records per resource, matches compact (resource, label and
// count only), matches per value (-1: all) and matched entries kept.
type searchPlan struct {
	skipped         bool // the skipped list kept (triage)
	others, rows    int
	compact, bare   bool // bare: resource and count only
	noTop           bool // the summary without top_resources
	matches, values int
}

// searchRender renders the answer of search or triage at each level of
// cutting.
type searchRender struct {
	tool      string // search or triage, for the note
	entries   []entry
	skipped   []skippedValue
	notLooked int // triage: indicators beyond the per-call limit
	matched   int // entries[:matched] are the matched ones
	rows      int
	full      bool
	budget    int
	plans     []searchPlan
	sum       summary
}

// plan lists the levels, from the whole answer to counts only. What an
// assistant acts on goes last: first the skipped list and the entries of
// values that did not match (the summary counts them, omitted names them
// and fit adds back as many as the budget allows: names first, then, in
// detail "full", entries), then preview records, then the fields beyond
// resource and count, then matches per value, and only then matched
// values. Detail "summary", once the whole answer does not fit, keeps no
// entry of a value that did not match: its name under omitted says as
// much in a fifth of the bytes.
func (r *searchRender) plan() {
	var digests []*digest
	var rep report.Report
	most := 0
	for _, e := range r.entries {
		if e.status == report.Matched {
			r.matched++
		}
		digests = append(digests, e.d)
		ind := indicator(e.Item.Value, string(e.Type), e.d, e.Err)
		ind.FromURL = e.fromURL
		rep.Indicators = append(rep.Indicators, ind)
		if e.d != nil {
			most = max(most, len(e.d.Results))
		}
	}
	for _, sk := range r.skipped {
		rep.Skipped = append(rep.Skipped, report.Skipped{Value: sk.Value, Type: sk.Type, Reason: sk.Reason, FromURL: sk.FromURL})
	}
	r.sum = summarize(rep.Summarize(), digests)
	r.sum.NotLookedUp = r.notLooked
	all := r.matched
	r.plans = append(r.plans, searchPlan{skipped: true, others: len(r.entries) - r.matched, rows: r.rows, compact: !r.full, matches: -1, values: all})
	for rows := r.rows; rows >= 0; rows-- {
		r.plans = append(r.plans, searchPlan{rows: rows, compact: !r.full, matches: -1, values: all})
	}
	if r.full {
		r.plans = append(r.plans, searchPlan{compact: true, matches: -1, values: all})
	}
	r.plans = append(r.plans, searchPlan{compact: true, bare: true, matches: -1, values: all})
	for k := most - 1; k >= 0; k-- {
		r.plans = append(r.plans, searchPlan{compact: true, bare: true, matches: k, values: all})
	}
	for v := all - 1; v >= 0; v-- {
		r.plans = append(r.plans, searchPlan{compact: true, bare: true, values: v})
	}
	// The last resort: the summary without its resources.
	r.plans = append(r.plans, searchPlan{compact: true, bare: true, values: 0, noTop: true})
}

// bound is what the preview records of a level weigh at least: fit does
// not render a level they alone put over the budget.
func (r *searchRender) bound(level int) int {
	p := r.plans[level]
	if p.compact || p.rows == 0 {
		return 0
	}
	n := 0
	for _, e := range r.entries[:min(p.values, r.matched)] {
		keep := len(e.d.Results)
		if p.matches >= 0 {
			keep = min(keep, p.matches)
		}
		for _, res := range e.d.Results[:keep] {
			for _, size := range res.PreviewSizes[:min(p.rows, len(res.PreviewSizes))] {
				n += size
			}
		}
	}
	return n
}

// filling is the most fit may add to a level: every value named, and in
// detail "full" every entry of a value that did not match kept.
func (r *searchRender) filling() filling {
	f := filling{named: len(r.entries) + len(r.skipped)}
	if r.full {
		f.kept = len(r.entries) - r.matched
	}
	return f
}

// rendered is one level's answer; skipped is triage's.
type rendered struct {
	searchOutput
	skipped []skippedValue
}

func (r *searchRender) render(level int, f filling) rendered {
	p := r.plans[level]
	p.others = max(p.others, f.kept)
	listed := f.named
	var cut cutCount
	out := searchOutput{Summary: r.sum, Values: []searchValue{}}
	skipped := []skippedValue{}
	if p.noTop {
		out.Summary.TopResources = nil
	}
	var left []leftOut
	for i, e := range r.entries {
		kept := i < p.values || (i >= r.matched && i-r.matched < p.others)
		if !kept {
			left = append(left, leftOut{value: e.Item.Input, status: e.status})
			continue
		}
		out.Values = append(out.Values, renderValue(e, p, &cut))
	}
	cut.values = len(left)
	for _, sk := range r.skipped {
		if p.skipped {
			skipped = append(skipped, sk)
		} else {
			left = append(left, leftOut{value: sk.Value, status: "skipped"})
		}
	}
	cut.skipped = len(left) - cut.values
	out.Omitted = omittedOf(left, listed)
	cut.matchedValues = r.matched - min(p.values, r.matched)
	out.Truncated = cut.note(r.tool, r.budget, r.rows, r.full, p)
	if r.notLooked > 0 {
		out.Truncated = strings.TrimSpace(fmt.Sprintf("Only the first %d indicators were looked up; %d more were not: call triage again with the rest of the text. %s", maxTriage, r.notLooked, out.Truncated))
	}
	return rendered{out, skipped}
}

// cutCount is what a plan left out.
type cutCount struct {
	previews, previewRunes, matches, values, matchedValues, skipped int
	compact, bare                                                   bool
}

// note says what the plan cut to fit the budget, and what the fixed
// bounds on preview records cut, with how to get the rest; "" when
// nothing was cut. rows is the preview_rows asked for: fewer is a cut,
// as many is the caller's choice.
func (c cutCount) note(tool string, budget, rows int, full bool, p searchPlan) string {
	var parts []string
	if c.skipped > 0 {
		parts = append(parts, fmt.Sprintf("the %s skipped left out (counted under omitted.skipped)", plural(c.skipped, "value")))
	}
	if c.values > 0 {
		parts = append(parts, fmt.Sprintf("%s left out (counted under omitted, and named there as far as the budget allows)", plural(c.values, "value")))
	}
	switch {
	case p.rows == rows || c.previews == 0:
	case p.rows == 0:
		parts = append(parts, fmt.Sprintf("preview records left out (%d; see preview_omitted)", c.previews))
	default:
		parts = append(parts, fmt.Sprintf("preview records cut to %d per resource (%d left out; see preview_omitted)", p.rows, c.previews))
	}
	switch {
	case c.bare:
		parts = append(parts, "matches cut to resource and count")
	case full && c.compact:
		parts = append(parts, "matches cut to resource, label and count")
	}
	switch {
	case c.matches > 0 && p.matches >= 0:
		parts = append(parts, fmt.Sprintf("matching resources cut to %d per value (%d left out; see matches_omitted)", p.matches, c.matches))
	case c.matches > 0:
		parts = append(parts, fmt.Sprintf("only the first %d matching resources of a value are kept (%d left out; see matches_omitted)", keptResources, c.matches))
	}
	var notes []string
	if len(parts) > 0 {
		how := "call search again with fewer values"
		if c.matchedValues == 0 && c.values > 0 {
			how = "call search again with the values left out"
		}
		if rows > 0 {
			how += ", a smaller preview_rows"
		}
		if full {
			how += `, detail "summary"`
		}
		terminal := "`tilookup search -o json VALUE`"
		if tool == "triage" {
			how = "search the values you need"
			terminal = "`tilookup triage -o json FILE`"
		}
		notes = append(notes, fmt.Sprintf("Cut to fit the %d-byte answer budget (config mcp_max_bytes): %s. For the rest, %s, pass a smaller limit, or run %s in a terminal for the complete answer.", budget, strings.Join(parts, "; "), how, terminal))
	}
	if c.previewRunes > 0 {
		notes = append(notes, fmt.Sprintf("Long strings in preview records are cut to %d characters and long records to %d fields; the detail_url has them whole.", previewRunes, previewFields))
	}
	return strings.Join(notes, " ")
}

func renderValue(e entry, p searchPlan, cut *cutCount) searchValue {
	v := searchValue{
		Input:  clean(e.Item.Input, maxString),
		Query:  clean(e.Item.Value, maxString),
		Type:   string(e.Type),
		Status: string(e.status),
	}
	if e.Err != nil {
		v.Error = errorOf(e.Err)
		return v
	}
	d := e.d
	v.UnsupportedReason = d.UnsupportedReason
	v.ResourcesMatched = d.Count
	if !p.compact {
		v.DetectedType, v.Strategy = d.DetectedType, d.Strategy
	}
	keep := len(d.Results)
	if p.matches >= 0 && keep > p.matches {
		keep = p.matches
	}
	v.MatchesOmitted = d.Count - keep
	cut.matches += v.MatchesOmitted
	for _, res := range d.Results[:keep] {
		v.Matches = append(v.Matches, renderMatch(res, p, cut))
	}
	return v
}

func renderMatch(res digestResult, p searchPlan, cut *cutCount) match {
	m := match{Resource: res.Resource, Label: res.Label, Count: res.Count}
	if p.bare {
		cut.bare = true
		m.Label = ""
		if m.Resource == "" {
			m.Resource = res.Label // the only name it has
		}
	}
	if p.compact {
		cut.compact = true
		return m
	}
	m.Group, m.MatchedColumn, m.MatchedValue, m.DetailURL = res.Group, res.MatchedColumn, res.MatchedValue, res.DetailURL
	keep := min(p.rows, len(res.Preview))
	m.PreviewOmitted = res.PreviewCount - keep
	cut.previews += m.PreviewOmitted
	m.Preview = res.Preview[:keep]
	if keep > 0 && res.PreviewCut {
		cut.previewRunes++
	}
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
