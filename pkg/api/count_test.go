package api

import (
	"encoding/json"
	"testing"
)

func TestCountResults(t *testing.T) {
	cases := map[string]int{
		`{"results":[]}`: 0,
		`{"results":[{"a":[1,2,{"results":[1]}]},{"b":"]},"}, null, 3]}`: 4,
		` { "query" : "results", "results" : [ {} ] } `:                  1,
		`{"nested":{"results":[1,2,3]},"results":[1,2]}`:                 2,
		`{"results":"none"}`:                     0,
		`{"results":null}`:                       0,
		`{"query":"x"}`:                          0,
		`{"res\"ults":[1],"results":[[],[],[]]}`: 3,
	}
	for body, want := range cases {
		if got := countResults([]byte(body)); got != want {
			t.Errorf("countResults(%s) = %d, want %d", body, got, want)
		}
	}
}

// FuzzCountResults checks the scan against a full decode on any valid JSON.
func FuzzCountResults(f *testing.F) {
	f.Add(`{"results":[{"preview":[{"k":"v,]"}]},{}]}`)
	f.Add(`{"results":[1,"2",[3],{"4":4}],"x":{"results":[]}}`)
	f.Fuzz(func(t *testing.T, body string) {
		if !json.Valid([]byte(body)) {
			return
		}
		var obj map[string]any
		if json.Unmarshal([]byte(body), &obj) != nil {
			return // not an object
		}
		want := 0
		if list, ok := obj["results"].([]any); ok {
			want = len(list)
		}
		if got := countResults([]byte(body)); got != want {
			t.Fatalf("countResults(%s) = %d, want %d", body, got, want)
		}
	})
}
