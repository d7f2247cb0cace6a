package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Bounds of what is kept of one answer. The server asks for the answer's
// bytes only (api.Client.SearchRaw) and reads them here as a stream: an
// answer of 10M results, or a preview record of 1M keys, costs its bytes
// and these bounds, never a Go value per element (issue 28: 5.5 GB before).
const (
	// keptResources is the most matching resources kept per value; the
	// rest are counted. No budget shows more.
	keptResources = 200
	// previewFields is the most fields kept per preview record, and
	// previewItems the most elements kept per array inside one.
	previewFields = 50
	previewItems  = 20
	// previewDepth is the deepest a preview value is kept; deeper
	// objects and arrays become a note.
	previewDepth = 6
	// previewBytes bounds the preview records kept of one answer, over
	// all its resources (their strings, keys and numbers): the records
	// beyond are counted as left out. The bounds above alone would allow
	// 200 resources of 20 records of 50 long fields, some 200 MB.
	previewBytes = 1 << 20
)

// digest is what the server keeps of one answer: the fields it shows,
// cleaned (sanitised, cut) once, with preview records in the service's
// order.
type digest struct {
	DetectedType, Strategy, UnsupportedReason string
	Results                                   []digestResult
	Count                                     int // matching resources, also those not kept
}

type digestResult struct {
	Resource, Label, Group, MatchedColumn, MatchedValue, DetailURL string
	Count                                                          json.Number
	Preview                                                        []record
	PreviewCount                                                   int   // records, also those not kept
	PreviewCut                                                     bool  // a string, field or element of a kept record was cut
	PreviewSizes                                                   []int // the encoded size of each kept record
}

// record is a preview record with its keys in the service's order.
type record []field

type field struct {
	Key   string
	Value any // string, json.Number, bool, nil, record or []any
}

// MarshalJSON writes the fields in order, without HTML escaping, as
// marshal does.
func (r record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.Key)
		if err != nil {
			return nil, err
		}
		v, err := marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// errUnrepresentable is an answer holding a number that a float64 (what
// most clients, and the SDK's own validation, decode numbers to) cannot
// hold: that value's error, never the whole call's.
var errUnrepresentable = errors.New("unrepresentable number")

// representable reports whether n survives a float64 round.
func representable(n json.Number) bool {
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && !math.IsInf(f, 0)
}

// digestOf reads resp: from its bytes when it has them (SearchRaw), else
// from the decoded fields (a Searcher built in code). An overflowing
// number is a Decode failure of this value.
func digestOf(resp *api.SearchResponse) (*digest, error) {
	var d *digest
	var err error
	if len(resp.Raw) > 0 {
		if d, err = digestRaw(resp.Raw); err == nil {
			// Counted as the CLI counts (api.ScanSearch), in one place.
			d.Count = resp.ResultCount()
			d.Results = d.Results[:min(len(d.Results), d.Count)]
		}
	} else {
		d, err = digestDecoded(resp)
	}
	if err == nil {
		for i := range d.Results {
			r := &d.Results[i]
			for _, rec := range r.Preview {
				data, _ := marshal(rec)
				r.PreviewSizes = append(r.PreviewSizes, len(data))
			}
		}
	}
	if errors.Is(err, errUnrepresentable) {
		return nil, failure.New(failure.Decode, "the service's answer holds a number too large to represent (%v); run tilookup search -o json VALUE in a terminal to see it as sent", strings.TrimPrefix(err.Error(), errUnrepresentable.Error()+": "))
	}
	if err != nil {
		return nil, failure.Wrap(failure.Decode, err, "the service's answer cannot be read: "+err.Error())
	}
	return d, nil
}

func digestDecoded(resp *api.SearchResponse) (*digest, error) {
	d := &digest{DetectedType: clean(resp.DetectedType, maxString), Strategy: clean(resp.Strategy, maxString),
		UnsupportedReason: clean(resp.UnsupportedReason, maxString), Count: resp.ResultCount()}
	for _, res := range resp.Results[:min(len(resp.Results), keptResources)] {
		if res.Count != "" && !representable(res.Count) {
			return nil, fmt.Errorf("%w: count %s", errUnrepresentable, sanitize.Truncate(string(res.Count), 40))
		}
		r := digestResult{Resource: clean(res.Resource, maxString), Label: clean(res.Label, maxString), Group: clean(res.Group, maxString),
			MatchedColumn: clean(res.MatchedColumn, maxString), MatchedValue: clean(res.MatchedValue, maxString),
			DetailURL: clean(res.DetailURL, maxString), Count: res.Count, PreviewCount: len(res.Preview)}
		for _, rec := range res.Preview[:min(len(res.Preview), maxPreviewRows)] {
			v, err := fromDecoded(rec, 0, &r.PreviewCut)
			if err != nil {
				return nil, err
			}
			r.Preview = append(r.Preview, v.(record))
		}
		d.Results = append(d.Results, r)
	}
	return d, nil
}

