package pivot

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tilookup/tilookup/internal/testenv"
	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/triage"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// hostile is a graph whose service text tries to break out of every
// format: quotes, backslashes, a closing script tag, Markdown and Mermaid
// marks, control characters and a bidirectional override.
func hostile(t *testing.T) *Graph {
	t.Helper()
	evil := "Evil \"label\" \\N </script><script>alert(1)</script> |x| [a](b) #35; `c` \x1b[31m\u202e"
	s := SearcherFunc(func(_ context.Context, v string) (*api.SearchResponse, error) {
		switch v {
		case "198.51.100.7":
			return &api.SearchResponse{Query: v, Results: []api.Result{{
				Resource: "pdns\"]--> x", Label: evil, Count: "3", MatchedValue: v,
				DetailURL: "https://ti.example.com/r?q=198.51.100.7&x=\"<b>",
				Preview:   []map[string]any{{"host": "evil.example.com", "url": "http://evil.example.com/a\"b", "ip": "10.0.0.1"}},
			}}}, nil
		case "evil.example.com":
			return &api.SearchResponse{Query: v, Results: []api.Result{{
				Resource: "feed", Label: "Feed", Count: "1", MatchedValue: v, DetailURL: "javascript:alert(1)",
				Preview: []map[string]any{{"seen_with": "198.51.100.7"}},
			}}}, nil
		}
		return &api.SearchResponse{Query: v, UnsupportedReason: evil}, nil
	})
	g, _ := Walk(context.Background(), s, start("198.51.100.7"), Config{Depth: 2, MaxLookups: 50, Skipper: nil})
	return g
}

// sample is a plain walk: two levels of a fan-out with a budget that runs
// out, so that every status but error and skipped shows.
func sample(t *testing.T) *Graph {
	t.Helper()
	g, _ := Walk(context.Background(), newStub(wide()), start("root.example.com"), Config{Depth: 2, MaxLookups: 14, Concurrency: 2})
	return g
}

var renderers = map[string]func(io_ *bytes.Buffer, g *Graph, o RenderOptions) error{
	"tree":    func(b *bytes.Buffer, g *Graph, o RenderOptions) error { return Tree(b, g, o) },
	"json":    func(b *bytes.Buffer, g *Graph, o RenderOptions) error { return JSON(b, g, o) },
	"dot":     func(b *bytes.Buffer, g *Graph, o RenderOptions) error { return DOT(b, g, o) },
	"mermaid": func(b *bytes.Buffer, g *Graph, o RenderOptions) error { return Mermaid(b, g, o) },
	"md":      func(b *bytes.Buffer, g *Graph, o RenderOptions) error { return Markdown(b, g, o) },
	"html":    func(b *bytes.Buffer, g *Graph, o RenderOptions) error { return HTML(b, g, o) },
}

func render(t *testing.T, format string, g *Graph, o RenderOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := renderers[format](&b, g, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var fixedNow = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// writeDoc writes g in a format of pkg/export's printer layer, as the
// command does.
func writeDoc(b *bytes.Buffer, f format.Name, g *Graph, o export.Options) error {
	return export.WriteDocument(b, false, f, Document(g, RenderOptions{Now: fixedNow}), o)
}

func TestRenderGolden(t *testing.T) {
	graphs := map[string]func(*testing.T) *Graph{"sample": sample, "hostile": hostile}
	for gname, mk := range graphs {
		for format := range renderers {
			if format == "html" {
				continue // the page is tested in a browser (browser_test.go)
			}
			t.Run(gname+"."+format, func(t *testing.T) {
				got := render(t, format, mk(t), RenderOptions{Defang: true, Now: fixedNow})
				path := filepath.Join("testdata", gname+"."+format)
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (go test ./pkg/pivot -update writes it)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from %s (go test ./pkg/pivot -update):\n%s", format, path, got)
				}
			})
		}
	}
}

func TestNoControlCharacters(t *testing.T) {
	g := hostile(t)
	for format := range renderers {
		// JSON on a terminal is escaped; piped it is the data as is.
		out := render(t, format, g, RenderOptions{Defang: true, Now: fixedNow, TTY: true})
		for _, bad := range []string{"\x1b", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q passed through", format, bad)
			}
		}
	}
}

func TestDefang(t *testing.T) {
	g := sample(t)
	for format := range renderers {
		def := render(t, format, g, RenderOptions{Defang: true, Now: fixedNow})
		live := render(t, format, g, RenderOptions{Now: fixedNow})
		if format == "json" {
			if def != live || !strings.Contains(def, `"root.example.com"`) {
				t.Errorf("json must keep values live")
			}
			continue
		}
		want := "h3[.]example[.]com"
		if format == "mermaid" || format == "md" {
			// In Mermaid every bracket is an entity code.
			if !strings.Contains(def, "h3#91;.#93;example") {
				t.Errorf("%s: not defanged", format)
			}
		} else if !strings.Contains(def, want) {
			t.Errorf("%s: %s not defanged", format, want)
		}
		if strings.Contains(live, "[.]") || strings.Contains(live, "#91;.#93;") {
			t.Errorf("%s: defanged without Defang", format)
		}
	}
}

