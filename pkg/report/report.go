// Package report is the outcome of a lookup over many indicators, as the
// hand-off formats (Markdown, STIX) and triage see it: each indicator with
// its status and the service's answer, and the values skipped before any
// request, with the reason. search builds one from its records, triage
// from a whole document.
package report

import (
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
)

// Status is what became of one indicator.
type Status string

const (
	Matched     Status = "matched"     // at least one resource matched
	NoMatch     Status = "no_match"    // the service knows the type; nothing matched
	Unsupported Status = "unsupported" // the service gave an unsupported_reason
	Failed      Status = "failed"      // no answer: an error
)

// Indicator is one value looked up.
type Indicator struct {
	Value string              // the value sent (refanged, normalised)
	Type  string              // the local type (ioc.Type), e.g. "ipv4"
	Resp  *api.SearchResponse // nil when Err is set
	Err   error
	// FromURL is the URL whose host this value is, when triage took it
	// from that URL rather than from the text itself.
	FromURL string
	// Warninglists names the CIDR warning lists (hosting, cloud, VPN
	// ranges) that hold the value: looked up all the same, and marked.
	Warninglists []string
}

// Status classifies the indicator.
func (i Indicator) Status() Status {
	switch {
	case i.Err != nil:
		return Failed
	case i.Resp.ResultCount() > 0:
		return Matched
	case i.Resp != nil && i.Resp.UnsupportedReason != "":
		return Unsupported
	}
	return NoMatch
}

// Skipped is a value not looked up, and why (a private address, an
// allow-list entry, a warning list).
type Skipped struct {
	Value  string
	Type   string
	Reason string
	// FromURL: as Indicator's.
	FromURL string
}

// Report is a whole run.
type Report struct {
	Title      string    // "Triage of report.txt", or the query of one search
	Time       time.Time // when the lookups were made (STIX valid_from)
	Indicators []Indicator
	Skipped    []Skipped
	// SkippedOmitted counts the skipped values left out of Skipped: a
	// run keeps the first ones to list and counts the rest.
	SkippedOmitted int
	// Interrupted says the run was stopped (Ctrl-C) before every value
	// was looked up: the report is the complete prefix.
	Interrupted bool
}

// Summary counts the indicators by status.
type Summary struct {
	Total, Matched, NoMatch, Unsupported, Failed, Skipped int
	ByType                                                map[string]int
	// SkippedByReason counts the skipped values by reason; its counts
	// add up to Skipped.
	SkippedByReason map[string]int
	// SkippedOmitted counts the skipped values that no list names (in
	// Skipped too).
	SkippedOmitted int
	// URLHosts counts the values taken from a URL's host (looked up or
	// skipped); they are in the counts above too.
	URLHosts int
	// Interrupted says the run stopped before every value was looked up.
	Interrupted bool
}

// Summarize counts r. SkippedByReason counts the values listed in
// r.Skipped only; a run that omitted some counts them itself.
func (r *Report) Summarize() Summary {
	s := Summary{Total: len(r.Indicators), Skipped: len(r.Skipped) + r.SkippedOmitted, SkippedOmitted: r.SkippedOmitted,
		ByType: map[string]int{}, SkippedByReason: map[string]int{}}
	for _, sk := range r.Skipped {
		s.SkippedByReason[sk.Reason]++
		if sk.FromURL != "" {
			s.URLHosts++
		}
	}
	for _, in := range r.Indicators {
		if in.FromURL != "" {
			s.URLHosts++
		}
		s.ByType[in.Type]++
		switch in.Status() {
		case Matched:
			s.Matched++
		case NoMatch:
			s.NoMatch++
		case Unsupported:
			s.Unsupported++
		case Failed:
			s.Failed++
		}
	}
	return s
}

// Counted is the total a report prints: the values looked up and those
// skipped. The CLI's triage and the MCP server both count with it.
func (s Summary) Counted() int { return s.Total + s.Skipped }

// TypeLabel is an indicator's type as a report shows it to a person:
// "domain", or "domain (URL host)" for a host taken from a URL.
func TypeLabel(typ, fromURL string) string {
	if fromURL == "" {
		return typ
	}
	return typ + " (URL host)"
}

// WarnMark is the short mark of a value on CIDR warning lists, as the
// table and Markdown show it: "warninglist: NAME, NAME"; "" for none.
func WarnMark(lists []string) string {
	if len(lists) == 0 {
		return ""
	}
	return "warninglist: " + strings.Join(lists, ", ")
}

// Kind is the failure kind of a failed indicator, for error objects.
func (i Indicator) Kind() failure.Kind { return failure.KindOf(i.Err) }

// Lean is resp without what no report shows (the raw bytes, the preview
// records), so that a run that keeps every answer until its end keeps
// only a few hundred bytes of each.
func Lean(resp *api.SearchResponse) *api.SearchResponse { return resp.Lean() }
