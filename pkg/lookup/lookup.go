// Package lookup is the bulk search pipeline that search, triage and mcp
// share: values go through a Searcher (the API client, wrapped by a
// de-duplicating Searcher and later by a cache), looked up concurrently,
// and come out in input order with memory bounded by bytes.
//
// The shape is one way through: a source of Items → Run (an ordered
// concurrent map over a Searcher) → an emit function (a printer). Run
// decides no exit code and prints nothing.
package lookup

import (
	"context"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/ioc"
)

// Searcher answers one prepared value. Implementations are safe for
// concurrent use.
type Searcher interface {
	Search(ctx context.Context, value string) (*api.SearchResponse, error)
}

// SearcherFunc adapts a function to Searcher.
type SearcherFunc func(ctx context.Context, value string) (*api.SearchResponse, error)

func (f SearcherFunc) Search(ctx context.Context, value string) (*api.SearchResponse, error) {
	return f(ctx, value)
}

// Client is the Searcher of the service. raw asks only for the answer's
// bytes and its number of results (json, ndjson and --jq print the bytes);
// otherwise the fields are decoded too, for tables and CSV.
func Client(c *api.Client, limit int, raw bool) Searcher {
	if raw {
		return SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
			return c.SearchRaw(ctx, v, limit)
		})
	}
	return SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		return c.Search(ctx, v, limit)
	})
}

// Item is one value to look up, as read from the input.
type Item struct {
	Input string   // what the user gave (a line, an argument, a JSON "value")
	Value string   // the prepared value to send; empty when Err is set
	Type  ioc.Type // Value's local type, as preparing it found
	Err   error    // the value was rejected before any request
	// Offset is how far into the input the item ends, in bytes, for a
	// progress bar over a file; 0 when unknown.
	Offset int64
}

// Result is an Item and its answer, or why there is none.
type Result struct {
	Item Item
	Resp *api.SearchResponse // nil when Err is set
	Err  error               // Item.Err, or the lookup's error
}
