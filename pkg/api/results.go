package api

import (
	"bytes"
	"encoding/json"
	"iter"
)

// skipped is a member decoded as nothing: the preview records of a result
// that All yields past the kept ones, which no format reads.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

type leanResult struct {
	Result
	Preview skipped `json:"preview"`
}

// decodeHead fills r's fields from body, valid JSON (ScanSearch said so),
// within DefaultBounds; preview records in the map view the formats read.
func (r *SearchResponse) decodeHead(body []byte) {
	a := decodeAnswer(body, DefaultBounds())
	r.Query, r.DetectedType, r.Strategy, r.UnsupportedReason = a.Query, a.DetectedType, a.Strategy, a.UnsupportedReason
	r.results, r.decoded = a.results, true
	for _, res := range a.Results {
		if res.Records != nil {
			res.Preview = make([]map[string]any, len(res.Records))
			for i, rec := range res.Records {
				m, _ := rec.(Record) // anything else is a nil map, as encoding/json has it
				res.Preview[i] = m.Map()
			}
		}
		r.Results = append(r.Results, res.Result)
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
