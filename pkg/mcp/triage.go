package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/triage"
)

type triageInput struct {
	Text   string `json:"text" jsonschema:"the report, e-mail or notes to triage, as pasted (text or HTML)"`
	Format string `json:"format,omitempty" jsonschema:"how to read text: auto (HTML when it looks like HTML), text or html"`
	Limit  int    `json:"limit,omitempty" jsonschema:"ask the service for at most this many results per indicator"`
	Detail string `json:"detail,omitempty" jsonschema:"summary: each matched indicator with its resources and counts only, the default and the right choice for a whole report; full: group, detail_url and the first preview record of each matching resource too, within the budget, for a short text whose matches you will act on"`
}

type triageOutput struct {
	Summary     summary           `json:"summary" jsonschema:"counts by status (total as the CLI counts it: looked up plus skipped) and type, and the resources that matched the most indicators"`
	Indicators  []triageIndicator `json:"indicators" jsonschema:"the indicators looked up: matched first, then unsupported, failed and no match, each in order of appearance"`
	Skipped     []skippedValue    `json:"skipped" jsonschema:"indicators not looked up, and why"`
	Omitted     *omitted          `json:"omitted,omitempty" jsonschema:"indicators left out to fit the budget, by status: their count, then as many of them as fit"`
	NotLookedUp *omittedGroup     `json:"not_looked_up,omitempty" jsonschema:"indicators beyond the per-call limit, neither looked up nor skipped: their count and the first of them (long ones shortened); call triage again with the text from the first of them"`
	Truncated   string            `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget: what was left out and how to get it"`
}

type triageIndicator struct {
	Value             string     `json:"value"`
	Type              string     `json:"type"`
	Status            string     `json:"status" jsonschema:"matched, no_match, unsupported or failed"`
	DetectedType      string     `json:"detected_type,omitempty"`
	UnsupportedReason string     `json:"unsupported_reason,omitempty"`
	Error             *errorInfo `json:"error,omitempty"`
	ResourcesMatched  int        `json:"resources_matched,omitempty"`
	Matches           []match    `json:"matches,omitempty" jsonschema:"the matching resources; search the value for more preview records"`
	MatchesOmitted    int        `json:"matches_omitted,omitempty" jsonschema:"matching resources left out to fit the budget"`
	FromURL           string     `json:"from_url,omitempty" jsonschema:"the URL in the text whose host this value is"`
	Warninglists      []string   `json:"warninglists,omitempty" jsonschema:"the MISP warning lists of address ranges (hosting, cloud, VPN) that hold this value: looked up all the same, since attackers rent such addresses"`
}

type skippedValue struct {
	Value   string `json:"value"`
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	FromURL string `json:"from_url,omitempty" jsonschema:"the URL in the text whose host this value is"`
}

// maxTriage bounds the lookups of one triage call.
const maxTriage = MaxValues

