package api

import (
	"bytes"
	"encoding/json"
	"iter"
	"strconv"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Bounds are what a decoded answer keeps, so that an answer of 10M
// results or a preview record of 1M keys costs its bytes and the bounds,
// never a Go value per element (issue 28: 4.5 GB for the first, 170 MB for
// the second). A count left zero is no bound; PreviewBytes zero keeps no
// preview record.
type Bounds struct {
	// Results is how many results are kept; the rest are counted.
	Results int
	// Records is how many preview records of one result are kept.
	Records int
	// Fields is how many fields of one object in a preview record are
	// kept, and Items how many elements of one array.
	Fields, Items int
	// Depth is the deepest object or array kept in a preview record (the
	// record itself is depth 0); a deeper one becomes nestedNote.
	Depth int
	// Runes is how many runes of one string in a preview record are kept
	// (sanitize.Truncate: the last is "…").
	Runes int
	// PreviewBytes is how many bytes of preview records are kept over all
	// the results of one answer: each field of a record, and each record
	// that is not an object, is charged its bytes as sent (key included),
	// or what is kept of it when a bound cut it. The one that does not fit
	// is left out, and so are the records after it.
	PreviewBytes int
}

// DefaultBounds are the CLI's: as many results as any format shows (the
// table's 500 rows, md, stix and misp per indicator; csv reads the others
// one at a time with All), and preview records within 256 keys and 2 MiB
// (a decoded value costs up to about 15 times its JSON: under 30 MB).
func DefaultBounds() Bounds {
	return Bounds{Results: KeptResults, Fields: KeptPreviewFields, PreviewBytes: keptPreviewBytes}
}

// KeptResults is DefaultBounds().Results; the formats that list results
// name it.
const KeptResults = 500

const (
	// KeptPreviewFields is DefaultBounds().Fields.
	KeptPreviewFields = 256
	keptPreviewBytes  = 2 << 20
)

// full reports whether n things reach bound (none when it is 0).
func full(n, bound int) bool { return bound > 0 && n >= bound }

// cutsEveryValue reports whether the bounds cut every kind of value, so
// that what is kept of one is small whatever its bytes: it can then be
// decoded before it is charged. Otherwise a value is charged its bytes
// before it is decoded, and one too large is never decoded.
func (b Bounds) cutsEveryValue() bool {
	return b.Fields > 0 && b.Items > 0 && b.Depth > 0 && b.Runes > 0
}

// nestedNote stands for an object or array deeper than Bounds.Depth.
const nestedNote = "(nested value left out)"

// Answer is a search answer decoded within Bounds.
type Answer struct {
	Query, DetectedType, Strategy, UnsupportedReason string
	// Results are the first Bounds.Results results.
	Results []DecodedResult

	results span // the whole "results" array, for SearchResponse.rest
}

// DecodedResult is one result: its fields as encoding/json decodes them
// into Result, with Preview left empty for Records. PreviewOmitted counts
// the records left out, PreviewFieldsOmitted the fields left out of kept
// ones (at any depth), and PreviewCut says something of a kept record was
// cut (a field, an element, a nested value, a string).
type DecodedResult struct {
	Result
	// Records are the kept preview records in the service's order: a
	// Record for each object, the value itself for anything else (string,
	// json.Number, bool, nil, []any). Nil when the result has no
	// "preview" array, empty when it is [].
	Records []any
}

// Record is a preview record, or an object inside one, with its fields in
// the service's order (a repeated key is kept twice). Values are strings,
// json.Number (exact as sent), bools, nil, Records and []any.
type Record []Field

// Field is one member of a Record.
type Field struct {
	Key   string
	Value any
}

// MarshalJSON writes the fields in order, without HTML escaping: the
// service's values as sent.
func (r Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(f.Key); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(f.Value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Map is r as encoding/json decodes an object into map[string]any:
// numbers as float64 (nil when out of range), objects as maps, the last of
// a repeated key wins. A nil Record is a nil map.
func (r Record) Map() map[string]any {
	if r == nil {
		return nil
	}
	m := make(map[string]any, len(r))
	for _, f := range r {
		m[f.Key] = mapValue(f.Value)
	}
	return m
}

func mapValue(v any) any {
	switch x := v.(type) {
	case Record:
		return x.Map()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mapValue(e)
		}
		return out
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil
		}
		return f
	}
	return v
}

// Decode reads r within b: its bytes when it has them. An answer built in
// code keeps its fields as they are, and its preview records are read
// from their JSON within b (its maps' keys come sorted, as encoding/json
// writes them); the rest of it is not marshalled only to be read back.
func (r *SearchResponse) Decode(b Bounds) (*Answer, error) {
	if len(r.Raw) > 0 {
		return decodeAnswer([]byte(r.Raw), b), nil
	}
	a := &Answer{Query: r.Query, DetectedType: r.DetectedType, Strategy: r.Strategy, UnsupportedReason: r.UnsupportedReason}
	d := decoder{b: b, budget: b.PreviewBytes}
	for _, res := range r.Results {
		if full(len(a.Results), b.Results) {
			break
		}
		var preview span
		if res.Preview != nil {
			p, err := json.Marshal(res.Preview)
			if err != nil {
				return nil, err
			}
			preview = p
		}
		res.Preview = nil
		a.Results = append(a.Results, d.result(res, preview))
	}
	return a, nil
}

// result is one result with its preview records read within the bounds.
func (d *decoder) result(res Result, preview span) DecodedResult {
	dr := DecodedResult{Result: res}
	d.cut, d.fieldsOmitted = false, 0
	dr.Records, dr.PreviewOmitted = d.previews(preview)
	dr.PreviewFieldsOmitted, dr.PreviewCut = d.fieldsOmitted, d.cut
	return dr
}

// decodeAnswer decodes body, valid JSON (ScanSearch said so), within b.
// The answer's own fields and those of each kept result are decoded by
// encoding/json, which keeps what decoded and goes on past a field of an
// unexpected type; results and preview records are read from the bytes.
func decodeAnswer(body []byte, b Bounds) *Answer {
	var h searchHead
	_ = json.Unmarshal(body, &h)
	a := &Answer{Query: h.Query, DetectedType: h.DetectedType, Strategy: h.Strategy,
		UnsupportedReason: h.UnsupportedReason, results: h.Results}
	d := decoder{b: b, budget: b.PreviewBytes}
	for elem := range arrayElems(h.Results) {
		if full(len(a.Results), b.Results) {
			break
		}
		var rh resultHead
		_ = json.Unmarshal(elem, &rh)
		a.Results = append(a.Results, d.result(rh.Result, rh.Preview))
	}
	return a
}

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

// decoder reads the preview records of one answer within b.
type decoder struct {
	b      Bounds
	budget int // preview bytes left to keep, over the answer
	// Of the result being read: something of a kept record was cut, and
	// how many fields were left out.
	cut           bool
	fieldsOmitted int
}

// previews reads a result's preview array, and counts the records left
// out.
func (d *decoder) previews(arr span) (recs []any, omitted int) {
	if arr != nil {
		recs = []any{} // as encoding/json decodes [], not nil
	}
	for elem := range arrayElems(arr) {
		if d.budget <= 0 || full(len(recs), d.b.Records) {
			omitted++
			continue
		}
		if elem[0] != '{' {
			if v, ok := d.fit(0, elem, 0); ok {
				recs = append(recs, v)
			} else {
				omitted++
			}
			continue
		}
		rec := Record{}
		for key, val := range objectMembers(elem) {
			if full(len(rec), d.b.Fields) || d.budget <= 0 {
				d.leaveOut()
				continue
			}
			name := key.String()
			if v, ok := d.fit(len(name), val, 1); ok {
				rec = append(rec, Field{name, v})
			} else {
				d.leaveOut()
			}
		}
		recs = append(recs, rec)
	}
	return recs, omitted
}

func (d *decoder) leaveOut() {
	d.fieldsOmitted++
	d.cut = true
}

// fit decodes one value charged to the budget (a record's field, with its
// key's length, or a record that is not an object), if it fits; the one
// that does not fit spends the rest of the budget.
func (d *decoder) fit(keyLen int, raw []byte, depth int) (any, bool) {
	cost := keyLen + len(raw)
	if cost > d.budget && !d.b.cutsEveryValue() {
		d.budget = 0
		return nil, false
	}
	cut, omitted := d.cut, d.fieldsOmitted
	d.cut = false
	v := d.value(raw, depth)
	if d.cut {
		cost = min(cost, keyLen+size(v))
	}
	if cost > d.budget {
		d.budget, d.cut, d.fieldsOmitted = 0, cut, omitted
		return nil, false
	}
	d.budget -= cost
	d.cut = d.cut || cut
	return v, true
}

// value decodes one valid JSON value within the bounds, noting in d what
// it cut.
func (d *decoder) value(raw []byte, depth int) any {
	switch raw[0] {
	case '{', '[':
		if d.b.Depth > 0 && depth >= d.b.Depth {
			d.cut = true
			return nestedNote
		}
		if raw[0] == '[' {
			arr := []any{}
			for elem := range arrayElems(raw) {
				if full(len(arr), d.b.Items) {
					d.cut = true
					continue
				}
				arr = append(arr, d.value(elem, depth+1))
			}
			return arr
		}
		rec := Record{}
		for key, val := range objectMembers(raw) {
			if full(len(rec), d.b.Fields) {
				d.leaveOut()
				continue
			}
			rec = append(rec, Field{key.String(), d.value(val, depth+1)})
		}
		return rec
	case '"':
		s := unquote(raw[1:len(raw)-1], bytes.IndexByte(raw, '\\') >= 0)
		if d.b.Runes > 0 {
			if t := sanitize.Truncate(s, d.b.Runes); t != s {
				d.cut = true
				return t
			}
		}
		return s
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	}
	return json.Number(raw)
}

// size is about what v takes as JSON: what a value a bound cut is charged.
func size(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case json.Number:
		return len(x)
	case bool:
		return 5
	case Record:
		n := 2
		for _, f := range x {
			n += len(f.Key) + 4 + size(f.Value)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += size(e) + 1
		}
		return n
	}
	return 4 // null
}

