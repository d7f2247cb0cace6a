package search

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/tilookup/tilookup/internal/testenv"
	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
)

// cachedRun runs search over args with the cache in dir, as a new process
// would: a fresh harness (stub registry, output) over the same directory.
func cachedRun(t *testing.T, dir string, format output.Format, refresh bool, stubs func(*httpmock.Registry), args ...string) (*harness, error) {
	t.Helper()
	h := newHarness(t, args...)
	stubs(h.reg)
	h.opts.Output = func(jq string) (output.Options, error) { return output.Options{Format: format, JQ: jq}, nil }
	h.opts.Refresh = refresh
	h.opts.IO.SetTTY(false, false, true) // a person watches stderr: the closing line shows
	h.opts.Cache = func(next lookup.Searcher, c *api.Client, limit int, raw, refresh bool) lookup.Searcher {
		return cache.Open(cache.Options{Dir: dir}).Searcher(next, cache.ScopeOf(c, limit), cache.SearchOptions{TTL: 24 * time.Hour, Raw: raw, Refresh: refresh})
	}
	return h, h.run(t)
}

func stubAnswers(reg *httpmock.Registry) {
	reg.Register("a", httpmock.Query("q", "a.example"), httpmock.JSON(answer("a.example", 2)+"\n"))
	reg.Register("b", httpmock.Query("q", "b.example"), httpmock.JSON(` {"query": "b.example",  "results": [], "x": 1.50}`))
}

func TestSecondRunIsFromTheCache(t *testing.T) {
	for _, format := range []output.Format{output.NDJSON, output.JSON, output.CSV, output.Table} {
		dir := filepath.Join(t.TempDir(), "answers")
		args := []string{"a.example", "b.example", "a.example"}
		first, err := cachedRun(t, dir, format, false, stubAnswers, args...)
		if err != nil {
			t.Fatal(err)
		}
		if n := first.reg.Requests(); n != 2 {
			t.Fatalf("%s: first run made %d requests, want 2", format, n)
		}
		second, err := cachedRun(t, dir, format, false, func(*httpmock.Registry) {}, args...)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if n := second.reg.Requests(); n != 0 {
			t.Fatalf("%s: second run made %d requests", format, n)
		}
		if format == output.NDJSON && !bytes.Contains(second.errOut.Bytes(), []byte("3 values: 2 matched, 1 no match, 0 unsupported, 0 failed (3 from the cache)")) {
			t.Fatalf("the closing line does not count the cached answers:\n%s", second.errOut)
		}
		if format == output.Table {
			if !bytes.Contains(second.out.Bytes(), []byte("match (cached just now)")) {
				t.Fatalf("the table does not say which answers are cached:\n%s", second.out)
			}
			continue
		}
		if !bytes.Equal(first.out.Bytes(), second.out.Bytes()) {
			t.Fatalf("%s: output differs:\n%s\n%s", format, first.out, second.out)
		}
	}
}

func TestRefreshAsksOncePerValue(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "answers")
	if _, err := cachedRun(t, dir, output.NDJSON, false, stubAnswers, "a.example", "b.example"); err != nil {
		t.Fatal(err)
	}
	h, err := cachedRun(t, dir, output.NDJSON, true, stubAnswers, "a.example", "b.example", "a.example")
	if err != nil {
		t.Fatal(err)
	}
	h.reg.Verify(t)
	if n := h.reg.Requests(); n != 2 {
		t.Fatalf("--refresh made %d requests, want one per value", n)
	}
}

func TestFailedAnswerIsNotCached(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "answers")
	unavailable := func(reg *httpmock.Registry) {
		reg.Register("503", httpmock.Any(), httpmock.Status(http.StatusServiceUnavailable, nil, `{"error":"down"}`))
	}
	if _, err := cachedRun(t, dir, output.NDJSON, false, unavailable, "a.example"); err == nil {
		t.Fatal("a 503 should fail")
	}
	h, err := cachedRun(t, dir, output.NDJSON, false, stubAnswers, "a.example")
	if err != nil {
		t.Fatal(err)
	}
	if n := h.reg.Requests(); n != 1 {
		t.Fatalf("%d requests after a 503: the error was cached", n)
	}
}

// The promise: a re-run of a 1,000-value list asks the service
// nothing and prints the same records.
func TestThousandValuesRerunFromTheCache(t *testing.T) {
	testenv.Slow(t, "writes a thousand cache entries")
	dir := filepath.Join(t.TempDir(), "answers")
	var args []string
	for i := range 1000 {
		args = append(args, fmt.Sprintf("h%d.example", i))
	}
	echo := func(reg *httpmock.Registry) {
		reg.Register("echo", httpmock.Any(), func(req *http.Request) (*http.Response, error) {
			q := req.URL.Query().Get("q")
			return httpmock.JSON(answer(q, len(q)%3))(req)
		})
	}
	first, err := cachedRun(t, dir, output.NDJSON, false, echo, args...)
	if err != nil {
		t.Fatal(err)
	}
	second, err := cachedRun(t, dir, output.NDJSON, false, echo, args...)
	if err != nil {
		t.Fatal(err)
	}
	if first.reg.Requests() != 1000 || second.reg.Requests() != 0 {
		t.Fatalf("requests: first run %d, second %d", first.reg.Requests(), second.reg.Requests())
	}
	if !bytes.Equal(first.out.Bytes(), second.out.Bytes()) {
		t.Fatal("the re-run printed other records")
	}
}
