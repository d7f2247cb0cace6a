package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/report"
)

func linkedRun() (*report.Report, []Link) {
	hit := &api.SearchResponse{Results: []api.Result{{Resource: "passive_dns", Label: "Passive DNS", Count: "2", DetailURL: "https://ti.example.com/r?q=x"}}}
	r := &report.Report{Title: "Pivot from 44d88612fea8a8f36de82e1278abb02f", Time: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC),
		Indicators: []report.Indicator{
			{Value: "44d88612fea8a8f36de82e1278abb02f", Type: "md5", Resp: hit},
			{Value: "cdn-sync.example.org", Type: "domain", Resp: hit},
			{Value: "203.0.113.66", Type: "ipv4", Resp: &api.SearchResponse{}},
			{Value: "CVE-2021-44228", Type: "cve", Resp: &api.SearchResponse{}},
		}}
	links := []Link{
		{"44d88612fea8a8f36de82e1278abb02f", "md5", "cdn-sync.example.org", "domain", "found in Phishing e-mail campaigns, field link_domain"},
		{"cdn-sync.example.org", "domain", "203.0.113.66", "ipv4", "found in Passive DNS, field ip"},
		{"cdn-sync.example.org", "domain", "CVE-2021-44228", "cve", "left out: a CVE has no observable"},
		{"cdn-sync.example.org", "domain", "not-in.example.net", "domain", "left out: not in the bundle"},
	}
	return r, links
}

func TestSTIXLinked(t *testing.T) {
	r, links := linkedRun()
	var b bytes.Buffer
	if err := STIXLinked(&b, r, links, STIXOptions{TLP: "amber", Rand: strings.NewReader(strings.Repeat("x", 4096))}); err != nil {
		t.Fatal(err)
	}
	var got bundle
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	var related []object
	for _, o := range got.Objects {
		if o.Value != "" {
			ids[o.Value] = o.ID
		}
		for _, h := range o.Hashes {
			ids[h] = o.ID
		}
		if o.RelationshipType == "related-to" {
			related = append(related, o)
		}
	}
	if len(related) != 2 {
		t.Fatalf("%d related-to relationships, want 2:\n%s", len(related), b.String())
	}
	if related[0].SourceRef != ids["44d88612fea8a8f36de82e1278abb02f"] || related[0].TargetRef != ids["cdn-sync.example.org"] ||
		related[1].TargetRef != ids["203.0.113.66"] || !strings.Contains(related[1].Description, "Passive DNS") ||
		len(related[0].ObjectMarkingRefs) != 1 {
		t.Errorf("relationships %+v", related)
	}
	sch := bundleSchema(t)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("not a valid STIX 2.1 bundle: %v\n%s", err, b.String())
	}
}
