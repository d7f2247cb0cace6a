package pivot

import (
	"io"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/report"
)

// STIX writes the graph as one STIX 2.1 bundle (pkg/export's rules: an
// observable per indicator, an indicator object per matched one, o.TLP's
// marking) with a related-to relationship between the observables of
// each edge, saying in which resource and field the target was found.
// A not-looked-up node gets an observable and its relationships, but no
// indicator: nothing is claimed about it. A skipped node gets nothing, as
// in MISP: it is what the user's own rules call noise (a private address,
// an allow-listed value), which must not leave in a hand-off document.
func STIX(w io.Writer, g *Graph, o RenderOptions) error {
	r := &report.Report{Title: title(g, RenderOptions{}), Time: o.Now, Interrupted: g.Summary.Incomplete}
	byID := make(map[string]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		if n.Status == Skipped {
			continue // nor its edges: byID lacks it
		}
		byID[n.ID] = n
		resp := &api.SearchResponse{Query: n.Value}
		if n.Status == Unsupported {
			resp.UnsupportedReason = n.Reason
		}
		for _, res := range n.Resources {
			resp.Results = append(resp.Results, api.Result{Resource: res.Resource, Label: res.Label, Count: res.Count,
				MatchedColumn: res.MatchedColumn, MatchedValue: n.Value, DetailURL: res.DetailURL})
		}
		// A failed lookup is left as an observable: its error is no fact
		// about the indicator.
		r.Indicators = append(r.Indicators, report.Indicator{Value: n.Value, Type: string(n.Type), Resp: resp})
	}
	links := make([]export.Link, 0, len(g.Edges))
	for _, e := range g.Edges {
		from, to := byID[e.From], byID[e.To]
		if from == nil || to == nil {
			continue
		}
		links = append(links, export.Link{FromValue: from.Value, FromType: string(from.Type), ToValue: to.Value, ToType: string(to.Type),
			Description: "tilookup pivot: named in the " + e.Resource + " answer for " + from.Value + ", field " + e.Field})
	}
	return export.STIXLinked(w, r, links, export.STIXOptions{TLP: o.TLP})
}
