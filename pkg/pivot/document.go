package pivot

import (
	"io"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/report"
)

// Document is the walk as pkg/export's printer layer takes it: the
// drawings of pivot's own formats (Printer), and for the layer's
// printers the nodes as a report (Report), the edges between them
// (Links: a STIX bundle's related-to relationships) and the event of the
// matched ones (MISPRun). o says how a drawing is drawn.
func Document(g *Graph, o RenderOptions) export.Document { return &document{g: g, o: o} }

type document struct {
	g *Graph
	o RenderOptions
}

// drawings are pivot's own printers, each drawing the whole graph; they
// know whether they draw on a terminal (RenderOptions.TTY).
var drawings = []struct {
	name format.Name
	draw func(io.Writer, *Graph, RenderOptions) error
}{
	{format.Table, Tree}, {format.JSON, JSON}, {format.DOT, DOT}, {format.Mermaid, Mermaid}, {format.MD, Markdown}, {format.HTML, HTML},
}

func (d *document) Printer(f format.Name) (export.Printer, bool) {
	for _, dr := range drawings {
		if dr.name == f {
			draw := dr.draw
			return export.Printer{Name: f, Terminal: export.Itself, Write: func(w io.Writer, _ export.Document, _ export.Options) error {
				return draw(w, d.g, d.o)
			}}, true
		}
	}
	return export.Printer{}, false
}

// Report is every node but the skipped ones as an indicator: an
// observable in STIX, and an indicator object for a matched one. A
// not-looked-up node is there with no answer: nothing is claimed about
// it. A skipped node is left out, as in MISP: it is what the user's own
// rules call noise (a private address, an allow-listed value), which must
// not leave in a hand-off document.
func (d *document) Report() *report.Report {
	g := d.g
	r := &report.Report{Title: title(g, RenderOptions{}), Time: d.o.Now, Interrupted: g.Summary.Incomplete}
	for _, n := range g.Nodes {
		if n.Status == Skipped {
			continue
		}
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
	return r
}

// Links are the edges between two nodes of the report, each saying in
// which resource and field the target was found.
func (d *document) Links() []export.Link {
	byID := make(map[string]*Node, len(d.g.Nodes))
	for _, n := range d.g.Nodes {
		if n.Status != Skipped {
			byID[n.ID] = n // a skipped node's edges are left out with it
		}
	}
	links := make([]export.Link, 0, len(d.g.Edges))
	for _, e := range d.g.Edges {
		from, to := byID[e.From], byID[e.To]
		if from == nil || to == nil {
			continue
		}
		links = append(links, export.Link{FromValue: from.Value, FromType: string(from.Type), ToValue: to.Value, ToType: string(to.Type),
			Description: "tilookup pivot: named in the " + e.Resource + " answer for " + from.Value + ", field " + e.Field})
	}
	return links
}

// MISPRun is the event of the matched nodes (mispRun).
func (d *document) MISPRun() export.MISPRun { return mispRun(d.g, d.o.Now) }
