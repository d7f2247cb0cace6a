package search

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/output"
)

// BenchmarkPipeline measures the per-value cost of a bulk NDJSON search
// against a minimal loopback server: reading, preparing, requesting,
// decoding and printing.
func BenchmarkPipeline(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		fmt.Fprintf(w, `{"query":%q,"detected_type":"domain","strategy":"exact_domain","unsupported_reason":"","results":[]}`, q)
	}))
	defer srv.Close()
	client, err := api.New(api.Options{BaseURL: srv.URL, Token: "t", Transport: api.DefaultTransport(16)}, false)
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; i < b.N; i++ {
		fmt.Fprintf(&sb, "host%d.example.com\n", i)
	}
	printer, _ := output.NewSearchPrinter(output.Options{Format: output.NDJSON, Out: io.Discard}, true)
	p := &pipeline{client: client, refang: true, concurrency: 16}
	b.ResetTimer()
	err = p.run(context.Background(), newInputs([]string{"-"}, nil, strings.NewReader(sb.String())), printer.Add)
	if err != nil {
		b.Fatal(err)
	}
}
