package output

import (
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
)

func TestWebURL(t *testing.T) {
	resp := &api.SearchResponse{Query: "q", Results: []api.Result{
		{Resource: "no_link", Label: "No link"},
		{Resource: "passive_dns", Label: "Passive DNS", DetailURL: "https://ti.example/r/passive_dns?q=a"},
		{Resource: "blocklist", Label: "Blocklist", DetailURL: "http://ti.example/r/blocklist"},
		{Resource: "evil", DetailURL: "file:///etc/passwd"},
	}}
	for _, tt := range []struct {
		resource, want string
		kind           failure.Kind
	}{
		{"", "https://ti.example/r/passive_dns?q=a", ""},
		{"blocklist", "http://ti.example/r/blocklist", ""},
		{"PASSIVE DNS", "https://ti.example/r/passive_dns?q=a", ""},
		{"nope", "", failure.NoMatch},
		{"no_link", "", failure.Decode},
		{"evil", "", failure.Decode},
	} {
		got, err := WebURL(resp, tt.resource)
		if got != tt.want || failure.KindOf(err) != tt.kind && !(tt.kind == "" && err == nil) {
			t.Errorf("WebURL(%q) = %q, %v; want %q (%s)", tt.resource, got, err, tt.want, tt.kind)
		}
	}
	_, err := WebURL(&api.SearchResponse{Query: "198.51.100.7"}, "")
	if failure.KindOf(err) != failure.NoMatch || !strings.Contains(err.Error(), "198.51.100.7") {
		t.Errorf("no results: %v", err)
	}
	_, err = WebURL(resp, "nope")
	if !strings.Contains(err.Error(), "passive_dns") {
		t.Errorf("the error does not list the resources: %v", err)
	}
}