func TestTreeFitsWidth(t *testing.T) {
	for _, g := range []*Graph{sample(t), hostile(t)} {
		for _, width := range []int{40, 80, 120} {
			out := render(t, "tree", g, RenderOptions{Defang: true, Width: width})
			for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if n := utf8.RuneCountInString(line); n > width {
					t.Errorf("width %d: %d runes: %q", width, n, line)
				}
			}
		}
	}
	// a names b and c, b names c again: c is expanded once, under a.
	links := map[string][]string{"a.example.com": {"b.example.com", "c.example.com"}, "b.example.com": {"c.example.com"}, "c.example.com": {"d.example.com"}}
	g, _ := Walk(context.Background(), newStub(links), start("a.example.com"), Config{Depth: 2, MaxLookups: 50})
	out := render(t, "tree", g, RenderOptions{Defang: true})
	if !strings.Contains(out, "│  └─ (also names, shown elsewhere: c[.]example[.]com)") {
		t.Errorf("a node shown already is not marked:\n%s", out)
	}
	if strings.Count(out, "c[.]example[.]com  domain") != 1 || !strings.Contains(out, "   └─ d[.]example[.]com  domain") {
		t.Errorf("a node is expanded twice:\n%s", out)
	}
}

// mermaidLine is what every node and edge line must look like: labels
// quoted, holding nothing but plain characters and entity codes.
var mermaidLine = regexp.MustCompile(`^(flowchart LR|  n[0-9a-f]{16}(\["|\("|\{\{"|\[/"|\(\["|\[\[")[A-Za-z0-9 .,:/@#;<>-]*("\]|"\)|"\}\}|"/\]|"\]\)|"\]\])|  n[0-9a-f]{16} -->\|"[A-Za-z0-9 .,:/@#;-]*"\| n[0-9a-f]{16}|  classDef [a-z_]+ fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6}|  class [n0-9a-f,]+ [a-z_]+)$`)

func TestMermaidEscapes(t *testing.T) {
	out := render(t, "mermaid", hostile(t), RenderOptions{Defang: true})
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !mermaidLine.MatchString(line) {
			t.Errorf("unsafe Mermaid line: %q", line)
		}
		// The only markup allowed in a label is the line break we put.
		if strings.Count(line, "<") != strings.Count(line, "<br/>") {
			t.Errorf("raw '<' in %q", line)
		}
	}
}

func TestHTMLEscapes(t *testing.T) {
	g := hostile(t)
	out := render(t, "html", g, RenderOptions{Defang: true})
	if n, want := strings.Count(out, "</script>"), strings.Count(page, "</script>"); n != want {
		t.Errorf("%d </script> in the page, want the template's %d", n, want)
	}
	for _, bad := range []string{"http://", "https://", "src=", "<link"} {
		if strings.Contains(page, bad) && bad != "http://" {
			t.Errorf("the template refers to %q: it must work offline", bad)
		}
	}
	if regexp.MustCompile(`(?i)<script[^>]+src=|<link[^>]+href=|@import|url\([^#]`).MatchString(page) {
		t.Error("the template loads something from elsewhere")
	}
	_, rest, _ := strings.Cut(out, `<script type="application/json" id="pivot-data">`)
	data, _, _ := strings.Cut(rest, "</script>")
	var d htmlData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatalf("the embedded graph is not JSON: %v", err)
	}
	if len(d.Nodes) != len(g.Nodes) || len(d.Edges) != len(g.Edges) {
		t.Errorf("%d nodes, %d edges embedded; want %d, %d", len(d.Nodes), len(d.Edges), len(g.Nodes), len(g.Edges))
	}
	if !strings.Contains(d.Nodes[0].Resources[0].Label, "</script>") {
		t.Errorf("the label must reach the page intact (as JSON), got %q", d.Nodes[0].Resources[0].Label)
	}
	if !strings.Contains(out, "<title>Pivot from 198[.]51[.]100[.]7</title>") {
		t.Error("no title")
	}
}

