package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
)

// What is kept of an answer is bounded whatever its size (issue 28): the
// results beyond keptResources are counted, not kept; a record keeps
// previewFields fields, an array previewItems elements, and the cut is
// noted.
func TestDigestBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := range 1_000_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("{}")
	}
	b.WriteString(`],"query":"x"}`)
	raw := func(body string) *api.SearchResponse {
		t.Helper()
		r, err := api.DecodeSearchRaw([]byte(body)) // as the server gets answers
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	d, err := digestOf(raw(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Results) != keptResources || d.Count != 1_000_000 {
		t.Fatalf("%d results kept, %d counted", len(d.Results), d.Count)
	}

	b.Reset()
	b.WriteString(`{"results":[{"resource":"r","count":1,"preview":[{`)
	for i := range 100_000 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"list":[` + strings.Repeat(`1,`, 1000) + `1],"deep":` + strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50) + `}`)
	for range 30 {
		b.WriteString(`,{"z":1}`)
	}
	b.WriteString(`]}]}`)
	d, err = digestOf(raw(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	r := d.Results[0]
	if len(r.Preview) != maxPreviewRows || r.PreviewCount != 31 || len(r.Preview[0]) != previewFields || !r.PreviewCut {
		t.Fatalf("%d records kept of %d, %d fields in the first, cut %v", len(r.Preview), r.PreviewCount, len(r.Preview[0]), r.PreviewCut)
	}
	if r.Preview[0][0].Key != "k0" || r.Preview[0][1].Key != "k1" {
		t.Fatalf("fields out of the service's order: %v", r.Preview[0][:2])
	}
}

// The same limits hold for an answer decoded in code, and for the odd
// shapes a hostile service may send instead of an array or an object.
func TestDigestShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"results":{"a":1}}`:                       "0/0",
		`{"results":"x","RESULTS":[{}]}`:            "1/1",
		`{"results":[{}],"RESULTS":"x"}`:            "1/1",
		`{"results":[{}],"reſults":null}`:           "0/0",
		`{"results":[1,"x",null,[]]}`:               "4/4",
		`{"results":[{"preview":{"a":1}}]}`:         "1/1",
		`{"results":[{"preview":[1,"s"]}]}`:         "1/1",
		`{"results":[{"count":"7","label":["x"]}]}`: "1/1",
	} {
		resp, err := api.DecodeSearchRaw([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		d, err := digestOf(resp)
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if d.Count != resp.ResultCount() {
			t.Errorf("%s: %d counted, the CLI counts %d", body, d.Count, resp.ResultCount())
		}
		if got := fmt.Sprintf("%d/%d", len(d.Results), d.Count); got != want {
			t.Errorf("%s: %s kept/counted, want %s", body, got, want)
		}
	}
}

// The preview records kept of one answer stop at previewBytes; the rest
// are counted as left out.
func TestDigestPreviewBytes(t *testing.T) {
	field := strings.Repeat("v", previewRunes)
	var rec strings.Builder
	rec.WriteByte('{')
	for i := range previewFields {
		if i > 0 {
			rec.WriteByte(',')
		}
		fmt.Fprintf(&rec, `"f%d":%q`, i, field)
	}
	rec.WriteByte('}')
	recs := strings.TrimSuffix(strings.Repeat(rec.String()+",", maxPreviewRows), ",")
	var b strings.Builder
	b.WriteString(`{"results":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"resource":"r%d","count":1,"preview":[%s]}`, i, recs)
	}
	b.WriteString(`]}`)
	resp, err := api.DecodeSearchRaw([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	d, err := digestOf(resp)
	if err != nil {
		t.Fatal(err)
	}
	kept, size, fields := 0, 0, 0
	for _, r := range d.Results {
		if r.PreviewCount != maxPreviewRows {
			t.Fatalf("%s: %d records counted", r.Resource, r.PreviewCount)
		}
		kept += len(r.Preview)
		for _, rec := range r.Preview {
			data, _ := marshal(rec)
			size += len(data)
			fields += len(rec)
		}
	}
	// Each field is charged its key and value as sent: JSON adds 4 bytes
	// of quotes, colon and comma to each, and 2 of braces to each record.
	if kept == 0 || kept == 10*maxPreviewRows || size > previewBytes+4*fields+2*kept {
		t.Fatalf("%d records kept (%d bytes) of %d (%d bytes)", kept, size, 10*maxPreviewRows, b.Len())
	}
}

// BenchmarkDigest is the server's reading of one answer within its bounds.
func BenchmarkDigest(b *testing.B) {
	var body strings.Builder
	body.WriteString(`{"query":"q","detected_type":"ip","results":[`)
	for i := range 50 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"resource":"r%d","label":"Feed %d","count":%d,"preview":[`, i, i, 10+i)
		for j := range 10 {
			if j > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, `{"z_seen":"2024-01-%02dT00:00:00Z","ip":"10.0.%d.%d","score":%d.5,"tags":["a","b","c"],"asn":{"number":%d,"name":"AS %d"}}`, j+1, i, j, j, 64500+j, j)
		}
		body.WriteString(`]}`)
	}
	body.WriteString(`]}`)
	resp, err := api.DecodeSearchRaw([]byte(body.String()))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(body.Len()))
	for b.Loop() {
		if _, err := digestOf(resp); err != nil {
			b.Fatal(err)
		}
	}
}

// What the server adds to api's decoding: keys and strings sanitised (a
// string the sanitiser shortened counts as cut), a record that is not an
// object shown as {"value": ...}, and the sizes the budget plans with.
func TestDigestCleans(t *testing.T) {
	resp, err := api.DecodeSearchRaw([]byte(`{"results":[{"label":"a\u001b[31mb","preview":[{"k\u200by":"v\u001b[31mx"},"s"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := digestOf(resp)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Results[0]
	var got []string
	for i, rec := range r.Preview {
		data, _ := marshal(rec)
		if len(data) != r.PreviewSizes[i] {
			t.Errorf("record %d: size %d, encoded %d bytes", i, r.PreviewSizes[i], len(data))
		}
		got = append(got, string(data))
	}
	want := []string{fmt.Sprintf(`{%q:%q}`, clean("k\u200by", maxString), clean("v\x1b[31mx", previewRunes)), `{"value":"s"}`}
	if r.Label != clean("a\x1b[31mb", maxString) || strings.Join(got, " ") != strings.Join(want, " ") || !r.PreviewCut || r.PreviewCount != 2 {
		t.Errorf("label %q, records %s (want %s), cut %v, %d counted", r.Label, got, want, r.PreviewCut, r.PreviewCount)
	}
}
