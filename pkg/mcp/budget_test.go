package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
)

// escapedSize is encoding/json's size of a string, whatever the bytes:
// every class of character the encoder escapes, and bytes that are not
// UTF-8.
func TestEscapedSizeIsEncodingJSONs(t *testing.T) {
	for _, s := range escapeSeeds() {
		want, _ := json.Marshal(s)
		if got := escapedSize([]byte(s)); got != len(want)-2 {
			t.Errorf("%q: %d, encoding/json writes %d", s, got, len(want)-2)
		}
	}
}

func escapeSeeds() []string {
	out := []string{"", `plain`, `"quoted" \back\`, "<a href=\"x\">&amp;</a>", "line\u2028para\u2029", "\x00\x01\b\f\n\r\t\x1f\x7f", "caf\xc3\xa9 \xff\xfe bad", "\xe2\x80", "日本語 😀"}
	for b := range 256 {
		out = append(out, string([]byte{byte(b)}))
	}
	return out
}

func FuzzEscapedSize(f *testing.F) {
	for _, s := range escapeSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := escapedSize([]byte(s)); got != len(want)-2 {
			t.Fatalf("%q: %d, encoding/json writes %d", s, got, len(want)-2)
		}
	})
}

// An answer full of what JSON escapes (<, >, &, quotes; U+2028 where the
// sanitiser lets it through) stays within the budget on the wire: the
// response is at most twice the budget and its envelope (issue 39: it
// reached 7x when the budget counted the bytes before escaping).
func TestBudgetCountsTheWire(t *testing.T) {
	const budget = MinMaxBytes
	heavy := strings.Repeat(`<>&"\`+"\u2028", 200)
	s := connect(t, fakeConfig(budget, func(v string) (*api.SearchResponse, error) {
		r := &api.SearchResponse{Query: v, DetectedType: "domain", Strategy: "exact"}
		for i := range 30 {
			r.Results = append(r.Results, api.Result{Resource: fmt.Sprint("r", i), Label: heavy, MatchedValue: heavy, Count: "1", DetailURL: "https://ti.example/?q=<&>",
				Preview: []map[string]any{{"note": heavy, "more": heavy}}})
		}
		return r, nil
	}))
	var values []string
	for i := range 20 {
		values = append(values, fmt.Sprintf("host%d.example", i))
	}
	for _, args := range []map[string]any{
		{"values": values[:1]},
		{"values": values, "preview_rows": 20},
		{"values": values, "detail": "summary"},
	} {
		res, _ := s.call(t, "search", args)
		if res.IsError {
			t.Fatal(text(res))
		}
		if got := s.sent(t, res); got > budget {
			t.Errorf("%v: %d bytes on the wire, budget %d", args, got, budget)
		}
		if s.answered > 2*budget+512 {
			t.Errorf("%v: a message of %d bytes for a budget of %d", args, s.answered, budget)
		}
	}
}