// TestDOTGraphviz runs Graphviz on every DOT this package's tests write.
// Locally it skips without dot; under CI=true (where .ci/run installs
// graphviz) a missing dot fails.
func TestDOTGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("dot (Graphviz) is missing: .ci/run installs the graphviz package")
		}
		t.Skip("dot (Graphviz) not installed")
	}
	graphs := map[string]*Graph{"sample": sample(t), "hostile": hostile(t), "empty": {Nodes: []*Node{}, Edges: []Edge{}}}
	for name, g := range graphs {
		for _, defang := range []bool{true, false} {
			src := render(t, "dot", g, RenderOptions{Defang: defang})
			cmd := exec.Command(dot, "-Tsvg")
			cmd.Stdin = strings.NewReader(src)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Errorf("%s: dot -Tsvg: %v %s\n%s", name, err, stderr.String(), src)
				continue
			}
			for _, n := range g.Nodes {
				if !bytes.Contains(out, []byte(n.ID)) {
					t.Errorf("%s: node %s missing from the SVG", name, n.ID)
				}
			}
		}
	}
}

func TestIDsInEveryFormat(t *testing.T) {
	g := sample(t)
	for _, format := range []string{"dot", "mermaid", "json", "html"} {
		out := render(t, format, g, RenderOptions{Defang: true})
		for _, n := range g.Nodes {
			if !strings.Contains(out, n.ID) {
				t.Errorf("%s: no %s", format, n.ID)
			}
		}
	}
	if NodeID(ioc.Domain, "root.example.com") != g.Nodes[0].ID {
		t.Error("node ids are not NodeID")
	}
	_ = fmt.Sprint()
}

func TestSTIXRelationships(t *testing.T) {
	g := sample(t)
	var b bytes.Buffer
	if err := writeDoc(&b, format.STIX, g, export.Options{TLP: "green"}); err != nil {
		t.Fatal(err)
	}
	var bundle struct {
		Objects []struct {
			RelationshipType string `json:"relationship_type"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(b.Bytes(), &bundle); err != nil {
		t.Fatal(err)
	}
	related := 0
	for _, o := range bundle.Objects {
		if o.RelationshipType == "related-to" {
			related++
		}
	}
	// Every node of the sample is a domain, so every edge has observables
	// at both ends.
	if related != len(g.Edges) {
		t.Errorf("%d related-to relationships, want one per edge (%d)", related, len(g.Edges))
	}

	// A walk stopped by Ctrl-C: the bundle ends with the note that says
	// so, as search's and triage's do, naming the relationships too.
	g.Summary.Incomplete = true
	b.Reset()
	if err := writeDoc(&b, format.STIX, g, export.Options{}); err != nil {
		t.Fatal(err)
	}
	var cut struct {
		Objects []struct {
			Type       string   `json:"type"`
			Abstract   string   `json:"abstract"`
			ObjectRefs []string `json:"object_refs"`
		} `json:"objects"`
	}
	if err := json.Unmarshal(b.Bytes(), &cut); err != nil {
		t.Fatal(err)
	}
	last := cut.Objects[len(cut.Objects)-1]
	if last.Type != "note" || !strings.HasPrefix(last.Abstract, "Incomplete") || len(last.ObjectRefs) != len(cut.Objects)-1 {
		t.Errorf("an interrupted walk's bundle does not end with its note naming every object: %+v", last)
	}
}

// TestEveryFormatSaysWhatWasLeftOut: the neighbours an answer named beyond
// the walk's room are counted on their node and in the summary of every
// drawing.
func TestEveryFormatSaysWhatWasLeftOut(t *testing.T) {
	g, _ := Walk(context.Background(), crowd(50), start("a.example.com"), Config{Depth: 1, MaxLookups: 3})
	n := g.Nodes[0]
	if n.LeftOut == 0 {
		t.Fatal("nothing left out")
	}
	note := fmt.Sprintf("%d more named, left out", n.LeftOut)
	for format := range renderers {
		got := render(t, format, g, RenderOptions{Defang: true, Now: fixedNow})
		want := note
		if format == "json" {
			want = fmt.Sprintf(`"left_out":%d`, n.LeftOut)
		}
		// On the node and in the summary (the same number: one answer);
		// a Mermaid chart has no summary.
		if c := strings.Count(got, want); c < 2 && format != "mermaid" || c < 1 {
			t.Errorf("%s: %q %d times, want on the node and in the summary:\n%s", format, want, c, got)
		}
	}
	var b bytes.Buffer
	if err := writeDoc(&b, format.MISP, g, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), note) {
		t.Errorf("misp: no %q in the event's info: %s", note, b.String())
	}
}

// TestSTIXLeavesOutSkipped: a skipped value (private, allow-listed) is
// the user's own noise: no observable, no relationship, as in MISP.
func TestSTIXLeavesOutSkipped(t *testing.T) {
	allow, err := triage.ReadAllowlist(strings.NewReader("ours.example.com\n"), "allow.txt")
	if err != nil {
		t.Fatal(err)
	}
	g, _ := Walk(context.Background(), newStub(map[string][]string{"198.51.100.7": {"10.1.2.3", "ours.example.com", "bad.example.net"}}),
		start("198.51.100.7"), Config{Depth: 1, MaxLookups: 50, Skipper: &triage.Skipper{Noise: true, Allow: allow}})
	var b bytes.Buffer
	if err := writeDoc(&b, format.STIX, g, export.Options{}); err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, n := range g.Nodes {
		if n.Status == Skipped {
			skipped++
			if strings.Contains(b.String(), n.Value) {
				t.Errorf("skipped %s is in the bundle", n.Value)
			}
		}
	}
	if skipped != 2 || !strings.Contains(b.String(), "bad.example.net") {
		t.Fatalf("%d skipped; bundle:\n%s", skipped, b.String())
	}
}

// TestDrawingsSayIncomplete: a walk stopped by Ctrl-C is marked in every
// drawing, as in JSON, Markdown and STIX.
func TestDrawingsSayIncomplete(t *testing.T) {
	g := sample(t)
	g.Summary.Incomplete = true
	for format := range renderers {
		if got := render(t, format, g, RenderOptions{Defang: true, Now: fixedNow}); !strings.Contains(strings.ToLower(got), "incomplete") {
			t.Errorf("%s: not marked incomplete:\n%s", format, got)
		}
	}
}

// TestMermaidWithinLimits: a graph beyond what Mermaid draws by default is
// cut to its first nodes (the nearest), and the chart says how many nodes
// and links were left out; in Markdown too.
func TestMermaidWithinLimits(t *testing.T) {
	testenv.Slow(t, "draws graphs over Mermaid's limits")
	g, _ := Walk(context.Background(), crowd(600), start("a.example.com"), Config{Depth: 1, MaxLookups: 1000})
	if len(g.Edges) <= mermaidMaxEdges {
		t.Fatalf("only %d edges: the test needs more than Mermaid draws", len(g.Edges))
	}
	for _, format := range []string{"mermaid", "md"} {
		got := render(t, format, g, RenderOptions{Defang: true, Now: fixedNow})
		chart := got
		if format == "md" {
			_, chart, _ = strings.Cut(got, "```mermaid\n")
			chart, _, _ = strings.Cut(chart, "```")
		}
		edges := strings.Count(chart, "-->")
		if edges > mermaidMaxEdges || len(chart) > mermaidMaxText {
			t.Errorf("%s: %d edges, %d characters", format, edges, len(chart))
		}
		shown := 0
		for i, n := range g.Nodes {
			if strings.Contains(chart, "  "+n.ID+"(") || strings.Contains(chart, "  "+n.ID+"{") || strings.Contains(chart, "  "+n.ID+"[") {
				if shown != i {
					t.Fatalf("%s: node %d shown after one left out: not the nearest", format, i)
				}
				shown++
			}
		}
		want := fmt.Sprintf("%d indicators and %d links left out", len(g.Nodes)-shown, len(g.Edges)-edges)
		if shown == len(g.Nodes) || !strings.Contains(chart, want) {
			t.Errorf("%s: %d of %d nodes shown; no %q", format, shown, len(g.Nodes), want)
		}
	}
}

