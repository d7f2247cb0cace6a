package api

import (
	"bytes"
	"encoding/json"
	"iter"
	"unicode/utf8"
)

// KeptResults is how many results a decoded answer keeps in Results: the
// most any format shows of one answer (the table's 500 rows, a preview's
// 500 results, the results md, stix and misp list per indicator). The rest
// are counted as the answer is scanned, which costs no memory, and All
// decodes them one at a time from the server's bytes for the formats that
// print every result (csv). Without the cap, 10M empty results (30 MB)
// decoded into a slice cost 4.5 GB.
const KeptResults = 500

// Bounds of the preview records kept per answer, for the same reason: a
// record with 1M keys decoded into a map costs 170 MB.
const (
	// KeptPreviewFields is how many keys of one preview record are kept.
	KeptPreviewFields = 256
	// keptPreviewBytes is how many bytes of the server's preview records
	// are decoded in all, over the kept results of one answer; a decoded
	// value costs up to about 15 times its JSON, so 2 MiB stays under 30 MB.
	keptPreviewBytes = 2 << 20
)

// span is the exact bytes of one JSON value inside the body, without a
// copy (json.RawMessage would copy them).
type span []byte

func (s *span) UnmarshalJSON(b []byte) error {
	// As encoding/json decodes into a slice: the last array or null
	// wins, a value of another type leaves it as it was.
	switch b[0] {
	case '[':
		*s = b
	case 'n':
		*s = nil
	}
	return nil
}

// searchHead is SearchResponse with "results" kept as bytes, so that
// decoding the answer's own fields never decodes its results. Of several
// "results" (or "preview") members the last array wins whole, as for the
// count; encoding/json would merge their elements into one another, a
// quirk no answer relies on.
type searchHead struct {
	Query             string `json:"query"`
	DetectedType      string `json:"detected_type"`
	Strategy          string `json:"strategy"`
	UnsupportedReason string `json:"unsupported_reason"`
	Results           span   `json:"results"`
}

// resultHead is Result with "preview" kept as bytes, decoded within bounds.
type resultHead struct {
	Result
	Preview span `json:"preview"`
}

// skipped is a member decoded as nothing: the preview records of a result
// that All yields past the kept ones, which no format reads.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

type leanResult struct {
	Result
	Preview skipped `json:"preview"`
}

// decodeHead fills r's fields from body, and keeps the first KeptResults
// results. body is valid JSON (ScanSearch said so), so an error is a field
// of an unexpected type: keep what decoded, as encoding/json does.
func (r *SearchResponse) decodeHead(body []byte) {
	var h searchHead
	_ = json.Unmarshal(body, &h)
	r.Query, r.DetectedType, r.Strategy, r.UnsupportedReason = h.Query, h.DetectedType, h.Strategy, h.UnsupportedReason
	r.results, r.decoded = h.Results, true
	budget := keptPreviewBytes
	for elem := range arrayElems(h.Results) {
		if len(r.Results) == KeptResults {
			break
		}
		var rh resultHead
		_ = json.Unmarshal(elem, &rh)
		res := rh.Result
		res.Preview, res.PreviewOmitted, res.PreviewFieldsOmitted = decodePreview(rh.Preview, &budget)
		r.Results = append(r.Results, res)
	}
}

// decodePreview decodes a preview array as encoding/json decodes it into
// []map[string]any (an element that is not an object is a nil map), keeping
// at most KeptPreviewFields keys per record and *budget bytes of values in
// all; it returns how many records and keys it left out.
func decodePreview(arr span, budget *int) (recs []map[string]any, omitted, fieldsOmitted int) {
	if arr != nil {
		recs = []map[string]any{} // as encoding/json decodes [], not nil
	}
	for elem := range arrayElems(arr) {
		if *budget <= 0 {
			omitted++
			continue
		}
		if elem[0] != '{' {
			recs = append(recs, nil)
			*budget -= len(elem)
			continue
		}
		m := map[string]any{}
		for key, val := range objectMembers(elem) {
			_, dup := m[key]
			if !dup && len(m) >= KeptPreviewFields {
				fieldsOmitted++
				continue
			}
			if len(key)+len(val) > *budget {
				// The budget is spent: the records after this one
				// are left out whole rather than kept empty.
				*budget = 0
				fieldsOmitted++
				continue
			}
			*budget -= len(key) + len(val)
			var v any
			_ = json.Unmarshal(val, &v)
			m[key] = v
		}
		recs = append(recs, m)
	}
	return recs, omitted, fieldsOmitted
}

// arrayElems yields the elements of a valid JSON array, as bytes; nothing
// for nil.
func arrayElems(arr []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if len(arr) == 0 || arr[0] != '[' {
			return
		}
		s := scanner{b: arr, i: 1}
		s.stack = s.buf[:0]
		if s.skipSpace(); s.i < len(arr) && arr[s.i] == ']' {
			return
		}
		for {
			start := s.skipSpace()
			if !s.value() || !yield(arr[start:s.i]) {
				return
			}
			if s.skipSpace(); s.i >= len(arr) || arr[s.i] != ',' {
				return
			}
			s.i++
		}
	}
}

