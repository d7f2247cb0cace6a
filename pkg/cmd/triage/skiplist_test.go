package triage

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/triage"
)

// A report of any length runs in flat memory: what a run keeps of its
// skipped values does not grow with their number. The heap that outlives
// the scan of 300,000 distinct private addresses, per address, must stay
// far below the 340 bytes of issue 39.
func TestSkippedValuesKeepFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 4 MB report")
	}
	const n = 300_000
	var text bytes.Buffer
	for i := range n {
		fmt.Fprintf(&text, "10.%d.%d.%d\n", i>>16, i>>8&255, i&255)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	src := newSource(bytes.NewReader(text.Bytes()), &triage.Skipper{Noise: true})
	if _, ok, err := src.Next(); ok || err != nil {
		t.Fatalf("a value to look up (%v) or an error: %v", ok, err)
	}
	after := heap()
	perValue := (float64(after) - float64(before)) / n
	runtime.KeepAlive(src)
	runtime.KeepAlive(&text) // the report itself is not the run's to count

	var sum report.Summary
	sum.ByType = map[string]int{}
	src.skipped.Count(&sum)
	if sum.Skipped != n || sum.SkippedByReason["private address"] != n || sum.SkippedOmitted != n-skipSample {
		t.Fatalf("counted %+v", sum)
	}
	if first := src.skipped.Slice(); len(first) != skipSample || first[0].Value != "10.0.0.0" || first[skipSample-1].Value != "10.0.3.231" {
		t.Fatalf("sample of %d, from %v", len(first), first[0])
	}
	if perValue > 16 {
		t.Errorf("%.1f bytes kept per skipped value, want under 16", perValue)
	}
	t.Logf("%.2f bytes kept per skipped value", perValue)
}

// The lists name the first skipSample values and say how many more there
// are, in every format that lists them.
func TestSkippedListSaysWhatItLeavesOut(t *testing.T) {
	var text strings.Builder
	for i := range skipSample + 5 {
		fmt.Fprintf(&text, "10.1.%d.%d\n", i>>8, i&255)
	}
	for _, c := range []struct {
		format string
		args   func(*Options)
		want   string
	}{
		{"json", nil, `"skipped_omitted":5}`},
		{"ndjson", nil, `"skipped_omitted":5}`},
		{"table", func(o *Options) { o.ShowSkipped = true }, "… 5 values more skipped, not listed (the first 1000 are; the summary counts them all)\n"},
		{"md", nil, "- … 5 more skipped, not listed here\n"},
	} {
		h := newHarness(t, output.Format(c.format))
		if c.args != nil {
			c.args(h.opts)
		}
		h.in.WriteString(text.String())
		_ = h.run()
		if !strings.Contains(h.out.String(), c.want) {
			t.Errorf("%s: no %q in\n%s", c.format, c.want, tail(h.out.String()))
		}
	}
}

func tail(s string) string {
	if len(s) > 600 {
		return "…" + s[len(s)-600:]
	}
	return s
}
