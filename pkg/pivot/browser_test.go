package pivot

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/triage"
)

// chromium finds a headless-capable Chromium. The browser tests run under
// CI=true, where a missing browser fails them (.ci/run installs Debian's
// chromium and .ci/pivot-browser.sh runs them by name). Elsewhere they
// skip: two browser starts cost seconds of CPU that `go test ./...` on a
// two-core machine cannot spare.
func chromium(t *testing.T) string {
	t.Helper()
	if os.Getenv("CI") != "true" {
		t.Skip("the browser tests run under CI=true (.ci/pivot-browser.sh)")
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is missing: .ci/run installs the chromium package")
	return ""
}

// runBrowser runs headless Chromium on a local file with the flags that
// keep it off the network and out of the user's profile.
func runBrowser(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,800"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// thirty is a 30-node walk with every type and every status but error.
func thirty(t *testing.T) *Graph {
	t.Helper()
	links := map[string][]string{"44d88612fea8a8f36de82e1278abb02f": {
		"c2.example.org", "198.51.100.7", "2001:db8::7", "https://drop.example.net/a?b=1&c=<2>", "ops@mail.example.com",
		"CVE-2021-44228", "10.1.2.3", "3395856ce81f2b7382dee72602f798b642f14140",
	}}
	for i := range 5 {
		links["c2.example.org"] = append(links["c2.example.org"], fmt.Sprintf("relay%d.example.org", i))
		links["198.51.100.7"] = append(links["198.51.100.7"], fmt.Sprintf("files%d.example.com", i))
	}
	for i := range 11 {
		links["2001:db8::7"] = append(links["2001:db8::7"], fmt.Sprintf("203.0.113.%d", 10+i))
	}
	s := newStub(links)
	unsupported := SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		if strings.HasPrefix(v, "CVE-") {
			return &api.SearchResponse{Query: v, UnsupportedReason: "no CVE resources"}, nil
		}
		return s.Search(ctx, v)
	})
	g, _ := Walk(context.Background(), unsupported, start("44d88612fea8a8f36de82e1278abb02f"),
		Config{Depth: 2, MaxLookups: 20, Concurrency: 4, Skipper: &triage.Skipper{Noise: true}})
	if len(g.Nodes) != 30 {
		t.Fatalf("the fixture has %d nodes, want 30", len(g.Nodes))
	}
	return g
}

