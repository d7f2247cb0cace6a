package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/pivot"
)

// maxPivotStarts bounds the values one pivot call starts from.
const maxPivotStarts = 10

// maxPivotLookups bounds max_lookups: a pivot call never costs more
// lookups than a search call may.
const maxPivotLookups = MaxValues

type pivotInput struct {
	Values     []string `json:"values" jsonschema:"the indicators to start from (hashes, addresses, domains, URLs, e-mail addresses, CVE IDs); defanged forms are refanged"`
	Depth      *int     `json:"depth,omitempty" jsonschema:"levels of neighbours to look up: 0 looks up the values only"`
	MaxLookups int      `json:"max_lookups,omitempty" jsonschema:"the most lookups this call may spend, the values included"`
	Limit      int      `json:"limit,omitempty" jsonschema:"ask the service for at most this many results per indicator"`
}

type pivotOutput struct {
	Summary   pivot.Summary `json:"summary"`
	Nodes     []pivotNode   `json:"nodes" jsonschema:"the indicators found, breadth-first; matched ones are kept first when the answer is cut"`
	Edges     []pivot.Edge  `json:"edges" jsonschema:"from, to (node ids), and the resource and preview field of from's answer where to was found"`
	Truncated string        `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget: what was left out"`
}

type pivotNode struct {
	ID        string       `json:"id"`
	Value     string       `json:"value"`
	Type      string       `json:"type"`
	Depth     int          `json:"depth"`
	Status    string       `json:"status" jsonschema:"matched, no_match, unsupported, error, skipped or not_looked_up (the budget ran out)"`
	Reason    string       `json:"reason,omitempty" jsonschema:"why a node was skipped, the service's unsupported reason, or the lookup's error"`
	Resources []briefMatch `json:"resources,omitempty"`
	LeftOut   int          `json:"left_out,omitempty" jsonschema:"how many more indicators this node's answer named than the walk kept (the first max_lookups of those to look up and of those skipped)"`
}

// briefMatch is one resource a node matched, as a pivot answer gives it.
type briefMatch struct {
	Label     string      `json:"label,omitempty"`
	Count     json.Number `json:"count,omitempty"`
	DetailURL string      `json:"detail_url,omitempty"`
}

func pivotTool() *sdk.Tool {
	in := schemaFor[pivotInput]()
	list(in.Properties["values"], 1, maxPivotStarts)
	depth := in.Properties["depth"]
	depth.Minimum, depth.Maximum, depth.Default = new(0.0), new(float64(pivot.MaxDepth)), json.RawMessage(fmt.Sprint(pivot.DefaultDepth))
	budget := in.Properties["max_lookups"]
	budget.Minimum, budget.Maximum, budget.Default = new(1.0), new(float64(maxPivotLookups)), json.RawMessage(fmt.Sprint(pivot.DefaultMaxLookups))
	in.Properties["limit"].Minimum = new(1.0)
	return &sdk.Tool{
		Name:        "pivot",
		Annotations: readOnly("Pivot from indicators to their neighbourhood", true),
		InputSchema: in,
		Description: fmt.Sprintf(`Walk from a few indicators to their neighbourhood: look the values up, take the indicators named in their answers' preview records (the domains a sample contacted, the addresses a domain resolved to, the hashes seen with an address), and look those up in turn, breadth-first, to depth levels (default %d, at most %d). COST: up to max_lookups lookups of the service per call (default %d, at most %d, the values included); each indicator is looked up once, private and reserved addresses and the configured allow-list and warning lists are skipped with a reason, and what the budget leaves out is listed as not_looked_up. Returns the nodes (value, type, depth, status, matching resources with detail_url), the edges (where each neighbour was found: resource and field) and a summary. Use search for a single lookup.`,
			pivot.DefaultDepth, pivot.MaxDepth, pivot.DefaultMaxLookups, maxPivotLookups) + dataWarning,
	}
}

