package export

import (
	"bytes"
	"html"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// renderGFM renders doc with cmark-gfm, the renderer GitHub's own Markdown
// is built on, with GitHub's extensions (tables, autolinks,
// strikethrough, the HTML tag filter).
func renderGFM(t *testing.T, doc string) string {
	t.Helper()
	bin, err := exec.LookPath("cmark-gfm")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("cmark-gfm is not installed: CI must render the Markdown with it (.ci/run installs it)")
		}
		t.Skip("cmark-gfm not installed (apt-get install cmark-gfm): rendering not checked")
	}
	cmd := exec.Command(bin, "-e", "table", "-e", "autolink", "-e", "strikethrough", "-e", "tagfilter")
	cmd.Stdin = strings.NewReader(doc)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	return out.String()
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
	tagRE  = regexp.MustCompile(`<[a-zA-Z/][^>]*>`)
	hrefRE = regexp.MustCompile(`<a href="([^"]*)"`)
)

// TestMarkdownRendersSafely renders the golden documents as GitHub would:
// every row has its 5 cells, the only links are the service's, and no
// image or HTML from the data survives.
func TestMarkdownRendersSafely(t *testing.T) {
	for name, mk := range map[string]func(*testing.T) *report.Report{"one": oneValue, "several": severalValues, "triage": triageRun} {
		out := renderGFM(t, markdown(t, mk(t), true))
		for _, row := range rowRE.FindAllStringSubmatch(out, -1) {
			if n := len(cellRE.FindAllString(row[1], -1)); n != 5 {
				t.Errorf("%s: a row of %d cells: %s", name, n, row[1])
			}
		}
		for _, tag := range []string{"<img", "<script", "<b>", "<strong>bold", "<em>", "<del>"} {
			if strings.Contains(out, tag) {
				t.Errorf("%s: %s made it into the page:\n%s", name, tag, out)
			}
		}
		for _, href := range hrefRE.FindAllStringSubmatch(out, -1) {
			if !strings.HasPrefix(href[1], "https://ti.example/") {
				t.Errorf("%s: a link to %s", name, href[1])
			}
		}
	}
	if links := hrefRE.FindAllString(renderGFM(t, markdown(t, triageRun(t), true)), -1); len(links) != 2 {
		t.Errorf("triage: %d links, want the 2 valid detail_urls", len(links))
	}
}

// TestMarkdownCellsRoundTrip checks that escaping loses nothing: each
// hostile string, put in a table cell and a list item, renders as exactly
// its text (sanitized), with no markup at all.
func TestMarkdownCellsRoundTrip(t *testing.T) {
	hostile := []string{
		hostileLabel, "a | b", `a \| b`, `a \\| b`, `trailing\`, "`code` and ``more``",
		"![x](http://attacker.example/p.png)", "<script>alert(1)</script>", "[a](javascript:alert(1))",
		"**b** _i_ ~~s~~ *e*", "&lt;&amp;&#65;&#x41;", "www.evil.example", "WWW.EVIL.EXAMPLE",
		"http://evil.example/x", "see https://evil.example.", "user@evil.example", "<http://evil.example>",
		"$x^2$", "#1 @here", "line\nbreak\r\nand\ttab", "| --- |", "\\*not em\\*", "x <!-- c --> y",
		"[ref]: http://evil.example", "日本語 ünïcödé", "a\u200bb",
	}
	for _, h := range hostile {
		r := &report.Report{Title: h, Time: lookedUp, Indicators: []report.Indicator{
			{Value: "198.51.100.7", Type: "ipv4", Resp: decode(t, `{"results":[{"resource":"r","label":`+jcsString(h)+`,"group":`+jcsString(h)+`,"count":1}]}`)},
		}, Skipped: []report.Skipped{{Value: "10.0.0.1", Type: "ipv4", Reason: h}}}
		out := renderGFM(t, markdown(t, r, true))
		want := sanitize.String(h)
		rows := rowRE.FindAllStringSubmatch(out, -1)
		if len(rows) != 2 {
			t.Errorf("%q: %d table rows, want header and one:\n%s", h, len(rows), out)
			continue
		}
		cells := cellRE.FindAllStringSubmatch(rows[1][1], -1)
		if len(cells) != 5 {
			t.Errorf("%q: %d cells:\n%s", h, len(cells), out)
			continue
		}
		for _, c := range []string{cells[2][1], cells[3][1], heading(out), skippedReason(out)} {
			// A word with '@' is code, the one markup allowed.
			c = strings.NewReplacer("<code>", "", "</code>", "").Replace(c)
			if tagRE.MatchString(c) {
				t.Errorf("%q: markup in the rendered text %q", h, c)
			}
			if got := html.UnescapeString(c); got != want {
				t.Errorf("%q renders as %q, want %q", h, got, want)
			}
		}
	}
}

func heading(out string) string {
	_, rest, _ := strings.Cut(out, "<h1>")
	h, _, _ := strings.Cut(rest, "</h1>")
	return h
}

func skippedReason(out string) string {
	_, rest, _ := strings.Cut(out, "(ipv4): ")
	reason, _, _ := strings.Cut(rest, "</li>")
	return reason
}
