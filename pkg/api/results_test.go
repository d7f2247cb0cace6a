package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// reference decodes body as SearchResponse was decoded before results were
// streamed: encoding/json into the whole struct.
// ok is false when encoding/json gave up midway (a string that is not a
// number for a count aborts it, where DecodeSearch goes on with the next
// result): then there is nothing to compare.
func reference(body []byte) (r SearchResponse, ok bool) {
	err := json.Unmarshal(body, &r)
	var typeErr *json.UnmarshalTypeError
	return r, err == nil || errors.As(err, &typeErr)
}

// sameAsEncodingJSON fails when DecodeSearch gives other fields or
// results than encoding/json, for an answer within the kept bounds.
func sameAsEncodingJSON(t *testing.T, body []byte) {
	t.Helper()
	got, err := DecodeSearch(body)
	if err != nil {
		return // not an object: ScanSearch's tests cover the verdict
	}
	all := slices.Collect(func(yield func(Result) bool) {
		for _, res := range got.All() {
			if !yield(res) {
				return
			}
		}
	})
	counts := slices.Collect(got.Counts())
	if len(all) != got.ResultCount() || len(counts) != len(all) {
		t.Fatalf("%s: All yields %d, Counts %d, ResultCount %d", body, len(all), len(counts), got.ResultCount())
	}
	for i, res := range all {
		if counts[i] != res.Count {
			t.Fatalf("%s: count %d is %q, All has %q", body, i, counts[i], res.Count)
		}
	}
	for elem := range arrayElems(got.results) {
		var lr leanResult
		_ = json.Unmarshal(elem, &lr)
		if c := countOf(elem); c != lr.Count {
			t.Fatalf("%s: countOf(%s) = %q, encoding/json %q", body, elem, c, lr.Count)
		}
	}
	want, ok := reference(body)
	if !ok {
		return
	}
	if got.Query != want.Query || got.DetectedType != want.DetectedType || got.Strategy != want.Strategy || got.UnsupportedReason != want.UnsupportedReason {
		t.Fatalf("%s: fields %+v, encoding/json %+v", body, *got, want)
	}
	if len(want.Results) > KeptResults {
		want.Results = want.Results[:KeptResults]
	}
	raw, _ := DecodeSearchRaw(body)
	i := 0
	for c := range raw.Counts() {
		if i >= len(want.Results) || c != want.Results[i].Count {
			t.Fatalf("%s: count %d is %q, encoding/json %v", body, i, c, want.Results)
		}
		i++
	}
	if i != len(want.Results) {
		t.Fatalf("%s: Counts yields %d, encoding/json %d", body, i, len(want.Results))
	}
	if len(got.Results) == 0 && len(want.Results) == 0 {
		return
	}
	if !reflect.DeepEqual(got.Results, want.Results) {
		t.Fatalf("%s:\nresults %#v\nencoding/json %#v", body, got.Results, want.Results)
	}
}

func TestDecodeSearchAsEncodingJSON(t *testing.T) {
	for _, body := range []string{
		string(sampleAnswer()),
		`{"results":[]}`, `{"results":null}`, `{"query":"x"}`, `{}`,
		`{"query":"q","detected_type":"ip","strategy":"s","unsupported_reason":"r","results":[{}]}`,
		`{"\u0072esults":[{"label":"a"}]}`, `{"RESULTS":[{"label":"a"}]}`, `{"reſults":[{"label":"a"}]}`,
		`{"Results":[{"label":"a"}],"results":[{"label":"b"},{}]}`,
		`{"results":[{"label":"a"}],"results":null}`,
		`{"results":[{"label":"a"}],"results":"x"}`, // a type error leaves the field as it was
		`{"results":[{"label":"a"}],"results":{"a":[1]}}`,
		`{"results":[1,"2",[3],{"label":4},{"label":"ok","count":"12"},null]}`,
		`{"results":[{"count":1e400,"label":"big"},{"count":-0.5E+3},{"count":"x"}]}`,
		`{"results":[{"preview":[{"a":1,"b":[1,{"c":null}],"a":2},null,3,"x",{}]}]}`,
		`{"results":[{"preview":{"a":1}},{"preview":"x"},{"preview":null}]}`,
		`{"results":[{"preview":[{"\u0061":1,"\"q\"":true,"k\u00e9":"v"}]}]}`,
		`{"results":[{"PREVIEW":[{"a":1}],"Label":"L","detail_URL":"u"}]}`,
		` { "query" : "x" , "results" : [ { "label" : "a" , "preview" : [ { "k" : 1 } ] } ] } ` + "\n",
		`{"results":[{"count":1,"COUNT":"2"},{"count":3,"count":null},{"count":5,"count":[6]},{"\u0063ount":7},{"coun\u212a":8},{"count":4,"count":"x"}]}`,
		`{"results":[{"count":4,"count":"x"},{"count":9}],"query":"q"}`, // encoding/json gives up here
		`{"results":[{"count":"x","count":4},{"count":"12","label":"a"},{"count":" 1"},{"count":true},{"count":{}}]}`,

		`{"query":1,"detected_type":null,"results":[{"resource":["x"],"label":"kept"}]}`,
	} {
		sameAsEncodingJSON(t, []byte(body))
	}
}