func triageTool() *sdk.Tool {
	in := schemaFor[triageInput]()
	in.Properties["limit"].Minimum = new(1.0)
	format := in.Properties["format"]
	format.Enum, format.Default = []any{"auto", "text", "html"}, json.RawMessage(`"auto"`)
	detailEnum(in, detailSummary)
	return &sdk.Tool{
		Name:        "triage",
		Title:       "Triage a report",
		Annotations: readOnly("Triage a report", true),
		InputSchema: in,
		Description: fmt.Sprintf(`Triage a pasted report, e-mail or notes (text or HTML): extract every indicator of compromise (and the host of each URL, with from_url naming the URL), skip the noise with the reason (private, loopback, link-local, CGNAT, multicast and reserved addresses; special-use and private-use names such as .local, .internal, home.arpa and .corp, and the e-mail addresses and URLs at them; and the values of the configured allow-list and MISP warning lists), look the rest up (at most %d per call; those beyond are counted and the first of them named under not_looked_up). The answer opens with a summary (total, matched, no match, unsupported, failed and skipped counts, by type, and the resources that matched most), then the matched indicators with their resources and counts, then the unsupported, failed and no-match ones, then the skipped values. Use detail "summary" (the default) for a whole report; detail "full" adds group, detail_url and one preview record per resource, for a short text whose matches you will act on. What does not fit the budget is left out from the end (skipped list, no-match, failed and unsupported entries, then previews), counted and named under omitted; matched indicators go last.`, maxTriage) + dataWarning,
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
	// The CLI's triage reads a report the same way (triage.Scan): each
	// URL's host is looked up too, and the same noise is skipped.
	var values, fromURLs []string
	var marks [][]string
	var skipped []skippedValue
	found := 0
	err = triage.Scan(triage.Open(strings.NewReader(in.Text), "", format, nil), triage.ScanOptions{Skip: skipper}, func(f triage.Found) error {
		found++
		if f.Skip != "" {
			skipped = append(skipped, skippedValue{Value: clean(f.Value, maxString), Type: string(f.Type), Reason: clean(f.Skip, maxString), FromURL: clean(f.FromURL, maxString)})
			return nil
		}
		values = append(values, f.Value)
		fromURLs = append(fromURLs, f.FromURL)
		marks = append(marks, f.Warninglists)
		return nil
	})
	if err != nil {
		return nil, triageOutput{}, err
	}
	if found == 0 {
		return nil, triageOutput{}, failure.New(failure.Input, "no indicator found in the text (hashes, IP addresses, domains, URLs, CVE IDs, e-mail addresses)")
	}
	notLooked := notLookedUp(values)
	if len(values) > maxTriage {
		values, fromURLs, marks = values[:maxTriage], fromURLs[:maxTriage], marks[:maxTriage]
	}
	var results []looked
	if len(values) > 0 {
		if results, err = t.lookupAll(ctx, values, in.Limit, false); err != nil {
			return nil, triageOutput{}, err
		}
	}
	// lookupAll answers in input order.
	fromURL := map[string]string{}
	onLists := map[string][]string{}
	for i := range results {
		results[i].fromURL = fromURLs[i]
		if fromURLs[i] != "" {
			fromURL[clean(results[i].Item.Input, maxString)] = clean(fromURLs[i], maxString)
		}
		if len(marks[i]) > 0 {
			onLists[clean(results[i].Item.Input, maxString)] = marks[i]
		}
	}
	rows := 0
	if in.Detail == detailFull {
		rows = 1
	}
	r := &searchRender{tool: "triage", entries: entriesOf(results), skipped: skipped, notLooked: notLooked.count(), rows: rows, full: in.Detail == detailFull, budget: t.cfg.MaxBytes}
	r.plan()
	return fit(t.cfg.MaxBytes, len(r.plans), r.filling(), r.bound, func(level int, f filling) triageOutput {
		got := r.render(level, f)
		out := triageOutput{Summary: got.Summary, Indicators: make([]triageIndicator, 0, len(got.Values)), Skipped: got.skipped, Omitted: got.Omitted,
			NotLookedUp: notLooked, Truncated: got.Truncated}
		for _, v := range got.Values {
			out.Indicators = append(out.Indicators, triageIndicator{Value: v.Query, Type: v.Type, Status: v.Status, DetectedType: v.DetectedType,
				UnsupportedReason: v.UnsupportedReason, Error: v.Error, ResourcesMatched: v.ResourcesMatched, Matches: v.Matches, MatchesOmitted: v.MatchesOmitted,
				FromURL: fromURL[v.Input], Warninglists: onLists[v.Input]})
		}
		return out
	})
}

// notLookedUp names the values beyond the per-call limit, nil when there
// are none: their count, and the first maxListed of them cut to noteRunes,
// as every list of what an answer left out, so that the smallest answer
// still fits the smallest budget.
func notLookedUp(values []string) *omittedGroup {
	if len(values) <= maxTriage {
		return nil
	}
	rest := values[maxTriage:]
	g := &omittedGroup{Count: len(rest)}
	for _, v := range rest[:min(len(rest), maxListed)] {
		g.Values = append(g.Values, clean(v, noteRunes))
	}
	return g
}

func (g *omittedGroup) count() int {
	if g == nil {
		return 0
	}
	return g.Count
}