// fromDecoded converts a decoded preview value, whose key order is lost,
// with sorted keys: only answers built in code have no bytes.
func fromDecoded(v any, depth int, cut *bool) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if depth >= previewDepth {
			*cut = true
			return "(nested object left out)", nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var r record
		*cut = *cut || len(keys) > previewFields
		for _, k := range keys[:min(len(keys), previewFields)] {
			e, err := fromDecoded(x[k], depth+1, cut)
			if err != nil {
				return nil, err
			}
			r = append(r, field{clean(k, maxString), e})
		}
		if r == nil {
			r = record{}
		}
		return r, nil
	case []any:
		if depth >= previewDepth {
			*cut = true
			return "(nested array left out)", nil
		}
		*cut = *cut || len(x) > previewItems
		out := make([]any, 0, min(len(x), previewItems))
		for _, e := range x[:min(len(x), previewItems)] {
			c, err := fromDecoded(e, depth+1, cut)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	case string:
		c := clean(x, previewRunes)
		*cut = *cut || len(c) < len(x)
		return c, nil
	case json.Number:
		if !representable(x) {
			return nil, fmt.Errorf("%w: %s", errUnrepresentable, sanitize.Truncate(string(x), 40))
		}
		return x, nil
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	}
	return v, nil
}

// digestRaw reads the answer's bytes token by token, keeping only what
// the bounds allow. The body was checked to be a JSON object by the
// client; fields of an unexpected type are ignored, as DecodeSearch does.
func digestRaw(raw []byte) (*digest, error) {
	p := &tokens{dec: json.NewDecoder(bytes.NewReader(raw))}
	p.dec.UseNumber()
	d := &digest{}
	if tok, err := p.next(); err != nil {
		return nil, err
	} else if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	for p.dec.More() {
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		// Keys match as encoding/json (and api.ScanSearch) match them.
		switch {
		case strings.EqualFold(key, "detected_type"):
			d.DetectedType, err = p.str(maxString)
		case strings.EqualFold(key, "strategy"):
			d.Strategy, err = p.str(maxString)
		case strings.EqualFold(key, "unsupported_reason"):
			d.UnsupportedReason, err = p.str(maxString)
		case strings.EqualFold(key, "results"):
			// Of several, the last array or null wins; another type
			// leaves the results as they were.
			var got []digestResult
			var n int
			var ok bool
			if got, n, ok, err = p.results(); ok {
				d.Results, d.Count = got, n
			}
		default:
			err = p.skip()
		}
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

type tokens struct {
	dec  *json.Decoder
	cut  bool // a preview value was cut
	kept int  // bytes of preview records kept, against previewBytes
}

func (p *tokens) next() (json.Token, error) {
	t, err := p.dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return t, err
}

func (p *tokens) key() (string, error) {
	t, err := p.next()
	if err != nil {
		return "", err
	}
	k, _ := t.(string)
	return k, nil
}

// skip reads one value and keeps nothing of it, checking its numbers: a
// value the answer holds but the server does not show cannot fail it.
func (p *tokens) skip() error {
	depth := 0
	for {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// str reads a string (anything else is ""), cleaned and cut to n runes.
func (p *tokens) str(n int) (string, error) {
	t, err := p.next()
	if err != nil {
		return "", err
	}
	switch t := t.(type) {
	case json.Delim:
		return "", p.skipOpened()
	case string:
		return clean(t, n), nil
	}
	return "", nil
}

// skipOpened skips the rest of an object or array whose delimiter was
// read.
func (p *tokens) skipOpened() error {
	depth := 1
	for depth > 0 {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// results reads the results array: the first keptResources kept, every
// one counted (as api.ScanSearch counts them).
func (p *tokens) results() ([]digestResult, int, bool, error) {
	t, err := p.next()
	if err != nil {
		return nil, 0, false, err
	}
	if t != json.Delim('[') {
		if d, ok := t.(json.Delim); ok && d == '{' {
			return nil, 0, false, p.skipOpened()
		}
		return nil, 0, t == nil, nil
	}
	var kept []digestResult
	n := 0
	for p.dec.More() {
		n++
		if len(kept) == keptResources {
			if err := p.skip(); err != nil {
				return nil, 0, false, err
			}
			continue
		}
		r, err := p.result()
		if err != nil {
			return nil, 0, false, err
		}
		kept = append(kept, r)
	}
	_, err = p.next() // ]
	return kept, n, true, err
}

func (p *tokens) result() (digestResult, error) {
	var r digestResult
	t, err := p.next()
	if err != nil {
		return r, err
	}
	switch t {
	case json.Delim('{'):
	case json.Delim('['):
		return r, p.skipOpened()
	default:
		return r, nil
	}
	for p.dec.More() {
		key, err := p.key()
		if err != nil {
			return r, err
		}
		switch {
		case strings.EqualFold(key, "resource"):
			r.Resource, err = p.str(maxString)
		case strings.EqualFold(key, "label"):
			r.Label, err = p.str(maxString)
		case strings.EqualFold(key, "group"):
			r.Group, err = p.str(maxString)
		case strings.EqualFold(key, "matched_column"):
			r.MatchedColumn, err = p.str(maxString)
		case strings.EqualFold(key, "matched_value"):
			r.MatchedValue, err = p.str(maxString)
		case strings.EqualFold(key, "detail_url"):
			r.DetailURL, err = p.str(maxString)
		case strings.EqualFold(key, "count"):
			var v any
			if v, err = p.value(0); err == nil {
				r.Count, _ = v.(json.Number)
			}
		case strings.EqualFold(key, "preview"):
			p.cut = false
			r.Preview, r.PreviewCount, err = p.previews()
			r.PreviewCut = p.cut
		default:
			err = p.skip()
		}
		if err != nil {
			return r, err
		}
	}
	_, err = p.next() // }
	return r, err
}

func (p *tokens) previews() ([]record, int, error) {
	t, err := p.next()
	if err != nil {
		return nil, 0, err
	}
	if t != json.Delim('[') {
		if d, ok := t.(json.Delim); ok && d == '{' {
			return nil, 0, p.skipOpened()
		}
		return nil, 0, nil
	}
	var recs []record
	n := 0
	for p.dec.More() {
		n++
		if len(recs) == maxPreviewRows || p.kept > previewBytes {
			if err := p.skip(); err != nil {
				return nil, 0, err
			}
			continue
		}
		v, err := p.value(0)
		if err != nil {
			return nil, 0, err
		}
		if r, ok := v.(record); ok {
			recs = append(recs, r)
		} else {
			recs = append(recs, record{{Key: "value", Value: v}})
		}
	}
	_, err = p.next() // ]
	return recs, n, err
}

// value reads one preview value within the bounds: strings cut to
// previewRunes, objects to previewFields fields, arrays to previewItems
// elements, nesting to previewDepth; what is cut is read and dropped.
func (p *tokens) value(depth int) (any, error) {
	t, err := p.next()
	if err != nil {
		return nil, err
	}
	switch x := t.(type) {
	case string:
		c := clean(x, previewRunes)
		p.cut = p.cut || len(c) < len(x)
		p.kept += len(c) + 3
		return c, nil
	case json.Number:
		if !representable(x) {
			return nil, fmt.Errorf("%w: %s", errUnrepresentable, sanitize.Truncate(string(x), 40))
		}
		p.kept += len(x) + 1
		return x, nil
	case json.Delim:
		if depth >= previewDepth {
			p.cut = true
			return "(nested value left out)", p.skipOpened()
		}
		if x == '{' {
			r := record{}
			for p.dec.More() {
				k, err := p.key()
				if err != nil {
					return nil, err
				}
				if len(r) == previewFields {
					p.cut = true
					if err := p.skip(); err != nil {
						return nil, err
					}
					continue
				}
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				k = clean(k, maxString)
				p.kept += len(k) + 4
				r = append(r, field{k, v})
			}
			_, err := p.next()
			return r, err
		}
		out := []any{}
		for p.dec.More() {
			if len(out) == previewItems {
				p.cut = true
				if err := p.skip(); err != nil {
					return nil, err
				}
				continue
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		_, err := p.next()
		return out, err
	}
	return t, nil // bool, nil
}
