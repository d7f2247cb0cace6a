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

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/watch"
)

// watchConfig serves a watch list "ours" of values, none matched at its
// last check, against answers that may change between calls.
func watchConfig(t *testing.T, budget int, values []string, answer func(v string) *api.SearchResponse) (Config, watch.Store) {
	t.Helper()
	st := watch.Store{Root: t.TempDir()}
	st.Dir = st.Root + "/default"
	_, release, err := st.Open("ours", "default", "")
	if err != nil {
		t.Fatal(err)
	}
	seed := watch.New("ours", "default", "")
	for _, v := range values {
		seed.Values[v] = &watch.Entry{At: 100}
	}
	if err := st.Save(seed); err != nil {
		t.Fatal(err)
	}
	release()
	cfg := fakeConfig(budget, func(v string) (*api.SearchResponse, error) {
		resp := answer(v)
		raw, _ := json.Marshal(resp)
		// The CLI's chain asks for raw answers (DecodeMatches decodes
		// the matches): the fake answers as the client does.
		return api.DecodeSearchRaw(raw)
	})
	cfg.Watch = func() (watch.Store, lookup.Searcher, error) {
		s, err := cfg.Searcher(0)
		return st, s, err
	}
	cfg.Now = func() time.Time { return time.Unix(200, 0) }
	return cfg, st
}

func hit(v string, n int) *api.SearchResponse {
	return &api.SearchResponse{Query: v, Results: []api.Result{{Resource: "malware", Label: "Malware <samples>", Count: json.Number(fmt.Sprint(n)), DetailURL: "https://ti.example/m?q=" + v}}}
}

func TestWatchTool(t *testing.T) {
	var mu sync.Mutex
	counts := map[string]int{"evil.example": 2}
	cfg, st := watchConfig(t, DefaultMaxBytes, []string{"evil.example", "quiet.example"}, func(v string) *api.SearchResponse {
		mu.Lock()
		defer mu.Unlock()
		if n := counts[v]; n > 0 {
			return hit(v, n)
		}
		return &api.SearchResponse{Query: v}
	})
	s := connect(t, cfg)
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "watch" && (tool.Annotations.ReadOnlyHint || tool.Annotations.IdempotentHint || !strings.Contains(tool.Description, "WRITES")) {
			t.Fatalf("watch says it writes nothing: %+v", tool.Annotations)
		}
	}

	res, out := s.call(t, "watch", map[string]any{"name": "ours"})
	if res.IsError {
		t.Fatal(text(res))
	}
	sum := out["summary"].(map[string]any)
	changes := out["changes"].([]any)
	if sum["values"] != 2.0 || sum["new"] != 1.0 || len(changes) != 1 {
		t.Fatalf("first call: %v", out)
	}
	c := changes[0].(map[string]any)
	if c["value"] != "evil.example" || c["change"] != "new" || c["detail_urls"].([]any)[0] != "https://ti.example/m?q=evil.example" || c["previous_checked_at"] != "1970-01-01T00:01:40Z" {
		t.Fatalf("change %v", c)
	}

	// The state is updated: nothing changed since, then a count changes.
	if _, out = s.call(t, "watch", map[string]any{"name": "ours"}); len(out["changes"].([]any)) != 0 {
		t.Fatalf("second call: %v", out)
	}
	mu.Lock()
	counts["evil.example"] = 5
	mu.Unlock()
	_, out = s.call(t, "watch", map[string]any{"name": "ours"})
	c = out["changes"].([]any)[0].(map[string]any)
	r := c["resources"].([]any)[0].(map[string]any)
	if c["change"] != "changed" || r["before"] != 2.0 || r["after"] != 5.0 || r["label"] != "Malware <samples>" {
		t.Fatalf("third call: %v", c)
	}
	lists, _ := st.List()
	if len(lists) != 1 || lists[0].Changes != 1 || lists[0].Values != 2 {
		t.Fatalf("the state after the calls: %+v", lists)
	}

	res, _ = s.call(t, "watch", map[string]any{"name": "theirs"})
	if !res.IsError || !strings.Contains(text(res), "the lists are ours") {
		t.Fatalf("unknown list: %s", text(res))
	}
}

// Calls at once on one list are serialised by the list's lock: exactly
// one reports the change, and the state holds it once.
func TestWatchToolConcurrent(t *testing.T) {
	var values []string
	for i := range 20 {
		values = append(values, fmt.Sprintf("host%d.example", i))
	}
	cfg, st := watchConfig(t, DefaultMaxBytes, values, func(v string) *api.SearchResponse {
		time.Sleep(2 * time.Millisecond)
		return hit(v, 1)
	})
	s := connect(t, cfg)
	const calls = 4
	got := make([]float64, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "watch", Arguments: map[string]any{"name": "ours"}})
			if err != nil || res.IsError {
				t.Errorf("call %d: %v %v", i, err, res)
				return
			}
			var out watchOutput
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
			got[i] = float64(out.Summary.New)
		})
	}
	wg.Wait()
	seen := 0
	for _, n := range got {
		switch n {
		case float64(len(values)):
			seen++
		case 0:
		default:
			t.Errorf("a call saw %v of %d new values: the checks interleaved", n, len(values))
		}
	}
	if seen != 1 {
		t.Fatalf("%d calls saw the values new, want 1 (%v)", seen, got)
	}
	if lists, _ := st.List(); lists[0].Values != len(values) {
		t.Fatalf("state %+v", lists)
	}
}

// Many changes are cut to the budget, counted and said so; the state
// keeps them all.
func TestWatchToolBudget(t *testing.T) {
	var values []string
	for i := range 400 {
		values = append(values, fmt.Sprintf("host%03d.example", i))
	}
	cfg, _ := watchConfig(t, MinMaxBytes, values, func(v string) *api.SearchResponse { return hit(v, 3) })
	s := connect(t, cfg)
	res, out := s.call(t, "watch", map[string]any{"name": "ours"})
	if res.IsError {
		t.Fatal(text(res))
	}
	if got := s.sent(t, res); got > MinMaxBytes {
		t.Fatalf("%d bytes, budget %d", got, MinMaxBytes)
	}
	shown := len(out["changes"].([]any))
	if shown == 0 || out["omitted"] != float64(len(values)-shown) || out["summary"].(map[string]any)["new"] != float64(len(values)) ||
		!strings.Contains(out["truncated"].(string), "mcp_max_bytes") {
		t.Fatalf("%d shown, omitted %v, summary %v, note %v", shown, out["omitted"], out["summary"], out["truncated"])
	}
}