// key is an object member's name as sent, between its quotes.
type key struct {
	raw     []byte
	escaped bool
}

// String is the name unescaped, as encoding/json unquotes it.
func (k key) String() string { return unquote(k.raw, k.escaped) }

// unquote is the string whose bytes between the quotes are s, as
// encoding/json unquotes it (invalid UTF-8 becomes U+FFFD).
func unquote(s []byte, escaped bool) string {
	if !escaped && utf8.Valid(s) {
		return string(s)
	}
	var out string
	_ = json.Unmarshal(append(append([]byte{'"'}, s...), '"'), &out)
	return out
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

// objectMembers yields the members of a valid JSON object: each name as
// sent (unescaped only when asked, so that a member left out costs
// nothing), and its value's bytes.
func objectMembers(obj []byte) iter.Seq2[key, []byte] {
	return func(yield func(key, []byte) bool) {
		s := scanner{b: obj, i: 1}
		s.stack = s.buf[:0]
		if s.skipSpace(); s.i < len(obj) && obj[s.i] == '}' {
			return
		}
		for {
			name, escaped, ok := s.key()
			if !ok {
				return
			}
			start := s.skipSpace()
			if !s.value() || !yield(key{name, escaped}, obj[start:s.i]) {
				return
			}
			if s.skipSpace(); s.i >= len(obj) || obj[s.i] != ',' {
				return
			}
			s.i++
		}
	}
}
