package mcp

import (
	"context"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// The tools look values up through the same answer cache as the CLI.
func TestSearcherGoesThroughTheCache(t *testing.T) {
	reg := &httpmock.Registry{}
	reg.Register("a", httpmock.Any(), httpmock.JSON(`{"query":"a.example","results":[]}`))
	var wrapped int
	opts := &Options{
		Client: func(online.ClientFor, int) (*api.Client, error) {
			return api.New(api.Options{BaseURL: "https://ti.test", Token: "t", Transport: reg}, false)
		},
		Cache: func(next lookup.Searcher, c *api.Client, limit int, raw, refresh bool) lookup.Searcher {
			wrapped++
			return next
		},
		Concurrency: 2,
	}
	c := &clients{opts: opts}
	s, err := c.searcher(5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Search(context.Background(), "a.example"); err != nil {
		t.Fatal(err)
	}
	if wrapped != 1 || reg.Requests() != 1 {
		t.Fatalf("cache wrapped %d times, %d requests", wrapped, reg.Requests())
	}
}