func (t *tools) pivot(ctx context.Context, _ *sdk.CallToolRequest, in pivotInput) (*sdk.CallToolResult, pivotOutput, error) {
	if len(in.Values) == 0 || len(in.Values) > maxPivotStarts {
		return nil, pivotOutput{}, failure.New(failure.Usage, "values: give 1 to %d indicators to start from", maxPivotStarts)
	}
	// Omitted is the default; 0 is a real depth (the values only).
	depth := pivot.DefaultDepth
	if in.Depth != nil {
		depth = *in.Depth
	}
	if depth < 0 || depth > pivot.MaxDepth {
		return nil, pivotOutput{}, failure.New(failure.Usage, "depth %d: want 0 to %d", depth, pivot.MaxDepth)
	}
	budget := cmp.Or(in.MaxLookups, pivot.DefaultMaxLookups)
	if budget < 1 || budget > maxPivotLookups {
		return nil, pivotOutput{}, failure.New(failure.Usage, "max_lookups %d: want 1 to %d", budget, maxPivotLookups)
	}
	var starts []pivot.Start
	for _, v := range in.Values {
		value, typ, err := ioc.Prepare(v, true)
		if err != nil {
			return nil, pivotOutput{}, failure.Wrap(failure.KindOf(err), err, fmt.Sprintf("%q", clean(v, 64)))
		}
		starts = append(starts, pivot.Start{Value: value, Type: typ})
	}
	skipper, err := t.cfg.Skipper()
	if err != nil {
		return nil, pivotOutput{}, err
	}
	s, err := t.cfg.Searcher(in.Limit)
	if err != nil {
		return nil, pivotOutput{}, err
	}
	g, walkErr := pivot.Walk(ctx, lookup.Dedup(t.limited(s)), starts, pivot.Config{
		Depth: depth, MaxLookups: budget, Concurrency: t.cfg.Concurrency, Skipper: skipper,
	})
	// Failed lookups are nodes with their error; only a cancelled call is
	// the call's error.
	if failure.KindOf(walkErr) == failure.Interrupted {
		return nil, pivotOutput{}, walkErr
	}
	r := &pivotRender{g: g, budget: t.cfg.MaxBytes}
	return fit(t.cfg.MaxBytes, levelPivotNodes+len(g.Nodes)+1, filling{}, nil, func(level int, _ filling) pivotOutput { return r.render(level) })
}

type pivotRender struct {
	g      *pivot.Graph
	budget int
}

// pivot levels, each cutting more: the nodes that were not matched go
// first (the summary counts them), then the resources of the matched ones,
// then matched nodes from the end.
const (
	levelPivotWhole = iota
	levelPivotUnmatched
	levelPivotResources
	levelPivotNodes // and beyond: one node fewer at each level
)

func (r *pivotRender) render(level int) pivotOutput {
	out := pivotOutput{Summary: r.g.Summary, Nodes: []pivotNode{}, Edges: []pivot.Edge{}}
	var notes []string
	nodes := r.g.Nodes
	if level >= levelPivotUnmatched {
		var matched []*pivot.Node
		for _, n := range nodes {
			if n.Status == pivot.Matched {
				matched = append(matched, n)
			}
		}
		if cut := len(nodes) - len(matched); cut > 0 {
			notes = append(notes, fmt.Sprintf("%s not matched left out (counted in the summary)", plural(cut, "node")))
		}
		nodes = matched
	}
	if level > levelPivotNodes {
		keep := max(len(nodes)-(level-levelPivotNodes), 0)
		if keep < len(nodes) {
			notes = append(notes, fmt.Sprintf("only the first %d of %d matched nodes shown", keep, len(nodes)))
		}
		nodes = nodes[:keep]
	}
	kept := map[string]bool{}
	for _, n := range nodes {
		kept[n.ID] = true
		pn := pivotNode{ID: n.ID, Value: clean(n.Value, maxString), Type: string(n.Type), Depth: n.Depth,
			Status: string(n.Status), Reason: clean(n.Reason, maxString), LeftOut: n.LeftOut}
		if n.Error != nil {
			pn.Reason = clean(n.Error.Message, maxString)
		}
		if level < levelPivotResources {
			for _, res := range n.Resources {
				pn.Resources = append(pn.Resources, briefMatch{Label: clean(res.Label, maxString), Count: res.Count, DetailURL: clean(res.DetailURL, maxString)})
			}
		}
		out.Nodes = append(out.Nodes, pn)
	}
	if level >= levelPivotResources && r.g.Summary.Matched > 0 {
		notes = append(notes, "matching resources left out (search a value for them)")
	}
	for _, e := range r.g.Edges {
		if kept[e.From] && kept[e.To] {
			out.Edges = append(out.Edges, pivot.Edge{From: e.From, To: e.To, Resource: clean(e.Resource, maxString), Field: clean(e.Field, maxString)})
		}
	}
	if len(out.Edges) < len(r.g.Edges) && level > levelPivotWhole {
		notes = append(notes, "edges to nodes left out are left out too")
	}
	if len(notes) > 0 {
		out.Truncated = fmt.Sprintf("Cut to fit the %d-byte answer budget (config mcp_max_bytes): %s. Pivot from fewer values or with a smaller max_lookups, or run `tilookup pivot -o json VALUE` in a terminal for the whole graph.", r.budget, strings.Join(notes, "; "))
	}
	return out
}
