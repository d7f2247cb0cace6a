package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Bounds of what is kept of one answer, smaller than the CLI's: the
// server asks for the answer's bytes only (api.Client.SearchRaw) and
// api.SearchResponse.Decode reads them within these, so that an answer of
// 10M results, or a preview record of 1M keys, costs its bytes and these
// bounds (issue 28: 5.5 GB before).
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
	// all its resources: the records beyond are counted as left out. The
	// bounds above alone would allow 200 resources of 20 records of 50
	// long fields, some 200 MB.
	previewBytes = 1 << 20
)

func answerBounds() api.Bounds {
	return api.Bounds{Results: keptResources, Records: maxPreviewRows, Fields: previewFields, Items: previewItems,
		Depth: previewDepth, Runes: previewRunes, PreviewBytes: previewBytes}
}

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

// record is a preview record with its keys in the service's order, its
// keys and strings cleaned.
type record = api.Record

// errUnrepresentable is an answer holding a number that a float64 (what
// most clients, and the SDK's own validation, decode numbers to) cannot
// hold: that value's error, never the whole call's.
var errUnrepresentable = errors.New("unrepresentable number")

// representable reports whether n survives a float64 round.
func representable(n json.Number) bool {
	f, err := strconv.ParseFloat(string(n), 64)
	return err == nil && !math.IsInf(f, 0)
}

// digestOf reads resp within answerBounds and cleans what it keeps. An
// overflowing number is a Decode failure of this value.
func digestOf(resp *api.SearchResponse) (*digest, error) {
	a, err := resp.Decode(answerBounds())
	if err != nil {
		return nil, failure.Wrap(failure.Decode, err, "the service's answer cannot be read: "+err.Error())
	}
	// Counted as the CLI counts (api.ScanSearch), in one place.
	d := &digest{DetectedType: clean(a.DetectedType, maxString), Strategy: clean(a.Strategy, maxString),
		UnsupportedReason: clean(a.UnsupportedReason, maxString), Count: resp.ResultCount()}
	for _, res := range a.Results {
		r, err := digestResultOf(res)
		if err != nil {
			return nil, failure.New(failure.Decode, "the service's answer holds a number too large to represent (%v); run tilookup search -o json VALUE in a terminal to see it as sent", strings.TrimPrefix(err.Error(), errUnrepresentable.Error()+": "))
		}
		d.Results = append(d.Results, r)
	}
	return d, nil
}

func digestResultOf(res api.DecodedResult) (digestResult, error) {
	r := digestResult{Resource: clean(res.Resource, maxString), Label: clean(res.Label, maxString), Group: clean(res.Group, maxString),
		MatchedColumn: clean(res.MatchedColumn, maxString), MatchedValue: clean(res.MatchedValue, maxString),
		DetailURL: clean(res.DetailURL, maxString), Count: res.Count,
		PreviewCount: len(res.Records) + res.PreviewOmitted, PreviewCut: res.PreviewCut}
	if res.Count != "" && !representable(res.Count) {
		return r, fmt.Errorf("%w: count %s", errUnrepresentable, sanitize.Truncate(string(res.Count), 40))
	}
	for _, v := range res.Records {
		v, err := cleanValue(v, &r.PreviewCut)
		if err != nil {
			return r, err
		}
		rec, ok := v.(record)
		if !ok {
			rec = record{{Key: "value", Value: v}}
		}
		data, _ := marshal(rec)
		r.Preview = append(r.Preview, rec)
		r.PreviewSizes = append(r.PreviewSizes, len(data))
	}
	return r, nil
}

// cleanValue cleans a decoded preview value in place: keys and strings
// sanitised (a string shortened by it counts as cut), numbers checked.
func cleanValue(v any, cut *bool) (any, error) {
	var err error
	switch x := v.(type) {
	case record:
		for i := range x {
			x[i].Key = clean(x[i].Key, maxString)
			if x[i].Value, err = cleanValue(x[i].Value, cut); err != nil {
				return nil, err
			}
		}
	case []any:
		for i := range x {
			if x[i], err = cleanValue(x[i], cut); err != nil {
				return nil, err
			}
		}
	case string:
		c := clean(x, previewRunes)
		*cut = *cut || len(c) < len(x)
		return c, nil
	case json.Number:
		if !representable(x) {
			return nil, fmt.Errorf("%w: %s", errUnrepresentable, sanitize.Truncate(string(x), 40))
		}
	}
	return v, nil
}