// objectMembers yields the members of a valid JSON object: each name
// unescaped, and its value's bytes.
func objectMembers(obj []byte) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		s := scanner{b: obj, i: 1}
		s.stack = s.buf[:0]
		if s.skipSpace(); s.i < len(obj) && obj[s.i] == '}' {
			return
		}
		for {
			key, escaped, ok := s.key()
			if !ok {
				return
			}
			name := string(key)
			if escaped || !utf8.Valid(key) { // as encoding/json unquotes (invalid UTF-8 becomes U+FFFD)
				_ = json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name)
			}
			start := s.skipSpace()
			if !s.value() || !yield(name, obj[start:s.i]) {
				return
			}
			if s.skipSpace(); s.i >= len(obj) || obj[s.i] != ',' {
				return
			}
			s.i++
		}
	}
}

// All yields every result of the answer in order: the kept ones, then the
// rest decoded one at a time from the server's bytes (without their preview
// records), so that printing every result costs the memory of one.
func (r *SearchResponse) All() iter.Seq2[int, Result] {
	return func(yield func(int, Result) bool) {
		if r == nil {
			return
		}
		for i, res := range r.Results {
			if !yield(i, res) {
				return
			}
		}
		i := len(r.Results)
		for elem := range r.rest() {
			var res leanResult
			_ = json.Unmarshal(elem, &res)
			if !yield(i, res.Result) {
				return
			}
			i++
		}
	}
}

// Counts yields the count of every result, in order, as All's results
// have it, but without decoding the results: the summary row adds up 10M
// of them in a fraction of the time. Only the "count" members are read.
func (r *SearchResponse) Counts() iter.Seq[json.Number] {
	return func(yield func(json.Number) bool) {
		if r == nil {
			return
		}
		for _, res := range r.Results {
			if !yield(res.Count) {
				return
			}
		}
		for elem := range r.rest() {
			if !yield(countOf(elem)) {
				return
			}
		}
	}
}

// rest yields the results past the kept ones, as the server's bytes.
func (r *SearchResponse) rest() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if r.ResultCount() <= len(r.Results) || len(r.Raw) == 0 {
			return
		}
		results := r.results
		if !r.decoded {
			// A raw answer (SearchRaw): find its results now, without
			// writing to r, which other goroutines may read.
			var h searchHead
			_ = json.Unmarshal(r.Raw, &h)
			results = h.Results
		}
		i, skip := 0, len(r.Results)
		for elem := range arrayElems(results) {
			if i >= skip && !yield(elem) {
				return
			}
			i++
		}
	}
}

// countOf is what encoding/json decodes into Result.Count from one result:
// of the members whose name folds to "count", the last number, or string
// holding a valid number, wins; other values leave it as it was, and a
// string that is not a number ends the decoding.
func countOf(elem []byte) json.Number {
	if elem[0] != '{' {
		return ""
	}
	var c json.Number
	s := scanner{b: elem, i: 1}
	s.stack = s.buf[:0]
	if s.skipSpace(); s.i < len(elem) && elem[s.i] == '}' {
		return ""
	}
	for {
		key, escaped, ok := s.key()
		if !ok {
			return c
		}
		start := s.skipSpace()
		if !s.value() {
			return c
		}
		if isCountKey(key, escaped) {
			switch val := elem[start:s.i]; val[0] {
			case '"':
				var n json.Number
				if json.Unmarshal(val, &n) != nil {
					return c // encoding/json stops at it, as All's decoding does
				}
				c = n
			case 't', 'f', 'n', '{', '[':
			default:
				c = json.Number(val)
			}
		}
		if s.skipSpace(); s.i >= len(elem) || elem[s.i] != ',' {
			return c
		}
		s.i++
	}
}

var countName = []byte("count")

// isCountKey is isResultsKey for "count" (a k may fold from the 3-byte
// Kelvin sign U+212A).
func isCountKey(key []byte, escaped bool) bool {
	if escaped {
		var name string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name) != nil {
			return false
		}
		key = []byte(name)
	}
	return len(key) >= 5 && len(key) <= 7 && bytes.EqualFold(key, countName)
}

// Lean is r without its raw bytes and preview records: what a run that
// keeps every answer until its end (md, stix, misp) needs. Its count stays
// the whole answer's.
func (r *SearchResponse) Lean() *SearchResponse {
	if r == nil {
		return nil
	}
	t := *r
	t.Raw, t.results = nil, nil
	t.Results = make([]Result, len(r.Results))
	for i, res := range r.Results {
		res.Preview = nil
		t.Results[i] = res
	}
	return &t
}
