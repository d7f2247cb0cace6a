package pivot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
)

// benchSearcher answers like bench/pivot's server, already decoded: what
// is left is the walk's own work (extraction, the graph).
func benchSearcher() SearcherFunc {
	return func(_ context.Context, q string) (*api.SearchResponse, error) {
		k, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(q, "n"), ".example.com"))
		var recs []map[string]any
		for i := 1; i <= 10; i++ {
			recs = append(recs, map[string]any{"domain": q, "seen_with": fmt.Sprintf("n%d.example.com", 10*k+i), "rrtype": "A",
				"first_seen": "2025-01-01T00:00:00Z", "tags": []any{"bench", "relay"}, "note": "resolved together 7 times"})
		}
		return &api.SearchResponse{Query: q, Results: []api.Result{{Resource: "passive_dns", Label: "Passive DNS", Count: "10", MatchedValue: q, Preview: recs}}}, nil
	}
}

// BenchmarkWalk500 is a 3-deep walk of 500 lookups with free lookups.
func BenchmarkWalk500(b *testing.B) {
	s := benchSearcher()
	for b.Loop() {
		g, _ := Walk(context.Background(), s, start("n0.example.com"), Config{Depth: 3, MaxLookups: 500, Concurrency: 4})
		if g.Summary.Lookups != 500 {
			b.Fatal(g.Summary)
		}
	}
}
