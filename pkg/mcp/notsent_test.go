package mcp

import (
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// A call whose values all failed after a refused token says once that
// nothing more was sent and why, not the first value's 401.
func TestAllFailedAfterARefusedTokenIsOneLine(t *testing.T) {
	results := []looked{{Result: lookup.Result{Item: lookup.Item{Input: "a.example"}, Err: failure.New(failure.Auth, "search: 401 Unauthorized")}}}
	for range 22 {
		results = append(results, looked{Result: lookup.Result{Item: lookup.Item{Input: "b.example"},
			Err: failure.NotSentBecause(failure.Auth, "not sent: the service refused the token for an earlier value", "run `tilookup auth login`")}})
	}
	err := allFailed(results)
	want := "all 23 values failed; nothing more was sent: the service refused the token for an earlier value; run `tilookup auth login`"
	if err == nil || err.Error() != want || strings.Contains(err.Error(), "401") {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
