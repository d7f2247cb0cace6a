package pivot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// RenderOptions say how a graph is drawn.
type RenderOptions struct {
	// Defang indicators in labels (the default: a drawing pasted into a
	// ticket must not turn them into live links). JSON keeps values live.
	Defang bool
	// Width is the terminal's; the tree never exceeds it. 0 = no limit.
	Width int
	// TTY: stdout is a terminal. JSON is then indented, and the characters
	// a terminal would act on are written as \u escapes (the same JSON
	// value), as search does.
	TTY bool
	// Now is the time of the walk, for the Markdown heading, STIX and
	// MISP.
	Now time.Time
}

// label is a node's value as drawings show it: defanged unless asked
// otherwise, on one safe line.
func (o RenderOptions) label(n *Node) string {
	v := n.Value
	if o.Defang {
		v = ioc.Defang(v, n.Type)
	}
	return sanitize.Line(v)
}

// JSON writes the contract's {"nodes", "edges", "summary"}; values live.
func JSON(w io.Writer, g *Graph, o RenderOptions) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !o.TTY {
		return writeAll(w, &b, enc.Encode(g))
	}
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		return err
	}
	_, err := w.Write(sanitize.JSON(b.Bytes()))
	return err
}

func writeAll(w io.Writer, b *bytes.Buffer, err error) error {
	if err != nil {
		return err
	}
	_, err = b.WriteTo(w)
	return err
}

// detail is what a node's status says, in a few words: the resources that
// matched with their counts, or why there is nothing.
func detail(n *Node) string {
	switch n.Status {
	case Matched:
		parts := make([]string, len(n.Resources))
		for i, r := range n.Resources {
			parts[i] = r.Label + " " + countOf(r)
		}
		return strings.Join(parts, ", ")
	case NoMatch:
		return "no match"
	case Unsupported:
		return "unsupported: " + n.Reason
	case Error:
		if n.Error != nil {
			return "error: " + n.Error.Message
		}
		return "error"
	case Skipped:
		return "skipped: " + n.Reason
	case NotLookedUp:
		return "not looked up"
	}
	return string(n.Status)
}

// leftOut says how many more indicators a node's answer named than the
// walk kept (Node.LeftOut), or "" when none.
func leftOut(n *Node) string {
	if n.LeftOut == 0 {
		return ""
	}
	return fmt.Sprintf("… %d more named, left out", n.LeftOut)
}

func countOf(r Resource) string {
	if r.Count == "" {
		return "?"
	}
	return r.Count.String()
}

// Tree writes the terminal view: each start, then what was found from it,
// indented. An indicator is expanded under the one whose answer first named
// it (the walk's breadth-first tree); elsewhere it is one line marked
// "(shown elsewhere)", and a link back to an indicator on the way down is
// left out. Every line fits o.Width (value first, then type, then what
// matched, cut in that order of importance from the end).
func Tree(w io.Writer, g *Graph, o RenderOptions) error {
	bw := bufio.NewWriter(w)
	byID := make(map[string]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		byID[n.ID] = n
	}
	parent := map[string]string{}
	children := map[string][]string{}
	seen := map[[2]string]bool{}
	for _, e := range g.Edges {
		from, to := byID[e.From], byID[e.To]
		if from == nil || to == nil || seen[[2]string{e.From, e.To}] {
			continue
		}
		seen[[2]string{e.From, e.To}] = true
		if _, ok := parent[e.To]; !ok && to.Depth == from.Depth+1 {
			parent[e.To] = e.From
		}
		children[e.From] = append(children[e.From], e.To)
	}
	for _, line := range wrapCells(sanitize.Line(summaryLine(g)), o.Width) {
		fmt.Fprintln(bw, line)
	}
	onPath := map[string]bool{}
	var walk func(n *Node, lead, branch string)
	walk = func(n *Node, lead, branch string) {
		fmt.Fprintln(bw, nodeLine(lead+branch, n, o))
		onPath[n.ID] = true
		defer delete(onPath, n.ID)
		// Children first; the links to indicators shown elsewhere
		// make one closing line, so that they never bury the tree.
		var kids, also []string
		for _, id := range children[n.ID] {
			switch {
			case onPath[id]:
			case parent[id] == n.ID:
				kids = append(kids, id)
			default:
				k := byID[id]
				also = append(also, o.label(k))
			}
		}
		next := lead
		switch branch {
		case "├─ ":
			next += "│  "
		case "└─ ":
			next += "   "
		}
		for i, id := range kids {
			b := "├─ "
			if i == len(kids)-1 && len(also) == 0 && n.LeftOut == 0 {
				b = "└─ "
			}
			walk(byID[id], next, b)
		}
		if len(also) > 0 {
			b := "└─ "
			if n.LeftOut > 0 {
				b = "├─ "
			}
			fmt.Fprintln(bw, treeLine(next+b, "(also names, shown elsewhere: "+strings.Join(also, ", ")+")", o.Width))
		}
		if n.LeftOut > 0 {
			fmt.Fprintln(bw, treeLine(next+"└─ ", leftOut(n), o.Width))
		}
	}
	for _, n := range g.Nodes {
		if n.Depth == 0 {
			walk(n, "", "")
		}
	}
	if g.Summary.Incomplete {
		fmt.Fprintln(bw, treeLine("", incompleteNote, o.Width))
	}
	return bw.Flush()
}