// TestTreeFitsCells: the tree is measured in terminal columns, as the
// tables are: CJK characters and emoji take two.
func TestTreeFitsCells(t *testing.T) {
	s := SearcherFunc(func(_ context.Context, v string) (*api.SearchResponse, error) {
		return &api.SearchResponse{Query: v, Results: []api.Result{{Resource: "r", Label: "資料資料資料資料 🙂🙂🙂🙂 資料資料", Count: "1",
			Preview: []map[string]any{{"seen": "http://例え.example.com/日本語日本語日本語日本語日本語日本語/🙂🙂🙂🙂🙂🙂"}}}}}, nil
	})
	g, _ := Walk(context.Background(), s, start("日本語日本語日本語日本語日本語.example.com"), Config{Depth: 1, MaxLookups: 5})
	for _, width := range []int{20, 40, 60} {
		out := render(t, "tree", g, RenderOptions{Defang: true, Width: width})
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if n := cells(line); n > width {
				t.Errorf("width %d: %d columns: %q", width, n, line)
			}
		}
	}
}

// TestTreeSummaryWraps: at a narrow width the summary is wrapped, not cut:
// its end says what the budget left out.
func TestTreeSummaryWraps(t *testing.T) {
	g := sample(t)
	want := fmt.Sprintf("%d not looked up", g.Summary.NotLookedUp)
	for _, width := range []int{40, 80} {
		out := render(t, "tree", g, RenderOptions{Defang: true, Width: width})
		if !strings.Contains(out, want) {
			t.Errorf("width %d: no %q:\n%s", width, want, out)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if n := cells(line); n > width {
				t.Errorf("width %d: %d columns: %q", width, n, line)
			}
		}
	}
}
