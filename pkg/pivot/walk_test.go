package pivot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/triage"
)

// stub is a Searcher over a fixed neighbourhood: each value's answer names
// its neighbours in one preview record of resource "rel", under "seen".
// It counts the lookups per value.
type stub struct {
	mu    sync.Mutex
	links map[string][]string
	fail  map[string]error
	calls map[string]int
}

func newStub(links map[string][]string) *stub {
	return &stub{links: links, fail: map[string]error{}, calls: map[string]int{}}
}

func (s *stub) Search(ctx context.Context, v string) (*api.SearchResponse, error) {
	s.mu.Lock()
	s.calls[v]++
	err := s.fail[v]
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	next, ok := s.links[v]
	if !ok {
		return &api.SearchResponse{Query: v}, nil
	}
	rec := map[string]any{"seen": anyList(next), "n": json.Number("1")}
	return &api.SearchResponse{Query: v, Results: []api.Result{{
		Resource: "rel", Label: "Relations", Count: "1", MatchedColumn: "key", MatchedValue: v,
		Preview: []map[string]any{rec}, DetailURL: "https://ti.example.com/rel?q=" + v,
	}}}, nil
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func start(vals ...string) []Start {
	out := make([]Start, len(vals))
	for i, v := range vals {
		out[i] = Start{Value: v, Type: ioc.Detect(v)}
	}
	return out
}

// chain: a -> b -> c -> d -> e (each a domain), plus a cycle e -> a.
var chain = map[string][]string{
	"a.example.com": {"b.example.com"},
	"b.example.com": {"c.example.com", "a.example.com"},
	"c.example.com": {"d.example.com"},
	"d.example.com": {"e.example.com"},
	"e.example.com": {"a.example.com"},
}

func statuses(g *Graph) map[string]Status {
	out := map[string]Status{}
	for _, n := range g.Nodes {
		out[n.Value] = n.Status
	}
	return out
}

func TestWalkDepth(t *testing.T) {
	tests := []struct {
		depth int
		want  map[string]Status
	}{
		{0, map[string]Status{"a.example.com": Matched}},
		{1, map[string]Status{"a.example.com": Matched, "b.example.com": Matched}},
		{2, map[string]Status{"a.example.com": Matched, "b.example.com": Matched, "c.example.com": Matched}},
		{3, map[string]Status{"a.example.com": Matched, "b.example.com": Matched, "c.example.com": Matched, "d.example.com": Matched}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.depth), func(t *testing.T) {
			s := newStub(chain)
			g, err := Walk(context.Background(), s, start("a.example.com"), Config{Depth: tt.depth, MaxLookups: 50, Concurrency: 3})
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(g); !mapsEqual(got, tt.want) {
				t.Errorf("depth %d: %v, want %v", tt.depth, got, tt.want)
			}
			for v, n := range s.calls {
				if n != 1 {
					t.Errorf("%s looked up %d times", v, n)
				}
			}
			for _, n := range g.Nodes {
				if n.Depth > tt.depth {
					t.Errorf("%s at depth %d > %d", n.Value, n.Depth, tt.depth)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]Status) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestWalkCycleLooksUpEachOnce(t *testing.T) {
	s := newStub(chain)
	g, err := Walk(context.Background(), s, start("a.example.com", "a.example.com", "e.example.com"), Config{Depth: 3, MaxLookups: 50, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Nodes) != 5 {
		t.Fatalf("%d nodes, want 5: %v", len(g.Nodes), statuses(g))
	}
	for v, n := range s.calls {
		if n != 1 {
			t.Errorf("%s looked up %d times", v, n)
		}
	}
	// e -> a closes the cycle: an edge, not a new node.
	ids := map[string]string{}
	for _, n := range g.Nodes {
		ids[n.Value] = n.ID
	}
	if !slices.Contains(g.Edges, Edge{From: ids["e.example.com"], To: ids["a.example.com"], Resource: "rel", Field: "seen"}) {
		t.Errorf("no edge e -> a in %v", g.Edges)
	}
}

// wide: one start naming 10 neighbours, each naming 10 more.
func wide() map[string][]string {
	links := map[string][]string{}
	for i := range 10 {
		hop := fmt.Sprintf("h%d.example.com", i)
		links["root.example.com"] = append(links["root.example.com"], hop)
		for j := range 10 {
			links[hop] = append(links[hop], fmt.Sprintf("l%d-%d.example.com", i, j))
		}
	}
	return links
}

func TestWalkBudget(t *testing.T) {
	for _, budget := range []int{1, 2, 5, 11, 12, 40, 111, 500} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			s := newStub(wide())
			g, err := Walk(context.Background(), s, start("root.example.com"), Config{Depth: 2, MaxLookups: budget, Concurrency: 4})
			if err != nil {
				t.Fatal(err)
			}
			calls := 0
			for _, n := range s.calls {
				calls += n
			}
			want := min(budget, 111)
			if calls != want || g.Summary.Lookups != want {
				t.Errorf("%d lookups made, %d counted, want %d", calls, g.Summary.Lookups, want)
			}
			looked, notLooked := 0, 0
			for _, n := range g.Nodes {
				switch n.Status {
				case NotLookedUp:
					notLooked++
					if s.calls[n.Value] != 0 {
						t.Errorf("%s is not_looked_up but was looked up", n.Value)
					}
				case Matched, NoMatch:
					looked++
				}
			}
			if looked != want || looked+notLooked != len(g.Nodes) || g.Summary.NotLookedUp != notLooked {
				t.Errorf("%d looked up, %d not (summary %d) of %d nodes", looked, notLooked, g.Summary.NotLookedUp, len(g.Nodes))
			}
			// Breadth-first: a depth-2 node is looked up only once every
			// depth-1 node was.
			if budget < 11 && g.Summary.Depth == 2 {
				for _, n := range g.Nodes {
					if n.Depth == 2 && n.Status != NotLookedUp {
						t.Errorf("%s (depth 2) looked up before depth 1 was done", n.Value)
					}
				}
			}
		})
	}
}

func TestWalkSkips(t *testing.T) {
	links := map[string][]string{
		"198.51.100.7": {"10.1.2.3", "127.0.0.1", "ours.example.com", "http://10.0.0.1/x", "bad.example.net"},
	}
	allow, err := triage.ReadAllowlist(stringsReader("example.com\n"), "allow.txt")
	if err != nil {
		t.Fatal(err)
	}
	s := newStub(links)
	g, _ := Walk(context.Background(), s, start("198.51.100.7"), Config{Depth: 1, MaxLookups: 50, Concurrency: 2,
		Skipper: &triage.Skipper{Noise: true, Allow: allow}})
	want := map[string]Status{
		"198.51.100.7": Matched, "10.1.2.3": Skipped, "127.0.0.1": Skipped, "ours.example.com": Skipped,
		"http://10.0.0.1/x": Skipped, "bad.example.net": NoMatch,
	}
	if got := statuses(g); !mapsEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	for _, n := range g.Nodes {
		if n.Status == Skipped && (n.Reason == "" || s.calls[n.Value] != 0) {
			t.Errorf("%s skipped with reason %q after %d lookups", n.Value, n.Reason, s.calls[n.Value])
		}
	}
	// A start is what the user asked for: never skipped.
	g, _ = Walk(context.Background(), newStub(nil), start("10.1.2.3"), Config{Depth: 1, MaxLookups: 5, Skipper: &triage.Skipper{Noise: true}})
	if g.Nodes[0].Status != NoMatch {
		t.Errorf("start 10.1.2.3: %s", g.Nodes[0].Status)
	}
}

func TestWalkEdgeFields(t *testing.T) {
	s := SearcherFunc(func(_ context.Context, v string) (*api.SearchResponse, error) {
		if v != "44d88612fea8a8f36de82e1278abb02f" {
			return &api.SearchResponse{Query: v}, nil
		}
		return &api.SearchResponse{Query: v, Results: []api.Result{
			{Resource: "sandbox", Label: "Sandbox", Count: "2", MatchedValue: v, Preview: []map[string]any{
				{"md5": v, "network": map[string]any{"domains": []any{"c2.example.org"}, "hosts": []any{"203.0.113.9"}}},
				{"note": "beacons to c2[.]example[.]org every 60 s"},
			}},
			{Resource: "mail", Label: "Mail", Count: "1", MatchedValue: v, Preview: []map[string]any{
				{"sender": "x@mail.example.net", "size": json.Number("68")},
			}},
		}}, nil
	})
	g, err := Walk(context.Background(), s, start("44d88612fea8a8f36de82e1278abb02f"), Config{Depth: 1, MaxLookups: 50})
	if exitCode(err) != 0 {
		t.Fatal(err)
	}
	id := func(tp ioc.Type, v string) string { return NodeID(tp, v) }
	from := id(ioc.MD5, "44d88612fea8a8f36de82e1278abb02f")
	want := []Edge{
		{from, id(ioc.Domain, "c2.example.org"), "sandbox", "network.domains"},
		{from, id(ioc.IPv4, "203.0.113.9"), "sandbox", "network.hosts"},
		{from, id(ioc.Email, "x@mail.example.net"), "mail", "sender"},
	}
	if !slices.Equal(g.Edges, want) {
		t.Errorf("edges\n%v\nwant\n%v", g.Edges, want)
	}
}

// A preview field whose whole value is one indicator is taken whole, a URL
// with spaces in its path included (issue 38: pivot looked up the piece
// before the first space, which matches nothing); free text is extracted,
// and what extraction refuses (a detection name) is no indicator whole
// either.
func TestWalkTakesAWholeFieldWhole(t *testing.T) {
	const spaced = "https://login-update.example.net/secure login/verify.php?acct=42&ref=mail%20link#step 2"
	s := SearcherFunc(func(_ context.Context, v string) (*api.SearchResponse, error) {
		if v != "login-update.example.net" {
			return &api.SearchResponse{Query: v}, nil
		}
		return &api.SearchResponse{Query: v, Results: []api.Result{
			{Resource: "phish", Label: "Phishing", Count: "1", MatchedValue: v, Preview: []map[string]any{
				{"a_url": spaced, "b_note": "reported at hxxps://evil[.]example/a b", "c_family": "Win32/Korplug.TC"},
			}},
		}}, nil
	})
	g, err := Walk(context.Background(), s, start("login-update.example.net"), Config{Depth: 1, MaxLookups: 50})
	if exitCode(err) != 0 {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes[1:] {
		got = append(got, string(n.Type)+" "+n.Value)
	}
	want := []string{"url " + spaced, "url https://evil.example/a"}
	if !slices.Equal(got, want) {
		t.Errorf("nodes\n%q\nwant\n%q", got, want)
	}
}

// SearcherFunc keeps the tests short.
type SearcherFunc func(context.Context, string) (*api.SearchResponse, error)

func (f SearcherFunc) Search(ctx context.Context, v string) (*api.SearchResponse, error) {
	return f(ctx, v)
}

func TestWalkStableIDs(t *testing.T) {
	run := func(c int) []byte {
		g, _ := Walk(context.Background(), newStub(wide()), start("root.example.com"), Config{Depth: 2, MaxLookups: 60, Concurrency: c})
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := run(1)
	for _, c := range []int{2, 8, 16} {
		if got := run(c); string(got) != string(first) {
			t.Fatalf("-c %d gives a different graph:\n%s\n%s", c, got, first)
		}
	}
	// A fixed value: ids must not change between releases either.
	if got := NodeID(ioc.Domain, "a.example.com"); got != wantID || got == NodeID(ioc.URL, "a.example.com") {
		t.Errorf("NodeID = %s, want %s, and different for another type", got, wantID)
	}
	if NodeID(ioc.Domain, "a.example.com") == NodeID(ioc.URL, "a.example.com") {
		t.Error("the id must depend on type and value")
	}
}

func TestWalkExitCodes(t *testing.T) {
	s := newStub(map[string][]string{"a.example.com": {"b.example.com"}})
	s.fail["b.example.com"] = &api.APIError{Kind: failure.Server, Message: "boom"}
	g, err := Walk(context.Background(), s, start("a.example.com"), Config{Depth: 1, MaxLookups: 5})
	if exitCode(err) != failure.ExitService {
		t.Errorf("exit %d, want %d (%v)", exitCode(err), failure.ExitService, err)
	}
	if n := g.Nodes[1]; n.Status != Error || n.Error == nil || n.Error.Kind != failure.Server {
		t.Errorf("failed node: %+v", n)
	}
	_, err = Walk(context.Background(), newStub(nil), start("a.example.com"), Config{Depth: 1, MaxLookups: 5})
	if exitCode(err) != failure.ExitNoMatch {
		t.Errorf("nothing matched: exit %d", exitCode(err))
	}
}

func TestWalkInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	n := 0
	s := SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		mu.Lock()
		n++
		stop := n == 5
		mu.Unlock()
		if stop {
			cancel()
			<-ctx.Done()
			return nil, &api.APIError{Kind: failure.Interrupted, Message: "interrupted", Err: errors.New("canceled")}
		}
		return newStub(wide()).Search(ctx, v)
	})
	g, err := Walk(ctx, s, start("root.example.com"), Config{Depth: 2, MaxLookups: 100, Concurrency: 1})
	if exitCode(err) != failure.ExitInterrupted {
		t.Fatalf("exit %d (%v)", exitCode(err), err)
	}
	if !g.Summary.Incomplete || g.Summary.Matched != 4 || g.Summary.Lookups != 4 {
		t.Errorf("summary %+v", g.Summary)
	}
	for _, n := range g.Nodes {
		if n.Status == "" {
			t.Errorf("%s has no status", n.Value)
		}
	}
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

const wantID = "n8d72c04c652d521f"

func exitCode(err error) int {
	var rep *failure.Reported
	var raised *failure.Raised
	switch {
	case errors.As(err, &rep):
		return rep.Code
	case errors.As(err, &raised):
		return raised.Code
	}
	return failure.ExitCode(err)
}

// crowd answers every value with one record naming per values, each
// domain new to the walk, and as many private addresses (skipped): one
// answer of a hostile size.
func crowd(per int) SearcherFunc {
	return func(_ context.Context, q string) (*api.SearchResponse, error) {
		names := make([]any, 0, 2*per)
		for i := range per {
			names = append(names, fmt.Sprintf("h%d.%s", i, q), fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
		}
		return &api.SearchResponse{Query: q, Results: []api.Result{{Resource: "rel", Label: "Relations", Count: "1",
			Preview: []map[string]any{{"seen": names}}}}}, nil
	}
}

// TestWalkBoundsNodesPerAnswer: an answer that names thousands of values
// adds the first Config.room of those to look up and of those skipped,
// and counts the rest on its node and in the summary; the lookups are
// those an unbounded walk would make.
func TestWalkBoundsNodesPerAnswer(t *testing.T) {
	const per, budget = 3000, 6
	var mu sync.Mutex
	var looked []string
	s := crowd(per)
	g, _ := Walk(context.Background(), SearcherFunc(func(ctx context.Context, q string) (*api.SearchResponse, error) {
		mu.Lock()
		looked = append(looked, q)
		mu.Unlock()
		return s(ctx, q)
	}), start("a.example.com"), Config{Depth: 2, MaxLookups: budget, Concurrency: 1, Skipper: &triage.Skipper{Noise: true}})
	room := min(budget, maxRoom)
	// Each answer adds at most room nodes to look up and room skipped.
	if most := 1 + budget*2*room; len(g.Nodes) > most {
		t.Fatalf("%d nodes, want at most %d", len(g.Nodes), most)
	}
	want := []string{"a.example.com"}
	for i := range budget - 1 {
		want = append(want, fmt.Sprintf("h%d.a.example.com", i))
	}
	if !slices.Equal(looked, want) {
		t.Errorf("looked up %q, want %q", looked, want)
	}
	sum := 0
	for _, n := range g.Nodes {
		// The start's answer names only new values; the others name the
		// same private addresses again, which are linked, not left out.
		if n.Depth == 0 && n.LeftOut != 2*(per-room) || n.Depth == 1 && n.Status == Matched && n.LeftOut < per-room {
			t.Errorf("%s: %d left out, want %d", n.Value, n.LeftOut, 2*(per-room))
		}
		sum += n.LeftOut
	}
	if sum != g.Summary.LeftOut || sum == 0 {
		t.Errorf("summary left_out %d, nodes' %d", g.Summary.LeftOut, sum)
	}
}
