package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/pivot"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

func TestPivotSandbox(t *testing.T) {
	s := connect(t, sandboxConfig(t, sandbox.DemoToken))
	res, out := s.call(t, "pivot", map[string]any{"values": []string{"44d88612fea8a8f36de82e1278abb02f"}, "depth": 2, "max_lookups": 20})
	if res.IsError {
		t.Fatal(text(res))
	}
	sum := out["summary"].(map[string]any)
	if sum["lookups"] != 20.0 || sum["max_lookups"] != 20.0 || sum["not_looked_up"].(float64) < 1 {
		t.Fatalf("summary %v", sum)
	}
	if !strings.Contains(text(res), `"resource":"phishing_emails","field":"link_domain"`) {
		t.Errorf("no edge from the mail's link: %s", text(res))
	}
	// Omitted depth is the default (1); 0 looks up the values only.
	_, out = s.call(t, "pivot", map[string]any{"values": []string{"203.0.113.66"}, "depth": 0})
	if sum := out["summary"].(map[string]any); sum["lookups"] != 1.0 || sum["depth"] != 0.0 {
		t.Errorf("depth 0: %v", sum)
	}
	for _, tt := range []struct {
		args map[string]any
		want string // in the error; "" for any
	}{
		{map[string]any{"values": []string{}}, ""},
		{map[string]any{"values": []string{"203.0.113.66"}, "depth": pivot.MaxDepth + 1}, fmt.Sprintf("depth must be at most %d", pivot.MaxDepth)},
		{map[string]any{"values": []string{"203.0.113.66"}, "depth": -1}, "depth must be at least 0"},
		{map[string]any{"values": []string{"203.0.113.66"}, "max_lookups": maxPivotLookups + 1}, fmt.Sprintf("max_lookups must be at most %d", maxPivotLookups)},
		{map[string]any{"values": []string{"203.0.113.66"}, "max_lookups": 100000}, fmt.Sprintf("max_lookups must be at most %d", maxPivotLookups)},
		{map[string]any{"values": []string{"203.0.113.66"}, "max_lookups": 0}, "max_lookups must be at least 1"},
	} {
		res, _ := s.call(t, "pivot", tt.args)
		if !res.IsError || text(res) != tt.want && tt.want != "" {
			t.Errorf("%v: %v %q, want the error %q", tt.args, res.IsError, text(res), tt.want)
		}
	}
}

// TestPivotBudgetAndCost: never more lookups than max_lookups, and an answer
// within the byte budget that keeps the matched nodes first.
func TestPivotBudgetAndCost(t *testing.T) {
	const budget = 6 << 10
	var calls atomic.Int64
	s := connect(t, fakeConfig(budget, func(v string) (*api.SearchResponse, error) {
		calls.Add(1)
		if strings.HasPrefix(v, "miss") {
			return &api.SearchResponse{Query: v}, nil
		}
		var names []any
		for i := range 30 {
			names = append(names, fmt.Sprintf("hit%d-%s", i, v), fmt.Sprintf("miss%d-%s", i, v))
		}
		return &api.SearchResponse{Query: v, Results: []api.Result{{Resource: "r", Label: strings.Repeat("L", 200), Count: "1",
			Preview: []map[string]any{{"names": names}}}}}, nil
	}))
	res, out := s.call(t, "pivot", map[string]any{"values": []string{"start.example"}, "depth": 3, "max_lookups": 77})
	if res.IsError {
		t.Fatal(text(res))
	}
	if calls.Load() != 77 {
		t.Errorf("%d lookups, max_lookups 77", calls.Load())
	}
	// The budget bounds the answer's JSON, once (see textSize).
	if got := len(text(res)); got > budget {
		t.Fatalf("an answer of %d bytes, budget %d", got, budget)
	}
	for _, n := range out["nodes"].([]any) {
		if n.(map[string]any)["status"] != "matched" {
			t.Fatalf("an unmatched node kept before the matched ones: %v", n)
		}
	}
	if note, _ := out["truncated"].(string); !strings.Contains(note, "not matched left out") {
		t.Errorf("note: %q", note)
	}
}

func TestPivotDescriptionSaysTheCost(t *testing.T) {
	s := connect(t, sandboxConfig(t, sandbox.DemoToken))
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "pivot" && !strings.Contains(tool.Description, "up to max_lookups lookups") {
			t.Errorf("description: %s", tool.Description)
		}
	}
}
