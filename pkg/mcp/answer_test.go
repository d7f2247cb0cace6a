package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/internal/testenv"
	"github.com/tilookup/tilookup/pkg/api"
)

// rawAnswer is the service's answer as bytes, decoded as the client
// decodes them (Raw kept), so that the server reads what it would read.
func rawAnswer(t *testing.T, body string) *api.SearchResponse {
	t.Helper()
	r, err := api.DecodeSearch([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hitAnswer is a match in 3 resources, each with 5 large preview records
// whose fields are not in alphabetical order.
func hitAnswer(t *testing.T, v string) *api.SearchResponse {
	var res []string
	for i := range 3 {
		var recs []string
		for j := range 5 {
			recs = append(recs, fmt.Sprintf(`{"zeta":%d,"alpha":"%s","mid":true}`, j, strings.Repeat("p", 200)))
		}
		res = append(res, fmt.Sprintf(`{"resource":"res%d","label":"Resource %d","group":"g","matched_column":"domain","matched_value":%q,"count":%d,"detail_url":"https://ti.example/r%d?q=%s","preview":[%s]}`,
			i, i, v, 10+i, i, v, strings.Join(recs, ",")))
	}
	return rawAnswer(t, fmt.Sprintf(`{"query":%q,"detected_type":"domain","strategy":"exact","results":[%s]}`, v, strings.Join(res, ",")))
}

// hundredValues is issue 26's case: 100 values, 17 of them matched (not
// the first ones), the others no match.
func hundredValues(t *testing.T, budget int) (*session, []string, map[string]bool) {
	hits := map[string]bool{}
	var values []string
	for i := range 100 {
		v := fmt.Sprintf("miss%d.example", i)
		if i%5 == 4 && len(hits) < 17 {
			v = fmt.Sprintf("hit%d.example", i)
			hits[v] = true
		}
		values = append(values, v)
	}
	s := connect(t, fakeConfig(budget, func(v string) (*api.SearchResponse, error) {
		if hits[v] {
			return hitAnswer(t, v), nil
		}
		return rawAnswer(t, fmt.Sprintf(`{"query":%q,"detected_type":"domain","strategy":"exact","results":[]}`, v)), nil
	}))
	return s, values, hits
}

func TestSearchMatchedFirstWithinBudget(t *testing.T) {
	const budget = 12 << 10
	s, values, hits := hundredValues(t, budget)
	if len(hits) != 17 {
		t.Fatalf("%d hits", len(hits))
	}
	sizes := map[string]int{}
	for _, detail := range []string{detailFull, detailSummary} {
		res, out := s.call(t, "search", map[string]any{"values": values, "detail": detail})
		if res.IsError {
			t.Fatal(text(res))
		}
		sizes[detail] = s.sent(t, res)
		if sizes[detail] > budget {
			t.Errorf("%s: %d bytes, budget %d", detail, sizes[detail], budget)
		}
		// The summary comes first, in the text an assistant reads.
		if !strings.HasPrefix(text(res), `{"summary":{"total":100,"matched":17,"no_match":83,"unsupported":0,"failed":0,"skipped":0,"top_resources":[{"resource":"res0","label":"Resource 0","values":17}`) {
			t.Errorf("%s: the answer does not open with the summary: %.300s", detail, text(res))
		}
		// Every matched value, with every resource and its count, before
		// any other entry.
		seen := map[string]bool{}
		other := false
		for _, e := range out["values"].([]any) {
			v := e.(map[string]any)
			if v["status"] != "matched" {
				other = true
				continue
			}
			if other {
				t.Errorf("%s: %v comes after a value that did not match", detail, v["input"])
			}
			seen[v["input"].(string)] = true
			matches, _ := v["matches"].([]any)
			if len(matches) != 3 || v["matches_omitted"] != nil {
				t.Errorf("%s: %v kept %d of its 3 resources", detail, v["input"], len(matches))
			}
			for _, m := range matches {
				if m := m.(map[string]any); m["resource"] == nil || m["count"] == nil {
					t.Errorf("%s: %v: match without its resource or count: %v", detail, v["input"], m)
				}
			}
		}
		if len(seen) != len(hits) {
			t.Errorf("%s: %d of %d matched values shown", detail, len(seen), len(hits))
		}
		// What did not fit is counted, and none is lost.
		shown := len(out["values"].([]any)) - len(seen)
		omitted, _ := out["omitted"].(map[string]any)
		var left float64
		if nm, ok := omitted["no_match"].(map[string]any); ok {
			left = nm["count"].(float64)
			if named, _ := nm["values"].([]any); len(named) == 0 {
				t.Errorf("%s: no value named among the %v left out", detail, left)
			}
		}
		if shown+int(left) != 83 {
			t.Errorf("%s: %d no-match entries shown and %v counted, want 83", detail, shown, left)
		}
	}
	if sizes[detailSummary] >= sizes[detailFull] {
		t.Errorf("summary (%d bytes) is not smaller than full (%d)", sizes[detailSummary], sizes[detailFull])
	}
}

// Preview records keep the service's field order, as the CLI prints them.
func TestSearchPreviewKeepsServiceOrder(t *testing.T) {
	s := connect(t, fakeConfig(DefaultMaxBytes, func(v string) (*api.SearchResponse, error) { return hitAnswer(t, v), nil }))
	res, _ := s.call(t, "search", map[string]any{"values": []string{"hit.example"}, "preview_rows": 1})
	if res.IsError {
		t.Fatal(text(res))
	}
	if !strings.Contains(text(res), `"preview":[{"zeta":0,"alpha":"pppp`) {
		t.Fatalf("preview fields reordered: %.2000s", text(res))
	}
}

// A number no float64 holds is that value's error; the others are
// answered (issue 28: the whole call failed output validation).
func TestUnrepresentableNumberIsValueError(t *testing.T) {
	s := connect(t, fakeConfig(DefaultMaxBytes, func(v string) (*api.SearchResponse, error) {
		switch v {
		case "huge.example":
			return rawAnswer(t, `{"results":[{"resource":"r","count":1e400}]}`), nil
		case "deep.example":
			return rawAnswer(t, `{"results":[{"resource":"r","count":1,"preview":[{"n":-2e308}]}]}`), nil
		}
		return hitAnswer(t, v), nil
	}))
	for _, tool := range []string{"search", "triage"} {
		args := map[string]any{"values": []string{"ok.example", "huge.example", "deep.example"}}
		if tool == "triage" {
			args = map[string]any{"text": "ok.example huge.example deep.example"}
		}
		res, out := s.call(t, tool, args)
		if res.IsError {
			t.Fatalf("%s: %s", tool, text(res))
		}
		var got []string
		key := map[string]string{"search": "values", "triage": "indicators"}[tool]
		for _, e := range out[key].([]any) {
			v := e.(map[string]any)
			kind := ""
			if e, ok := v["error"].(map[string]any); ok {
				kind = e["kind"].(string)
				if !strings.Contains(e["message"].(string), "too large to represent") {
					t.Errorf("%s: %v", tool, e)
				}
			}
			got = append(got, fmt.Sprint(v["status"], "/", kind))
		}
		if want := "[matched/ failed/decode failed/decode]"; fmt.Sprint(got) != want {
			t.Errorf("%s: %v, want %s", tool, got, want)
		}
	}
}

// The answer an assistant reads fits the budget; the SDK's copy as
// structured content is the same JSON (a client gives its model one).
func TestBudgetCountsOneCopy(t *testing.T) {
	const budget = 12 << 10
	s, values, _ := hundredValues(t, budget)
	res, _ := s.call(t, "search", map[string]any{"values": values})
	n := s.sent(t, res)
	if n > budget || n < budget*3/4 {
		t.Fatalf("the answer uses %d bytes of the %d-byte budget: %s", n, budget, text(res))
	}
	var structured, txt any
	b, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(b, &structured) != nil || json.Unmarshal([]byte(text(res)), &txt) != nil || fmt.Sprint(structured) != fmt.Sprint(txt) {
		t.Fatal("the text copy is not the structured content")
	}
}

// -c bounds the whole server: many calls at once share its slots (issue
// 28: 100 parallel calls put 100 requests in flight).
func TestConcurrencyIsServerWide(t *testing.T) {
	var mu sync.Mutex
	inFlight, most := 0, 0
	cfg := fakeConfig(DefaultMaxBytes, func(v string) (*api.SearchResponse, error) {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		return rawAnswer(t, `{"results":[]}`), nil
	})
	cfg.Concurrency = 3
	s := connect(t, cfg)
	var wg sync.WaitGroup
	for c := range 12 {
		wg.Go(func() {
			var values []string
			for i := range 6 {
				values = append(values, fmt.Sprintf("v%d-%d.example", c, i))
			}
			res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"values": values}})
			if err != nil || res.IsError {
				t.Errorf("call %d: %v %v", c, err, res)
			}
		})
	}
	wg.Wait()
	if most > 3 {
		t.Fatalf("%d lookups in flight at once over 12 calls, -c 3", most)
	}
	if most < 2 {
		t.Fatalf("at most %d lookup in flight: the calls did not overlap", most)
	}
}

