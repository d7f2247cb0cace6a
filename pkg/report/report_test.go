package report

import (
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
)

func TestStatusAndSummary(t *testing.T) {
	matched, _ := api.DecodeSearch([]byte(`{"results":[{"resource":"r"}]}`))
	none, _ := api.DecodeSearch([]byte(`{"results":[]}`))
	unsup, _ := api.DecodeSearch([]byte(`{"unsupported_reason":"not a hash","results":[]}`))
	r := Report{Indicators: []Indicator{
		{Value: "a", Type: "domain", Resp: matched},
		{Value: "b", Type: "domain", Resp: none},
		{Value: "c", Type: "unknown", Resp: unsup},
		{Value: "d", Type: "ipv4", Err: failure.New(failure.Server, "503")},
	}, Skipped: []Skipped{{Value: "10.0.0.1", Type: "ipv4", Reason: "private address"}}}
	want := []Status{Matched, NoMatch, Unsupported, Failed}
	for i, in := range r.Indicators {
		if in.Status() != want[i] {
			t.Errorf("%s: %s, want %s", in.Value, in.Status(), want[i])
		}
	}
	s := r.Summarize()
	if s.Total != 4 || s.Matched != 1 || s.NoMatch != 1 || s.Unsupported != 1 || s.Failed != 1 || s.Skipped != 1 || s.ByType["domain"] != 2 {
		t.Fatalf("summary %+v", s)
	}
}
