package output

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "just now", 59 * time.Second: "just now", time.Minute: "1m ago", 59 * time.Minute: "59m ago",
		3*time.Hour + 59*time.Minute: "3h ago", 47 * time.Hour: "47h ago", 48 * time.Hour: "2d ago", 30 * 24 * time.Hour: "30d ago",
	} {
		if got := Ago(d); got != want {
			t.Errorf("Ago(%v) = %q, want %q", d, got, want)
		}
	}
}

// A cached answer is marked in tables and nowhere else: JSON, NDJSON and
// CSV print exactly what a fresh answer prints.
func TestCachedAnswersAreMarkedInTablesOnly(t *testing.T) {
	fresh := []Record{rec(t, "a.example", "basic"), rec(t, "n.example", "nomatch")}
	cached := []Record{rec(t, "a.example", "basic"), rec(t, "n.example", "nomatch")}
	for _, r := range cached {
		r.Resp.CachedAt = time.Now().Add(-3*time.Hour - time.Minute)
	}

	single := string(printSearch(t, Options{Format: Table}, false, cached[0]))
	if !strings.Contains(single, "Cached:") || !strings.Contains(single, "3h ago") {
		t.Fatalf("single table without the mark:\n%s", single)
	}
	if s := string(printSearch(t, Options{Format: Table}, false, fresh[0])); strings.Contains(s, "Cached") {
		t.Fatalf("a fresh answer is marked:\n%s", s)
	}
	multi := string(printSearch(t, Options{Format: Table}, true, cached...))
	if !strings.Contains(multi, "match (cached 3h ago)") || !strings.Contains(multi, "no match (cached 3h ago)") {
		t.Fatalf("summary without the mark:\n%s", multi)
	}
	for _, f := range []Format{JSON, NDJSON, CSV} {
		for _, multi := range []bool{false, true} {
			want := printSearch(t, Options{Format: f}, multi, fresh...)
			if got := printSearch(t, Options{Format: f}, multi, cached...); !bytes.Equal(got, want) {
				t.Errorf("%s (multi %v) differs for a cached answer:\n%s\n%s", f, multi, got, want)
			}
		}
	}
}
