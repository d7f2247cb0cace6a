package pivot

import (
	"fmt"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/export"
)

// mispRun is the event of a graph. Only matched nodes are findings: a
// skipped node is what the user's own rules call noise (a private address,
// an allow-listed or warning-listed value), and a node that did not match,
// failed or was never looked up is nothing found; none of them belongs in
// an event others may act on.
//
// An edge is kept when both its ends are matched, and then named in the
// comments of both attributes: every value a comment names is itself an
// attribute of the event, so a MISP user can follow it there, and a
// skipped value never leaks into the event through a comment. MISP has
// no reference between two plain attributes (README, "Hand-off
// documents"), hence comments.
func mispRun(g *Graph, now time.Time) export.MISPRun {
	byID := make(map[string]*Node, len(g.Nodes))
	index := map[string]int{} // node id -> index in run.Findings
	run := export.MISPRun{What: mispWhat(g), Time: now, Interrupted: g.Summary.Incomplete}
	for _, n := range g.Nodes {
		byID[n.ID] = n
		if n.Status != Matched {
			continue
		}
		f := export.Finding{Value: n.Value, Type: n.Type}
		for _, res := range n.Resources {
			f.Matches = append(f.Matches, api.Result{Resource: res.Resource, Label: res.Label, Count: res.Count,
				MatchedColumn: res.MatchedColumn, MatchedValue: n.Value, DetailURL: res.DetailURL})
		}
		index[n.ID] = len(run.Findings)
		run.Findings = append(run.Findings, f)
	}
	for _, e := range g.Edges {
		fi, okFrom := index[e.From]
		ti, okTo := index[e.To]
		if !okFrom || !okTo {
			continue
		}
		from, to := byID[e.From], byID[e.To]
		res := resourceLabel(from, e.Resource)
		there, back := fmt.Sprintf("in the preview of %s, field %s", res, e.Field), fmt.Sprintf("whose preview of %s names this value, field %s", res, e.Field)
		if e.Field == "matched_value" {
			there, back = "in the matched value of "+res, "whose matched value of "+res+" names this value"
		}
		run.Findings[fi].Related = append(run.Findings[fi].Related, export.Relation{Value: to.Value, Note: there})
		run.Findings[ti].Related = append(run.Findings[ti].Related, export.Relation{Value: from.Value, Note: back})
	}
	return run
}

// resourceLabel is the label of the resource of n's answer whose id is
// resource ("Sandbox reports", not "sandbox_reports"), or the id when the
// answer gave none.
func resourceLabel(n *Node, resource string) string {
	for _, r := range n.Resources {
		if r.Resource == resource && r.Label != "" {
			return r.Label
		}
	}
	return resource
}

// mispWhat is the event's subject: "Pivot from VALUE, VALUE, depth N",
// the values live (an event is data for MISP, not a drawing).
func mispWhat(g *Graph) string {
	var starts []string
	for _, n := range g.Nodes {
		if n.Depth == 0 {
			starts = append(starts, n.Value)
		}
	}
	what := fmt.Sprintf("Pivot from %s, depth %d", strings.Join(starts, ", "), g.Summary.Depth)
	if g.Summary.LeftOut > 0 {
		what += fmt.Sprintf(", … %d more named, left out", g.Summary.LeftOut)
	}
	return what
}
