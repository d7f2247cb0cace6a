package export

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/report"
)

// A host that triage took from a URL says so in Markdown (defanged like the
// values) and in STIX (a custom property on its observable).
func TestURLHostMarked(t *testing.T) {
	r := &report.Report{
		Title: "t", Time: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC),
		Indicators: []report.Indicator{
			{Value: "evil.example.com", Type: "domain", Resp: &api.SearchResponse{}, FromURL: "https://evil.example.com/x"},
			{Value: "plain.example.com", Type: "domain", Resp: &api.SearchResponse{}},
		},
		Skipped: []report.Skipped{{Value: "10.0.0.1", Type: "ipv4", Reason: "private address", FromURL: "http://10.0.0.1/a"}},
	}
	var md bytes.Buffer
	if err := Markdown(&md, r, MarkdownOptions{Defang: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- `evil[.]example[.]com` (domain, host of `hxxps[:]//evil[.]example[.]com/x`)\n",
		"- `plain[.]example[.]com` (domain)\n",
		"- `10[.]0[.]0[.]1` (ipv4, host of `hxxp[:]//10[.]0[.]0[.]1/a`): private address\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var stix bytes.Buffer
	if err := STIX(&stix, r, STIXOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stix.String(), `"x_tilookup_from_url": "https://evil.example.com/x"`); n != 1 {
		t.Errorf("STIX: %d marks, want 1:\n%s", n, stix.String())
	}
	if strings.Count(stix.String(), "x_tilookup_from_url") != 1 {
		t.Errorf("STIX marks a value not taken from a URL:\n%s", stix.String())
	}
	// MISP holds the matched ones: the mark is in the attribute's comment.
	matched := &report.Report{Title: "t", Time: r.Time, Indicators: []report.Indicator{
		{Value: "evil.example.com", Type: "domain", FromURL: "https://evil.example.com/x",
			Resp: &api.SearchResponse{Results: []api.Result{{Resource: "passive_dns", Label: "Passive DNS"}}}},
	}}
	if matched.Indicators[0].Status() != report.Matched {
		t.Fatalf("the test's indicator is %s", matched.Indicators[0].Status())
	}
	var misp bytes.Buffer
	if err := MISP(&misp, matched, MISPOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(misp.String(), "The host of https://evil.example.com/x, a URL in the report"); n != 1 {
		t.Errorf("MISP: %d marks, want 1:\n%s", n, misp.String())
	}
}