func writePage(t *testing.T, g *Graph) string {
	t.Helper()
	var b bytes.Buffer
	if err := HTML(&b, g, RenderOptions{Defang: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pivot.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHTMLInBrowserShowsEveryLabel(t *testing.T) {
	bin := chromium(t)
	g := thirty(t)
	page := writePage(t, g)
	dom := string(runBrowser(t, bin, "--dump-dom", "file://"+page))
	if !strings.Contains(dom, `class="node"`) {
		t.Fatalf("the script drew nothing (%d bytes of DOM, no node)", len(dom))
	}
	o := RenderOptions{Defang: true}
	for _, n := range g.Nodes {
		// The full label is the node's tooltip (<title>); the text under
		// the shape may be shortened.
		if want := "<title>" + html.EscapeString(o.label(n)) + " ("; !strings.Contains(dom, want) {
			t.Errorf("no %q in the rendered page", want)
		}
	}
	if got := strings.Count(dom, `class="node"`); got != len(g.Nodes) {
		t.Errorf("%d nodes drawn, want %d", got, len(g.Nodes))
	}
	if got := strings.Count(dom, `class="edge"`); got != len(g.Edges) {
		t.Errorf("%d edges drawn, want %d", got, len(g.Edges))
	}
}

func TestHTMLInBrowserDraws(t *testing.T) {
	bin := chromium(t)
	page := writePage(t, thirty(t))
	shot := filepath.Join(t.TempDir(), "shot.png")
	runBrowser(t, bin, "--screenshot="+shot, "--hide-scrollbars", "file://"+page)
	checkDrawing(t, shot)
}

// checkDrawing fails unless the PNG is a drawing: mostly background, but
// with a real share of other pixels, the fills of matched and no-match
// nodes among them.
func checkDrawing(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	total, ink := 0, 0
	fills := map[string]int{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			total++
			c := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, bl>>8)
			if c != "#ffffff" {
				ink++
			}
			fills[c]++
		}
	}
	if share := float64(ink) / float64(total); share < 0.03 {
		t.Errorf("only %.1f%% of the screenshot is not white: a blank page", share*100)
	}
	for _, s := range []Status{Matched, NoMatch} {
		if fills[statusColour(s)] < 20 {
			t.Errorf("no %s fill (%s) in the screenshot", s, statusColour(s))
		}
	}
}

// labelCheck is what testdata/labelcheck.js, run in the page after its
// own script, measured of the node labels as the browser drew them.
type labelCheck struct {
	nodes, visible, overlaps int
	first                    string
	labelled                 map[string]bool // node IDs
	ms                       float64
}

// checkLabels opens page with labelcheck.js appended and reads its
// measurements from the dumped DOM.
func checkLabels(t *testing.T, bin, page string) labelCheck {
	t.Helper()
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join("testdata", "labelcheck.js"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(src, []byte("</body>"))
	checked := filepath.Join(t.TempDir(), "checked.html")
	doc := append(append(append([]byte{}, src[:i]...), "<script>"+string(js)+"</script>\n"...), src[i:]...)
	if err := os.WriteFile(checked, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runBrowser(t, bin, "--dump-dom", "file://"+checked))
	_, div, ok := strings.Cut(dom, `<div id="label-check"`)
	if !ok {
		t.Fatalf("labelcheck.js wrote nothing: the page's script failed (%d bytes of DOM)", len(dom))
	}
	div, _, _ = strings.Cut(div, ">")
	attr := func(name string) string {
		_, v, _ := strings.Cut(div, name+`="`)
		v, _, _ = strings.Cut(v, `"`)
		return html.UnescapeString(v)
	}
	var c labelCheck
	if _, err := fmt.Sscan(attr("data-nodes"), &c.nodes); err != nil {
		t.Fatalf("data-nodes: %v in %s", err, div)
	}
	fmt.Sscan(attr("data-visible"), &c.visible)
	fmt.Sscan(attr("data-overlaps"), &c.overlaps)
	fmt.Sscan(attr("data-ms"), &c.ms)
	c.first = attr("data-first")
	c.labelled = map[string]bool{}
	for _, id := range strings.Fields(attr("data-labelled")) {
		c.labelled[id] = true
	}
	return c
}

// TestHTMLInBrowserLabelsDoNotOverlap: in dense clusters (bench/pivot's
// graph, where every node names ten neighbours: hubs with their leaves
// crowded around them, and the 30-node walk) no two labels drawn
// intersect, and the labels a reader looks for are drawn: every start and
// every hub's (hiding them all would pass the first check and help no
// one), and most of the rest where there is room.
func TestHTMLInBrowserLabelsDoNotOverlap(t *testing.T) {
	bin := chromium(t)
	walk := func(lookups int) *Graph {
		g, _ := Walk(context.Background(), benchSearcher(), start("n0.example.com"),
			Config{Depth: 3, MaxLookups: lookups, Concurrency: 4})
		return g
	}
	for _, tc := range []struct {
		name     string
		g        *Graph
		minShare float64 // of the labels that must be drawn
	}{
		{"30-node walk", thirty(t), 0.9},
		{"11 hubs", walk(11), 0.8},
		{"111 hubs", walk(111), 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := checkLabels(t, bin, writePage(t, tc.g))
			t.Logf("%d nodes, %d labels drawn, %d overlapping pairs, page script %.0f ms", c.nodes, c.visible, c.overlaps, c.ms)
			if c.nodes != len(tc.g.Nodes) {
				t.Fatalf("%d nodes drawn, want %d", c.nodes, len(tc.g.Nodes))
			}
			if c.overlaps > 0 {
				t.Errorf("%d pairs of labels overlap, the first: %s", c.overlaps, c.first)
			}
			degree := map[string]int{}
			for _, e := range tc.g.Edges {
				degree[e.From]++
				degree[e.To]++
			}
			for _, n := range tc.g.Nodes {
				if (n.Depth == 0 || degree[n.ID] > 2) && !c.labelled[n.ID] {
					t.Errorf("%s (depth %d, %d edges) has no label", n.Value, n.Depth, degree[n.ID])
				}
			}
			if share := float64(c.visible) / float64(c.nodes); share < tc.minShare {
				t.Errorf("only %d of %d labels drawn, want %.0f%% at least", c.visible, c.nodes, tc.minShare*100)
			}
		})
	}
}
