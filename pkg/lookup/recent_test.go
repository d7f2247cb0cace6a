package lookup

import (
	"fmt"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
)

func TestRecentIsBounded(t *testing.T) {
	r := newRecent(4, 100)
	resp := func(n int) *api.SearchResponse { return &api.SearchResponse{Raw: make([]byte, n)} }
	for i := range 10 {
		r.put(fmt.Sprint("v", i), resp(10))
	}
	if len(r.byValue) != 4 {
		t.Fatalf("%d entries kept, want 4", len(r.byValue))
	}
	for i := 6; i < 10; i++ {
		if _, ok := r.get(fmt.Sprint("v", i)); !ok {
			t.Errorf("v%d, among the latest, was dropped", i)
		}
	}
	if _, ok := r.get("v0"); ok {
		t.Error("the oldest answer is still there")
	}
	// bytes: 4 entries of 24 bytes fit in 100, a fifth evicts.
	r = newRecent(10, 100)
	for i := range 5 {
		r.put(fmt.Sprint("x", i), resp(22))
	}
	if r.bytes > 100 || len(r.byValue) != 4 {
		t.Errorf("%d bytes in %d entries, want at most 100 in 4", r.bytes, len(r.byValue))
	}
	r.put("huge", resp(60))
	if _, ok := r.get("huge"); ok {
		t.Error("an answer over a quarter of the budget was kept")
	}
}
