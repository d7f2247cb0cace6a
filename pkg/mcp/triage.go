package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/triage"
)

type triageInput struct {
	Text   string `json:"text" jsonschema:"the report, e-mail or notes to triage, as pasted (text or HTML)"`
	Format string `json:"format,omitempty" jsonschema:"how to read text: auto (HTML when it looks like HTML), text or html"`
	Limit  int    `json:"limit,omitempty" jsonschema:"ask the service for at most this many results per indicator"`
}

type triageOutput struct {
	Summary    triageSummary     `json:"summary"`
	Indicators []triageIndicator `json:"indicators" jsonschema:"the indicators looked up: matched first, then unsupported, failed and no match, each in order of appearance"`
	Skipped    []skippedValue    `json:"skipped" jsonschema:"indicators not looked up, and why"`
	Truncated  string            `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget: what was left out and how to get it"`
}

type triageSummary struct {
	Total       int            `json:"total" jsonschema:"indicators looked up"`
	Matched     int            `json:"matched"`
	NoMatch     int            `json:"no_match"`
	Unsupported int            `json:"unsupported"`
	Failed      int            `json:"failed"`
	Skipped     int            `json:"skipped" jsonschema:"indicators not looked up (private or reserved addresses)"`
	NotLookedUp int            `json:"not_looked_up,omitempty" jsonschema:"indicators beyond the per-call limit, neither looked up nor skipped"`
	ByType      map[string]int `json:"by_type" jsonschema:"indicators looked up, per local type"`
}

type triageIndicator struct {
	Value             string       `json:"value"`
	Type              string       `json:"type"`
	Status            string       `json:"status" jsonschema:"matched, no_match, unsupported or failed"`
	DetectedType      string       `json:"detected_type,omitempty"`
	UnsupportedReason string       `json:"unsupported_reason,omitempty"`
	Error             *errorInfo   `json:"error,omitempty"`
	ResourcesMatched  int          `json:"resources_matched,omitempty"`
	Matches           []briefMatch `json:"matches,omitempty" jsonschema:"the matching resources; search the value for preview records"`
}

type briefMatch struct {
	Label     string      `json:"label,omitempty"`
	Group     string      `json:"group,omitempty"`
	Count     json.Number `json:"count,omitempty"`
	DetailURL string      `json:"detail_url,omitempty"`
}

