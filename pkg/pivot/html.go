package pivot

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html"
	"io"
	"strings"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// page is the HTML document that draws a graph: its own style and script,
// no CDN, no network (a Content-Security-Policy forbids any), so it opens
// offline and from an e-mail attachment alike.
//
//go:embed pivot.html
var page string

// htmlNode is what the page needs of a node: the label as drawn (defanged
// unless asked otherwise) rather than the live value.
type htmlNode struct {
	ID        string         `json:"id"`
	Label     string         `json:"label"`
	Type      string         `json:"type"`
	Depth     int            `json:"depth"`
	Status    Status         `json:"status"`
	Reason    string         `json:"reason,omitempty"`
	Resources []htmlResource `json:"resources"`
	// LeftOut is leftOut(n): what the answer named beyond the kept.
	LeftOut string `json:"left_out,omitempty"`
}

type htmlResource struct {
	Label string `json:"label"`
	Count string `json:"count"`
	URL   string `json:"url"`
}

type htmlData struct {
	Title      string     `json:"title"`
	Summary    string     `json:"summary"`
	Incomplete bool       `json:"incomplete"`
	Nodes      []htmlNode `json:"nodes"`
	Edges      []Edge     `json:"edges"`
}

// HTML writes one self-contained page that draws the graph (see
// pivot.html): nodes coloured by status and shaped by type, edges labelled
// by resource, a legend, and a click on a node shows its matches with
// their detail links.
//
// Every piece of data reaches the page as JSON inside a
// <script type="application/json"> element, read with textContent and
// shown with textContent: no value is ever parsed as HTML. encoding/json
// writes '<', '>' and '&' as \u escapes, so no "</script>" (nor "<!--")
// can end that element early.
func HTML(w io.Writer, g *Graph, o RenderOptions) error {
	d := htmlData{Title: title(g, o), Summary: summaryLine(g), Incomplete: g.Summary.Incomplete,
		Nodes: make([]htmlNode, len(g.Nodes)), Edges: g.Edges}
	for i, n := range g.Nodes {
		// Text is made safe as for a terminal: no bidirectional override
		// or invisible character may make a label read as another.
		hn := htmlNode{ID: n.ID, Label: o.label(n), Type: string(n.Type), Depth: n.Depth, Status: n.Status,
			Reason: sanitize.Line(n.Reason), Resources: []htmlResource{}, LeftOut: leftOut(n)}
		if n.Error != nil {
			hn.Reason = sanitize.Line(n.Error.Message)
		}
		for _, r := range n.Resources {
			hn.Resources = append(hn.Resources, htmlResource{Label: sanitize.Line(r.Label), Count: countOf(r), URL: r.DetailURL})
		}
		d.Nodes[i] = hn
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(d); err != nil {
		return err
	}
	data := strings.TrimSpace(buf.String())
	// SetEscapeHTML leaves '/' alone; "</" is already impossible (no '<'
	// survives), this keeps it so should the encoder ever change.
	data = strings.ReplaceAll(data, "</", `<\/`)
	before, after, _ := strings.Cut(page, "{{DATA}}")
	before = strings.Replace(before, "{{TITLE}}", html.EscapeString(d.Title), 1)
	if _, err := io.WriteString(w, before); err != nil {
		return err
	}
	if _, err := io.WriteString(w, data); err != nil {
		return err
	}
	_, err := io.WriteString(w, after)
	return err
}

// title names the walk by its starting values.
func title(g *Graph, o RenderOptions) string {
	var starts []string
	for _, n := range g.Nodes {
		if n.Depth == 0 {
			starts = append(starts, o.label(n))
		}
	}
	return "Pivot from " + strings.Join(starts, ", ")
}