func FuzzDecodeSearch(f *testing.F) {
	f.Add(sampleAnswer())
	f.Add([]byte(`{"results":[{"preview":[{"a":1,"a":2},null,3]}],"RESULTS":[{}]}`))
	f.Add([]byte(`{"results":[{"preview":[{"\u0061":1}]},1,"x",{"count":1e400}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 1<<20 || !json.Valid(body) || repeatsKey(body) {
			return
		}
		sameAsEncodingJSON(t, body)
	})
}

// repeatsKey reports whether an object of body repeats a key, up to case
// (roughly as encoding/json matches them): encoding/json merges repeated
// arrays of structs where DecodeSearch keeps the last (see searchHead).
func repeatsKey(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		keys  map[string]bool
		isObj bool
		key   bool // the next token of the object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].isObj {
				stack[len(stack)-1].key = true
			}
			continue
		}
		if top != nil && top.isObj && top.key {
			k := strings.ToLower(strings.ReplaceAll(tok.(string), "ſ", "s"))
			if top.keys[k] {
				return true
			}
			top.keys[k] = true
			top.key = false
			continue
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{keys: map[string]bool{}, isObj: d == '{', key: d == '{'})
			continue
		}
		if top != nil && top.isObj {
			top.key = true
		}
	}
}

// manyResults is an answer with n results, each naming its index.
func manyResults(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"query":"q","results":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"label":"r%d","count":%d,"preview":[{"i":%d}]}`, i, i, i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestAllYieldsEveryResult: Results keeps the first KeptResults, All yields
// every one in order, for a decoded and for a raw (json, cached) answer.
func TestAllYieldsEveryResult(t *testing.T) {
	const n = KeptResults*2 + 37
	body := manyResults(n)
	ref, _ := reference(body)
	want := ref.Results
	for name, decode := range map[string]func([]byte) (*SearchResponse, error){"Search": DecodeSearch, "raw": DecodeSearchRaw} {
		resp, err := decode(body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.ResultCount() != n {
			t.Errorf("%s: ResultCount %d, want %d", name, resp.ResultCount(), n)
		}
		if name == "Search" && len(resp.Results) != KeptResults {
			t.Errorf("Search keeps %d results, want %d", len(resp.Results), KeptResults)
		}
		i := 0
		for j, res := range resp.All() {
			if j != i || res.Label != want[i].Label || res.Count != want[i].Count {
				t.Fatalf("%s: result %d is %d %+v, want %+v", name, i, j, res, want[i])
			}
			i++
		}
		if i != n {
			t.Errorf("%s: All yields %d results, want %d", name, i, n)
		}
		for j := range resp.All() {
			if j == KeptResults+3 {
				break // stopping early must not panic
			}
		}
		if lean := resp.Lean(); lean.ResultCount() != n || lean.Raw != nil || lean.results != nil {
			t.Errorf("%s: Lean keeps count %d, raw %d bytes", name, lean.ResultCount(), len(lean.Raw)+len(lean.results))
		}
	}
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestDecodeSearchMemory is issue 28: 10M empty results (30 MB) cost 4.5 GB
// decoded. Decoding now keeps KeptResults results whatever the count, and
// walking them all holds one at a time.
func TestDecodeSearchMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds its own allocations")
	}
	// 200k: kept whole they would take some 20 MB, far above the bounds.
	const n = 200_000
	body := []byte(`{"results":[` + strings.Repeat(`{},`, n-1) + `{}]}`)
	base := liveHeap()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	total := m.TotalAlloc
	resp, err := DecodeSearch(body)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m)
	if a := m.TotalAlloc - total; a > 1<<20 {
		t.Errorf("decoding %d empty results allocated %d bytes", n, a)
	}
	if live := int64(liveHeap()) - int64(base); live > 1<<20 {
		t.Errorf("an answer of %d empty results keeps %d bytes besides its body", n, live)
	}
	seen, peak := 0, uint64(0)
	for i := range resp.All() {
		if seen++; i%40_000 == 0 {
			peak = max(peak, liveHeap())
		}
	}
	if seen != n || resp.ResultCount() != n {
		t.Errorf("All yields %d, count %d; want %d", seen, resp.ResultCount(), n)
	}
	if grown := int64(peak) - int64(base); grown > 4<<20 {
		t.Errorf("walking %d results grew the heap by %d bytes", n, grown)
	}
	runtime.KeepAlive(resp)
}

// TestPreviewKeysBounded is issue 28: a preview record with 1M keys cost
// 170 MB. KeptPreviewFields keys are kept and the rest counted.
func TestPreviewKeysBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector adds its own allocations")
	}
	// 200k keys: decoded into a map they would take some 20 MB.
	const n = 200_000
	var b strings.Builder
	b.WriteString(`{"results":[{"label":"x","preview":[{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	b.WriteString(`},{"small":1}]}]}`)
	body := []byte(b.String())
	base := liveHeap()
	resp, err := DecodeSearch(body)
	if err != nil {
		t.Fatal(err)
	}
	if live := int64(liveHeap()) - int64(base); live > 1<<20 {
		t.Errorf("a record of %d keys keeps %d bytes besides its body", n, live)
	}
	res := resp.Results[0]
	if len(res.Preview) != 2 || len(res.Preview[0]) != KeptPreviewFields || res.PreviewFieldsOmitted != n-KeptPreviewFields {
		t.Fatalf("kept %d records, %d keys, %d keys omitted", len(res.Preview), len(res.Preview[0]), res.PreviewFieldsOmitted)
	}
	if res.Preview[0]["k0"] != float64(0) || res.Preview[0]["k255"] != float64(255) || res.Preview[1]["small"] != float64(1) {
		t.Errorf("kept the wrong keys: %v %v", res.Preview[0]["k0"], res.Preview[1])
	}
	runtime.KeepAlive(resp)
}

// TestPreviewBudget: past keptPreviewBytes of preview values in one answer,
// records are left out and counted.
func TestPreviewBudget(t *testing.T) {
	rec := `{"v":"` + strings.Repeat("x", 1000) + `"}`
	recs := strings.Repeat(rec+",", 99) + rec
	var b strings.Builder
	b.WriteString(`{"results":[`)
	const results = 50 // 50 x 100 x ~1 KB = 5 MB of preview
	for i := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"preview":[` + recs + `]}`)
	}
	b.WriteString("]}")
	resp, err := DecodeSearch([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	kept, omitted := 0, 0
	for _, res := range resp.Results {
		kept += len(res.Preview)
		omitted += res.PreviewOmitted + res.PreviewFieldsOmitted
	}
	if kept+omitted != results*100 && kept+omitted != results*100+1 { // +1: a record cut inside
		t.Errorf("kept %d + omitted %d records, want %d in all", kept, omitted, results*100)
	}
	if kept > keptPreviewBytes/1000+1 || kept < keptPreviewBytes/1010-1 { // a record is ~1,008 bytes
		t.Errorf("kept %d records of 1 KB, budget %d bytes", kept, keptPreviewBytes)
	}
}

// previewAnswer is an answer of 50 results of 10 preview records each,
// their fields in no sorted order, some nested: what the decoders of
// preview records are measured on.
func previewAnswer() []byte {
	var b strings.Builder
	b.WriteString(`{"query":"q","detected_type":"ip","results":[`)
	for i := range 50 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"resource":"r%d","label":"Feed %d","count":%d,"preview":[`, i, i, 10+i)
		for j := range 10 {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"z_seen":"2024-01-%02dT00:00:00Z","ip":"10.0.%d.%d","score":%d.5,"tags":["a","b","c"],"asn":{"number":%d,"name":"AS %d"}}`, j+1, i, j, j, 64500+j, j)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkDecodeSearch is the CLI's decoding of one answer: its head, the
// kept results and their preview records within the CLI's bounds.
func BenchmarkDecodeSearch(b *testing.B) {
	body := previewAnswer()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := DecodeSearch(body); err != nil {
			b.Fatal(err)
		}
	}
}