// At the smallest budget, the longest resource names and labels the
// service may send (in the summary's top resources, in every match) still
// fit: the last levels drop them.
func TestSmallestBudgetLongLabels(t *testing.T) {
	testenv.Slow(t, "100 calls' worth of 2 KB labels at the smallest budget")
	long := func(i int) string { return fmt.Sprint(i) + strings.Repeat("😀", 3000) }
	s := connect(t, fakeConfig(MinMaxBytes, func(v string) (*api.SearchResponse, error) {
		r := &api.SearchResponse{Query: v}
		for i := range 8 {
			r.Results = append(r.Results, api.Result{Resource: long(i), Label: long(i + 100), Count: "1", DetailURL: long(i + 200)})
		}
		return r, nil
	}))
	var values []string
	for i := range MaxValues {
		values = append(values, fmt.Sprintf("host%d.example", i))
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"values": values}},
		{"search", map[string]any{"values": values, "detail": "summary"}},
		{"triage", map[string]any{"text": strings.Join(values, " ")}},
		{"triage", map[string]any{"text": strings.Join(values, " "), "detail": "full"}},
	} {
		res, out := s.call(t, c.tool, c.args)
		if res.IsError {
			t.Fatalf("%s: %s", c.tool, text(res))
		}
		if got := s.sent(t, res); got > MinMaxBytes {
			t.Errorf("%s %v: %d bytes, budget %d: %s", c.tool, c.args["detail"], got, MinMaxBytes, text(res))
		}
		if sum, _ := out["summary"].(map[string]any); sum["matched"] != 100.0 {
			t.Errorf("%s: summary %v", c.tool, sum)
		}
	}
}
