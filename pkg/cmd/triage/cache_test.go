package triage

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
)

// A report triaged again with the cache on asks the service nothing and
// prints the same document.
func TestTriageAgainIsFromTheCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "answers")
	run := func(stub bool) (*harness, error) {
		h := newHarness(t, output.JSON)
		if stub {
			h.reg.Register("ip", httpmock.Query("q", "203.0.113.66"), httpmock.JSON(answer("203.0.113.66", "IP reputation")))
			h.reg.Register("cve", httpmock.Query("q", "CVE-2021-44228"), httpmock.JSON(answer("CVE-2021-44228")))
		}
		h.opts.Cache = func(next lookup.Searcher, c *api.Client, limit int, raw, refresh bool) lookup.Searcher {
			return cache.Open(cache.Options{Dir: dir}).Searcher(next, cache.ScopeOf(c, limit), cache.SearchOptions{TTL: 24 * time.Hour, Raw: raw, Refresh: refresh})
		}
		h.in.WriteString("Beacon to 203.0.113[.]66, exploiting CVE-2021-44228.\n")
		return h, h.run()
	}
	first, err := run(true)
	if err != nil {
		t.Fatal(err)
	}
	first.reg.Verify(t)
	second, err := run(false)
	if err != nil {
		t.Fatal(err)
	}
	if n := second.reg.Requests(); n != 0 {
		t.Fatalf("the second triage made %d requests", n)
	}
	if first.out.String() != second.out.String() {
		t.Fatalf("the cached report differs:\n%s\n---\n%s", first.out, second.out)
	}
}