// summaryLine opens every view: how big the graph is and what it cost.
func summaryLine(g *Graph) string {
	s := g.Summary
	parts := []string{}
	for _, c := range []struct {
		n    int
		name string
	}{{s.Matched, "matched"}, {s.NoMatch, "no match"}, {s.Unsupported, "unsupported"}, {s.Error, "failed"},
		{s.Skipped, "skipped"}, {s.NotLookedUp, "not looked up"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.name))
		}
	}
	if s.LeftOut > 0 {
		parts = append(parts, fmt.Sprintf("… %d more named, left out", s.LeftOut))
	}
	return fmt.Sprintf("%s, %s, %d of %d lookups (depth %d): %s",
		counted(s.Nodes, "indicator"), counted(s.Edges, "link"), s.Lookups, s.MaxLookups, s.Depth, strings.Join(parts, ", "))
}

// wrapCells breaks text after its commas into lines of at most width
// columns, the later ones indented, so that the end of the summary (what
// the budget left out) is never cut off; a piece wider than a line is
// cut. 0 = no limit.
func wrapCells(text string, width int) []string {
	if width <= 0 || cells(text) <= width {
		return []string{text}
	}
	var lines []string
	line := ""
	for _, piece := range strings.SplitAfter(text, ", ") {
		if line != "" && cells(line+strings.TrimRight(piece, " ")) > width {
			lines = append(lines, strings.TrimRight(line, " "))
			line = "  "
		}
		line += piece
	}
	lines = append(lines, line)
	for i := range lines {
		lines[i] = fitCells(lines[i], width)
	}
	return lines
}

// counted is "1 link" or "3 links".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// nodeLine is one node of the tree: value, type, then its detail, the
// detail cut first and the value (in its middle) only when nothing else is
// left.
func nodeLine(prefix string, n *Node, o RenderOptions) string {
	head := o.label(n) + "  " + string(n.Type)
	line := head + "  " + sanitize.Line(detail(n))
	if o.Width <= 0 {
		return prefix + line
	}
	room := o.Width - cells(prefix)
	if cells(head) > room {
		return prefix + cutMiddle(o.label(n), room-len(n.Type)-2) + "  " + string(n.Type)
	}
	return prefix + fitCells(line, room)
}

func treeLine(prefix, text string, width int) string {
	text = sanitize.Line(text)
	if width <= 0 {
		return prefix + text
	}
	return prefix + fitCells(text, width-cells(prefix))
}

// statusColour is the fill of a node by status, the same in every drawing.
func statusColour(s Status) string {
	switch s {
	case Matched:
		return "#f4a3a3"
	case NoMatch:
		return "#b9e4b0"
	case Unsupported:
		return "#d9d9d9"
	case Error:
		return "#f7c873"
	case Skipped:
		return "#eeeeee"
	}
	return "#ffffff"
}

// dotShape is a node's outline by type (ioc's type table), as the
// legends tell.
func dotShape(t ioc.Type) string {
	if info, ok := ioc.Info(t); ok {
		return info.Pivot.DOT
	}
	return "oval"
}

