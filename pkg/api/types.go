package api

import (
	"encoding/json"
	"time"
)

// SearchResponse is the body of a 200 from GET /api/ti/resources/search.
// Every field may be missing or null; Raw keeps the server's exact bytes so
// that JSON output can pass them through unchanged (unknown fields, exact
// numbers).
type SearchResponse struct {
	Query             string `json:"query"`
	DetectedType      string `json:"detected_type"`
	Strategy          string `json:"strategy"`
	UnsupportedReason string `json:"unsupported_reason"`
	// Results holds the first KeptResults results of a decoded answer;
	// ResultCount is how many there are, and All yields every one.
	Results []Result `json:"results"`

	Raw json.RawMessage `json:"-"`
	// CachedAt is when the answer was stored, for an answer that came
	// from the on-disk cache; zero for a fresh one. Never serialised: the
	// JSON output is the server's bytes.
	CachedAt time.Time `json:"-"`

	count int // number of results, also when they were only counted
	// results is the server's "results" array inside Raw, for All;
	// decoded says it was looked for (Search), so that nil means none.
	results span
	decoded bool
	// oneLine: Raw is known to hold no white space between tokens, so
	// that trimming it is enough to print it on one line. False when
	// unknown.
	oneLine bool
}

// OneLine reports whether bytes.TrimSpace(r.Raw) is already compact JSON,
// so that NDJSON can skip json.Compact (ScanSearch found it out for free).
func (r *SearchResponse) OneLine() bool { return r != nil && r.oneLine }

// ResultCount is the number of matching resources, whether the results were
// decoded (Search) or only counted (SearchRaw).
func (r *SearchResponse) ResultCount() int {
	if r == nil {
		return 0
	}
	return max(r.count, len(r.Results))
}

// Result is one matching resource.
type Result struct {
	Resource      string `json:"resource"`
	Label         string `json:"label"`
	Group         string `json:"group"`
	MatchedColumn string `json:"matched_column"`
	MatchedValue  string `json:"matched_value"`
	// Count is kept as the server wrote it, so that a count beyond 2^53
	// prints exactly. Empty when absent or null.
	Count json.Number `json:"count"`
	// Preview records are free-form objects, decoded as encoding/json does.
	// Kept within DefaultBounds (see Bounds); PreviewOmitted counts the
	// records left out, and PreviewFieldsOmitted the keys left out of kept
	// records.
	Preview   []map[string]any `json:"preview"`
	DetailURL string           `json:"detail_url"`

	PreviewOmitted       int  `json:"-"`
	PreviewFieldsOmitted int  `json:"-"`
	PreviewCut           bool `json:"-"` // a field or value of a kept record was cut
}

// Name is how a person reads the resource: its label, else its id.
func (r Result) Name() string {
	if r.Label != "" {
		return r.Label
	}
	return r.Resource
}
