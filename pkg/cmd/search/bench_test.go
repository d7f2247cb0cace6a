package search

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

// BenchmarkBulkNDJSON is a whole bulk run (input, pipeline, client,
// printer) against a loopback server, per value; see bench/bulk for the
// comparison with a minimal client.
func BenchmarkBulkNDJSON(b *testing.B) {
	srv := benchServer()
	defer srv.Close()
	var lines strings.Builder
	for i := range b.N {
		fmt.Fprintf(&lines, "host%d.example.com\n", i)
	}
	ios, _, _, _ := iostreams.Test()
	ios.In = io.NopCloser(strings.NewReader(lines.String()))
	ios.Out = io.Discard
	opts := &Options{
		IO: ios,
		Lookups: online.Lookups{
			Client: func(c int) (*api.Client, error) {
				return api.New(api.Options{BaseURL: srv.URL, Token: "t", Transport: api.DefaultTransport(c)}, false)
			},
			Concurrency: 16,
		},
		Output: func(jq string) (output.Options, error) { return output.Options{Format: output.NDJSON}, nil },
		Args:   []string{"-"},
	}
	b.ResetTimer()
	if err := run(context.Background(), opts); err != nil {
		b.Fatal(err)
	}
}

func benchServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"detected_type":"domain","strategy":"exact_domain","unsupported_reason":"","results":[{"resource":"domains","label":"Domains","group":"network","matched_column":"domain","matched_value":%q,"count":1,"preview":[{"score":42}],"detail_url":"http://127.0.0.1/x"}]}`, q, q)
	}))
}

// BenchmarkMinimalClient is the baseline of BenchmarkBulkNDJSON in the same
// process and against the same server: 16 goroutines that ask for each
// value and write the bodies as they come, unordered, as
// bench/bulk/minclient does. The ratio of the two is tilookup's own cost.
func BenchmarkMinimalClient(b *testing.B) {
	srv := benchServer()
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	client := &http.Client{Transport: tr}
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	b.ResetTimer()
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				req, _ := http.NewRequest("GET", srv.URL+"/api/ti/resources/search?q="+url.QueryEscape(fmt.Sprintf("host%d.example.com", i)), nil)
				req.Header.Set("Authorization", "Bearer t")
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mu.Lock()
				_, _ = io.Discard.Write(append(body, '\n'))
				mu.Unlock()
			}
		}()
	}
	for i := range b.N {
		next <- i
	}
	close(next)
	wg.Wait()
}
