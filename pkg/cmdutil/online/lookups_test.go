package online

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/lookup"
)

type closerFunc func()

func (f closerFunc) Close() error { f(); return nil }

type items []string

func (s *items) Next() (lookup.Item, bool, error) {
	if len(*s) == 0 {
		return lookup.Item{}, false, nil
	}
	v := (*s)[0]
	*s = (*s)[1:]
	return lookup.Item{Input: v, Value: v}, true, nil
}

type collect []lookup.Result

func (c *collect) Add(r lookup.Result) error { *c = append(*c, r); return nil }
func (c *collect) Flush() error              { return nil }

// The chain a command starts: the sandbox first (and ended by Close), the
// client at the command's pace, the command's own step under the
// de-duplication (a repeated value reaches it once), results in input
// order.
func TestLookupsChain(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		fmt.Fprintf(w, `{"query":%q,"detected_type":"domain","results":[]}`, r.URL.Query().Get("q"))
	}))
	defer srv.Close()

	var order []string
	var gotConcurrency int
	l := Lookups{
		Client: func(c int) (*api.Client, error) {
			order = append(order, "client")
			gotConcurrency = c
			return api.New(api.Options{BaseURL: srv.URL, Token: "t"}, true)
		},
		StartSandbox: func() (io.Closer, error) {
			order = append(order, "sandbox")
			return closerFunc(func() { order = append(order, "sandbox closed") }), nil
		},
		Sandbox:     true,
		Concurrency: 3,
	}
	var wrapped atomic.Int32
	service, err := l.Start(Chain{Wrap: func(next lookup.Searcher) lookup.Searcher {
		return lookup.SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
			wrapped.Add(1)
			return next.Search(ctx, v)
		})
	}})
	if err != nil {
		t.Fatal(err)
	}
	src := items{"a.example", "b.example", "a.example", "c.example"}
	var got collect
	if err := service.Run(context.Background(), &src, &got); err != nil {
		t.Fatal(err)
	}
	service.Close()

	if want := []string{"sandbox", "client", "sandbox closed"}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if gotConcurrency != 3 || service.Concurrency() != 3 {
		t.Errorf("client for %d requests, run at %d; want 3", gotConcurrency, service.Concurrency())
	}
	if len(got) != 4 || got[0].Item.Value != "a.example" || got[2].Item.Value != "a.example" || got[3].Item.Value != "c.example" {
		t.Fatalf("results %+v", got)
	}
	for _, r := range got {
		if r.Err != nil || r.Resp == nil || r.Resp.Query != r.Item.Value {
			t.Errorf("%s: %+v %v", r.Item.Value, r.Resp, r.Err)
		}
	}
	if wrapped.Load() != 3 || requests.Load() != 3 {
		t.Errorf("the command's step saw %d values and the service %d requests; want 3 each (one per distinct value)", wrapped.Load(), requests.Load())
	}
}

// A client that cannot be built ends the sandbox it was started for.
func TestLookupsStartFailureStopsTheSandbox(t *testing.T) {
	closed := false
	l := Lookups{
		Client:       func(int) (*api.Client, error) { return nil, errors.New("no base URL") },
		StartSandbox: func() (io.Closer, error) { return closerFunc(func() { closed = true }), nil },
		Sandbox:      true,
	}
	if _, err := l.Start(Chain{}); err == nil || !closed {
		t.Errorf("err %v, sandbox closed %v", err, closed)
	}
}
