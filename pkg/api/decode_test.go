package api

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/internal/testenv"
)

// small are bounds that cut every kind of value, as the MCP server's do.
var small = Bounds{Results: 2, Records: 2, Fields: 4, Items: 2, Depth: 2, Runes: 4, PreviewBytes: 1 << 20}

func decodeWithin(t *testing.T, body string, b Bounds) *Answer {
	t.Helper()
	resp, err := DecodeSearchRaw([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	a, err := resp.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Each bound cuts what it names, the fields stay in the service's order,
// numbers stay as sent, and what was left out is counted.
func TestDecodeBounds(t *testing.T) {
	body := `{"query":"q","results":[{"resource":"r","count":12345678901234567890,"preview":[` +
		`{"z":1e400,"n":{"x":{"y":1},"w":[]},"a":"abcdefgh","m":[1,2,3],"extra":true},` +
		`[1,[2]],{"b":2}]},{"resource":"s"},{"resource":"t"}]}`
	a := decodeWithin(t, body, small)
	if a.Query != "q" || len(a.Results) != small.Results {
		t.Fatalf("query %q, %d results kept", a.Query, len(a.Results))
	}
	res := a.Results[0]
	var got []string
	for _, rec := range res.Records {
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	want := []string{
		`{"z":1e400,"n":{"x":"(nested value left out)","w":"(nested value left out)"},"a":"abc…","m":[1,2]}`,
		`[1,[2]]`, // the record is depth 0: [2] is depth 1
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Count != "12345678901234567890" || res.PreviewOmitted != 1 || res.PreviewFieldsOmitted != 1 || !res.PreviewCut {
		t.Errorf("count %s, %d records and %d fields omitted, cut %v", res.Count, res.PreviewOmitted, res.PreviewFieldsOmitted, res.PreviewCut)
	}
	if r := a.Results[1]; r.Resource != "s" || r.Records != nil || r.PreviewCut {
		t.Errorf("second result %+v", r)
	}
}

// The budget charges a field its bytes as sent when nothing cuts values
// (the CLI: the field too large is never decoded), and what is kept of it
// when every value is cut (MCP: a long string costs its kept runes).
func TestDecodeBudget(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	body := `{"results":[{"preview":[{"a":1,"long":"` + long + `","b":2},{"c":3}]}]}`
	for _, c := range []struct {
		name      string
		b         Bounds
		want      string
		omitted   int
		fieldsOut int
	}{
		{"bytes", Bounds{Fields: 10, PreviewBytes: 1000}, `{"a":1}`, 1, 2},
		{"kept", Bounds{Fields: 10, Items: 10, Depth: 10, Runes: 3, PreviewBytes: 1000}, `{"a":1,"long":"xx…","b":2} {"c":3}`, 0, 0},
	} {
		res := decodeWithin(t, body, c.b).Results[0]
		var got []string
		for _, rec := range res.Records {
			data, _ := json.Marshal(rec)
			got = append(got, string(data))
		}
		if strings.Join(got, " ") != c.want || res.PreviewOmitted != c.omitted || res.PreviewFieldsOmitted != c.fieldsOut || !res.PreviewCut {
			t.Errorf("%s: %s, %d records and %d fields omitted, cut %v; want %s, %d, %d",
				c.name, got, res.PreviewOmitted, res.PreviewFieldsOmitted, res.PreviewCut, c.want, c.omitted, c.fieldsOut)
		}
	}
}

// An answer built in code is decoded from its JSON: its maps' keys sorted,
// within the same bounds.
func TestDecodeBuiltInCode(t *testing.T) {
	resp := &SearchResponse{DetectedType: "ip", Results: []Result{{Resource: "r", Count: "3",
		Preview: []map[string]any{{"b": 1.5, "a": "abcdefgh", "c": json.Number("7")}, nil}}}}
	a, err := resp.Decode(small)
	if err != nil {
		t.Fatal(err)
	}
	res := a.Results[0]
	data, _ := json.Marshal(res.Records)
	if a.DetectedType != "ip" || res.Count != "3" || string(data) != `[{"a":"abc…","b":1.5,"c":7},null]` {
		t.Errorf("%s %s %s", a.DetectedType, res.Count, data)
	}
}

// A preview record of 1M keys and an answer of 1M results cost their bytes
// and the bounds (issue 28), within small bounds as within the CLI's.
func TestDecodeSmallBoundsMemory(t *testing.T) {
	testenv.Slow(t, "measures memory over a large answer")
	if raceEnabled {
		t.Skip("the race detector adds its own allocations")
	}
	const n = 1_000_000
	var b strings.Builder
	b.WriteString(`{"results":[{"resource":"r","preview":[{`)
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"last":1}]}` + strings.Repeat(`,{}`, n) + `]}`)
	resp, err := DecodeSearchRaw([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	base := liveHeap()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	total := m.TotalAlloc
	a, err := resp.Decode(small)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m)
	if alloc := m.TotalAlloc - total; alloc > 1<<20 {
		t.Errorf("decoding %d keys and %d results allocated %d bytes", n, n, alloc)
	}
	if live := int64(liveHeap()) - int64(base); live > 64<<10 {
		t.Errorf("the decoded answer keeps %d bytes", live)
	}
	rec := a.Results[0].Records[0].(Record)
	if len(a.Results) != small.Results || resp.ResultCount() != n+1 || len(rec) != small.Fields || rec[0].Key != "k0" || rec[3].Key != "k3" ||
		a.Results[0].PreviewFieldsOmitted != n+1-small.Fields {
		t.Errorf("%d results kept of %d, fields %v, %d omitted", len(a.Results), resp.ResultCount(), rec, a.Results[0].PreviewFieldsOmitted)
	}
	runtime.KeepAlive(a)
}