// dotString quotes s as a DOT string. In a DOT label a backslash starts
// an escape (\n, \l, \N for the node's name), so each one is doubled;
// line breaks are gone already (sanitize.Line).
func dotString(s string) string { return `"` + dotEscape(s) + `"` }

func dotEscape(s string) string {
	s = sanitize.Line(s)
	s = strings.ReplaceAll(s, `\`, `\\`)
	return strings.ReplaceAll(s, `"`, `\"`)
}

// DOT writes the graph for Graphviz: nodes filled by status and shaped by
// type, edges labelled with the resource whose preview named the target.
func DOT(w io.Writer, g *Graph, o RenderOptions) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph pivot {")
	label := dotEscape(summaryLine(g))
	if g.Summary.Incomplete {
		label += `\n` + dotEscape(incompleteNote)
	}
	fmt.Fprintln(bw, `  graph [rankdir=LR, fontname="Helvetica", fontsize=10, label="`+label+`"];`)
	fmt.Fprintln(bw, `  node [style=filled, fontname="Helvetica", fontsize=10];`)
	fmt.Fprintln(bw, `  edge [fontname="Helvetica", fontsize=8, color="#666666"];`)
	for _, n := range g.Nodes {
		style := "filled"
		if n.Status == NotLookedUp || n.Status == Skipped {
			style = "filled,dashed"
		}
		// Two lines: the value, then its type and status.
		// A third says what the answer named beyond what was kept.
		q := `"` + dotEscape(o.label(n)) + `\n` + dotEscape(string(n.Type)+" · "+string(n.Status))
		if n.LeftOut > 0 {
			q += `\n` + dotEscape(leftOut(n))
		}
		q += `"`
		fmt.Fprintf(bw, "  %s [label=%s, shape=%s, fillcolor=%s, style=%s, tooltip=%s];\n",
			n.ID, q, dotShape(n.Type), dotString(statusColour(n.Status)), dotString(style), dotString(detail(n)))
	}
	for _, e := range g.Edges {
		fmt.Fprintf(bw, "  %s -> %s [label=%s, tooltip=%s];\n", e.From, e.To, dotString(e.Resource), dotString(e.Resource+": "+e.Field))
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// mermaidText escapes s for a quoted Mermaid label: every character but a
// plain few becomes an entity code (#NNN;), so that no quote, bracket,
// pipe, '<' or Markdown mark in a value can end the label or turn into
// markup.
func mermaidText(s string) string {
	var b strings.Builder
	for _, r := range sanitize.Line(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9',
			r == ' ', r == '.', r == ',', r == ':', r == '/', r == '-', r == '@':
			b.WriteRune(r)
		default:
			b.WriteString("#" + strconv.Itoa(int(r)) + ";")
		}
	}
	return b.String()
}

// mermaidShape wraps a label in the outline of a node's type (ioc's type
// table).
func mermaidShape(t ioc.Type, label string) string {
	q := `"` + label + `"`
	if info, ok := ioc.Info(t); ok {
		return info.Pivot.MermaidOpen + q + info.Pivot.MermaidClose
	}
	return "[" + q + "]"
}

// Mermaid writes a flowchart for Markdown renderers (GitHub, GitLab).
func Mermaid(w io.Writer, g *Graph, o RenderOptions) error {
	bw := bufio.NewWriter(w)
	writeMermaid(bw, g, o)
	return bw.Flush()
}

// What Mermaid draws by default (its maxEdges and maxTextSize): beyond
// either, GitHub shows an error box instead of the graph.
const (
	mermaidMaxEdges = 500
	mermaidMaxText  = 50000
)

// incompleteNote marks a drawing of a walk stopped by Ctrl-C.
const incompleteNote = "Incomplete: interrupted before every lookup was made."

// writeMermaid writes the chart within Mermaid's limits: when the whole
// graph is too large, the largest run of its first nodes that fits (the
// nodes are in the order of the walk: by depth, then as found, so these
// are the nearest to the starts), with a note saying how many nodes and
// links were left out.
func writeMermaid(bw *bufio.Writer, g *Graph, o RenderOptions) {
	chart, fits := mermaidChart(g, len(g.Nodes), o)
	if !fits {
		// The largest k whose chart fits lies in [lo, hi).
		lo, hi := 0, len(g.Nodes)
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if _, ok := mermaidChart(g, mid, o); ok {
				lo = mid
			} else {
				hi = mid
			}
		}
		chart, _ = mermaidChart(g, lo, o)
	}
	bw.WriteString(chart)
}

// mermaidChart is the chart of g's first k nodes and the edges between
// them, and whether it is within Mermaid's limits.
func mermaidChart(g *Graph, k int, o RenderOptions) (string, bool) {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	byStatus := map[Status][]string{}
	kept := make(map[string]bool, k)
	for _, n := range g.Nodes[:k] {
		kept[n.ID] = true
		label := mermaidText(o.label(n)) + "<br/>" + mermaidText(string(n.Type))
		if n.LeftOut > 0 {
			label += "<br/>" + mermaidText(leftOut(n))
		}
		fmt.Fprintf(&b, "  %s%s\n", n.ID, mermaidShape(n.Type, label))
		byStatus[n.Status] = append(byStatus[n.Status], n.ID)
	}
	edges := 0
	for _, e := range g.Edges {
		if kept[e.From] && kept[e.To] {
			fmt.Fprintf(&b, "  %s -->|\"%s\"| %s\n", e.From, mermaidText(e.Resource), e.To)
			edges++
		}
	}
	for _, s := range Statuses {
		ids := byStatus[s]
		if len(ids) == 0 {
			continue
		}
		stroke := "#555555"
		fmt.Fprintf(&b, "  classDef %s fill:%s,stroke:%s\n", s, statusColour(s), stroke)
		fmt.Fprintf(&b, "  class %s %s\n", strings.Join(ids, ","), s)
	}
	// A note that the chart is not the whole walk, drawn as a node of its
	// own (a %% comment would not show).
	var notes []string
	if g.Summary.Incomplete {
		notes = append(notes, incompleteNote)
	}
	if k < len(g.Nodes) {
		notes = append(notes, fmt.Sprintf("Cut to what Mermaid draws: the nearest %s shown; %s and %s left out (-o json has them all).",
			counted(k, "indicator"), counted(len(g.Nodes)-k, "indicator"), counted(len(g.Edges)-edges, "link")))
	}
	if len(notes) > 0 {
		parts := make([]string, len(notes))
		for i, n := range notes {
			parts[i] = mermaidText(n)
		}
		fmt.Fprintf(&b, "  pivot_note[\"%s\"]\n", strings.Join(parts, "<br/>"))
	}
	return b.String(), edges <= mermaidMaxEdges && b.Len() <= mermaidMaxText
}

// Markdown writes a document for a ticket: a heading, the summary, a table
// of the indicators and the graph as a Mermaid block (GitHub and GitLab
// draw it).
func Markdown(w io.Writer, g *Graph, o RenderOptions) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", export.MarkdownText(title(g, o), false))
	fmt.Fprintf(bw, "%s. Looked up with tilookup on %s.\n", export.MarkdownText(summaryLine(g), false), o.Now.UTC().Format("2006-01-02 15:04 UTC"))
	if g.Summary.Incomplete {
		fmt.Fprintln(bw, "\n**Incomplete**: the walk was interrupted before every lookup was made.")
	}
	fmt.Fprintln(bw, "\n| Indicator | Type | Depth | Status | Resources |")
	fmt.Fprintln(bw, "| --- | --- | ---: | --- | --- |")
	for _, n := range g.Nodes {
		var what string
		if n.Status == Matched {
			parts := make([]string, len(n.Resources))
			for i, r := range n.Resources {
				parts[i] = export.MarkdownLink(export.MarkdownText(r.Label, true), r.DetailURL) + " " + countOf(r)
			}
			what = strings.Join(parts, ", ")
		} else {
			what = export.MarkdownText(detail(n), true)
		}
		if n.LeftOut > 0 {
			what += "; " + export.MarkdownText(leftOut(n), true)
		}
		fmt.Fprintf(bw, "| %s | %s | %d | %s | %s |\n", export.MarkdownCode(o.label(n), true), n.Type, n.Depth,
			strings.ReplaceAll(string(n.Status), "_", `\_`), what)
	}
	fmt.Fprintln(bw, "\n```mermaid")
	writeMermaid(bw, g, o)
	fmt.Fprintln(bw, "```")
	return bw.Flush()
}