type skippedValue struct {
	Value  string `json:"value"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// maxTriage bounds the lookups of one triage call.
const maxTriage = MaxValues

func triageTool() *sdk.Tool {
	in := schemaFor[triageInput]()
	in.Properties["limit"].Minimum = new(1.0)
	format := in.Properties["format"]
	format.Enum, format.Default = []any{"auto", "text", "html"}, json.RawMessage(`"auto"`)
	return &sdk.Tool{
		Name:        "triage",
		Annotations: readOnly("Triage a report", true),
		InputSchema: in,
		Description: fmt.Sprintf(`Triage a pasted report, e-mail or notes (text or HTML): extract every indicator of compromise, skip the noise with the reason (private, loopback, link-local, CGNAT, multicast and reserved addresses, and the values of the configured allow-list and MISP warning lists), look the rest up (at most %d per call), and return a summary (counts by status and type), each indicator with its status and matching resources (label, group, count, detail_url), and the skipped values. Matched indicators come first.`, maxTriage) + dataWarning,
	}
}

func (t *tools) triage(ctx context.Context, _ *sdk.CallToolRequest, in triageInput) (*sdk.CallToolResult, triageOutput, error) {
	skipper, err := t.cfg.Skipper()
	if err != nil {
		return nil, triageOutput{}, err
	}
	format, ok := triage.ParseFormat(cmp.Or(in.Format, "auto"))
	if !ok {
		return nil, triageOutput{}, failure.New(failure.Usage, "format %q: want auto, text or html", in.Format)
	}
	found, err := extractFrom(triage.Open(strings.NewReader(in.Text), "", format), nil)
	if err != nil {
		return nil, triageOutput{}, err
	}
	if len(found) == 0 {
		return nil, triageOutput{}, failure.New(failure.Input, "no indicator found in the text (hashes, IP addresses, domains, URLs, CVE IDs, e-mail addresses)")
	}
	var values []string
	var skipped []skippedValue
	for _, f := range found {
		if reason := skipper.Reason(f.Value, ioc.Type(f.Type)); reason != "" {
			skipped = append(skipped, skippedValue{Value: f.Value, Type: f.Type, Reason: clean(reason, maxString)})
			continue
		}
		values = append(values, f.Value)
	}
	notLooked, notLookedFrom := 0, ""
	if len(values) > maxTriage {
		notLooked, notLookedFrom = len(values)-maxTriage, values[maxTriage]
		values = values[:maxTriage]
	}
	var rep report.Report
	if len(values) > 0 {
		results, err := t.lookupAll(ctx, values, in.Limit, false)
		if err != nil {
			return nil, triageOutput{}, err
		}
		for _, r := range results {
			rep.Indicators = append(rep.Indicators, report.Indicator{Value: r.Item.Value, Type: string(r.Type), Resp: r.Resp, Err: r.Err})
		}
	}
	for _, s := range skipped {
		rep.Skipped = append(rep.Skipped, report.Skipped{Value: s.Value, Type: s.Type, Reason: s.Reason})
	}
	r := &triageRender{rep: &rep, notLooked: notLooked, notLookedFrom: clean(notLookedFrom, noteRunes), budget: t.cfg.MaxBytes}
	sum := rep.Summarize()
	return fit(t.cfg.MaxBytes, levelIndicators+sum.Total-sum.NoMatch+1, r.render)
}

// triageRender renders the report at each level of cutting.
type triageRender struct {
	rep           *report.Report
	notLooked     int
	notLookedFrom string
	budget        int
}

// triage levels, each cutting more: the no-match indicators go first (the
// summary counts them), then the skipped list, then the matches of each
// indicator, then indicators from the end.
const (
	levelWhole = iota
	levelNoMatch
	levelSkipped
	levelMatches
	levelIndicators // and beyond: one indicator fewer at each level
)

func (r *triageRender) render(level int) triageOutput {
	sum := r.rep.Summarize()
	out := triageOutput{
		Summary: triageSummary{Total: sum.Total, Matched: sum.Matched, NoMatch: sum.NoMatch, Unsupported: sum.Unsupported,
			Failed: sum.Failed, Skipped: sum.Skipped, NotLookedUp: r.notLooked, ByType: sum.ByType},
		Indicators: []triageIndicator{},
		Skipped:    []skippedValue{},
	}
	inds := slices.Clone(r.rep.Indicators)
	slices.SortStableFunc(inds, func(a, b report.Indicator) int { return cmp.Compare(statusRank(a.Status()), statusRank(b.Status())) })
	var notes []string
	if level >= levelNoMatch {
		before := len(inds)
		inds = slices.DeleteFunc(inds, func(i report.Indicator) bool { return i.Status() == report.NoMatch })
		if n := before - len(inds); n > 0 {
			notes = append(notes, fmt.Sprintf("%s with no match left out (counted in the summary)", plural(n, "indicator")))
		}
	}
	if level < levelSkipped {
		for _, s := range r.rep.Skipped {
			out.Skipped = append(out.Skipped, skippedValue{Value: clean(s.Value, maxString), Type: s.Type, Reason: s.Reason})
		}
	} else if len(r.rep.Skipped) > 0 {
		notes = append(notes, fmt.Sprintf("the %s skipped left out (counted in the summary)", plural(len(r.rep.Skipped), "value")))
	}
	keep := len(inds)
	if level > levelIndicators {
		keep = max(len(inds)-(level-levelIndicators), 0)
		if keep < len(inds) {
			notes = append(notes, fmt.Sprintf("only the first %d of %d indicators shown", keep, len(inds)))
		}
	}
	for _, ind := range inds[:keep] {
		out.Indicators = append(out.Indicators, triageEntry(ind, level < levelMatches))
	}
	if level >= levelMatches && sum.Matched > 0 {
		notes = append(notes, "matching resources left out (resources_matched counts them; search a value for them)")
	}
	if r.notLooked > 0 {
		out.Truncated = fmt.Sprintf("Only the first %d indicators were looked up; %d more (from %s on) were not: call triage again with the rest of the text. ", maxTriage, r.notLooked, r.notLookedFrom)
	}
	if len(notes) > 0 {
		out.Truncated += fmt.Sprintf("Cut to fit the %d-byte answer budget (config mcp_max_bytes): %s. Search the values you need, or run `tilookup triage -o json FILE` in a terminal for the whole report.", r.budget, strings.Join(notes, "; "))
	}
	return out
}

func statusRank(s report.Status) int {
	return slices.Index([]report.Status{report.Matched, report.Unsupported, report.Failed, report.NoMatch}, s)
}

func triageEntry(ind report.Indicator, withMatches bool) triageIndicator {
	e := triageIndicator{Value: clean(ind.Value, maxString), Type: ind.Type, Status: string(ind.Status())}
	if ind.Err != nil {
		e.Error = errorOf(ind.Err)
		return e
	}
	e.DetectedType = clean(ind.Resp.DetectedType, maxString)
	e.UnsupportedReason = clean(ind.Resp.UnsupportedReason, maxString)
	e.ResourcesMatched = ind.Resp.ResultCount()
	if withMatches {
		for _, res := range ind.Resp.Results {
			e.Matches = append(e.Matches, briefMatch{Label: clean(res.Label, maxString), Group: clean(res.Group, maxString), Count: res.Count, DetailURL: clean(res.DetailURL, maxString)})
		}
	}
	return e
}
