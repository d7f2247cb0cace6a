package mcp

import (
	"cmp"
	"slices"

	"github.com/tilookup/tilookup/pkg/report"
)

// detail levels of search, triage and events.
const (
	detailSummary = "summary"
	detailFull    = "full"
)

// summary opens every multi-value answer: what an assistant needs first,
// whatever else the budget cuts.
type summary struct {
	Total        int            `json:"total" jsonschema:"values counted as the CLI counts them: looked up, plus skipped"`
	Matched      int            `json:"matched"`
	NoMatch      int            `json:"no_match"`
	Unsupported  int            `json:"unsupported"`
	Failed       int            `json:"failed"`
	Skipped      int            `json:"skipped" jsonschema:"values not looked up (private or reserved addresses, allow-list, warning lists)"`
	TopResources []resourceHits `json:"top_resources,omitempty" jsonschema:"the resources that matched the most values, most first"`
	NotLookedUp  int            `json:"not_looked_up,omitempty" jsonschema:"triage: indicators beyond the per-call limit, neither looked up nor skipped"`
	ByType       map[string]int `json:"by_type,omitempty" jsonschema:"values looked up, per local type"`
	URLHosts     int            `json:"url_hosts,omitempty" jsonschema:"triage: values that are the host of a URL in the text (looked up or skipped), each with from_url"`
}

// resourceHits is one resource and how many values it matched.
type resourceHits struct {
	Resource string `json:"resource,omitempty"`
	Label    string `json:"label,omitempty"`
	Values   int    `json:"values" jsonschema:"values that matched this resource"`
}

// topResources bounds the list of resources in a summary.
const topResources = 5

// summarize counts the statuses as the CLI's reports do (report.Summary,
// with the CLI's total) and ranks the resources matched.
func summarize(s report.Summary, digests []*digest) summary {
	out := summary{Total: s.Counted(), Matched: s.Matched, NoMatch: s.NoMatch, Unsupported: s.Unsupported, Failed: s.Failed, Skipped: s.Skipped, ByType: s.ByType, URLHosts: s.URLHosts}
	type key struct{ resource, label string }
	hits := map[key]int{}
	var order []key
	for _, d := range digests {
		if d == nil {
			continue
		}
		seen := map[key]bool{}
		for _, r := range d.Results {
			k := key{clean(r.Resource, noteRunes), clean(r.Label, noteRunes)}
			if seen[k] {
				continue
			}
			seen[k] = true
			if hits[k] == 0 {
				order = append(order, k)
			}
			hits[k]++
		}
	}
	// Most values first; a tie keeps the order first seen.
	slices.SortStableFunc(order, func(a, b key) int { return cmp.Compare(hits[b], hits[a]) })
	for _, k := range order[:min(len(order), topResources)] {
		out.TopResources = append(out.TopResources, resourceHits{Resource: k.resource, Label: k.label, Values: hits[k]})
	}
	return out
}

// omittedGroup is the entries of one status left out to fit the budget:
// their count, then as many of their values as fit.
type omittedGroup struct {
	Count  int      `json:"count"`
	Values []string `json:"values,omitempty" jsonschema:"the first values left out (long ones shortened)"`
}

// omitted lists what was left out, by status, in the order an assistant
// needs it.
type omitted struct {
	Matched     *omittedGroup `json:"matched,omitempty"`
	Unsupported *omittedGroup `json:"unsupported,omitempty"`
	Failed      *omittedGroup `json:"failed,omitempty"`
	NoMatch     *omittedGroup `json:"no_match,omitempty"`
	Skipped     *omittedGroup `json:"skipped,omitempty"`
}

// statusOrder is the order of entries in an answer: what an assistant
// acts on first.
var statusOrder = []report.Status{report.Matched, report.Unsupported, report.Failed, report.NoMatch}

func statusRank(s report.Status) int { return slices.Index(statusOrder, s) }

// omittedOf groups the values left out; listed is how many values, over
// all groups in order, are named.
func omittedOf(left []leftOut, listed int) *omitted {
	if len(left) == 0 {
		return nil
	}
	o := &omitted{}
	for _, l := range left {
		var g **omittedGroup
		switch l.status {
		case report.Matched:
			g = &o.Matched
		case report.Unsupported:
			g = &o.Unsupported
		case report.Failed:
			g = &o.Failed
		case report.NoMatch:
			g = &o.NoMatch
		default:
			g = &o.Skipped
		}
		if *g == nil {
			*g = &omittedGroup{}
		}
		(*g).Count++
		if listed > 0 {
			(*g).Values = append((*g).Values, clean(l.value, noteRunes))
			listed--
		}
	}
	return o
}

// leftOut is one value left out of an answer.
type leftOut struct {
	value  string
	status report.Status // "skipped" for a value not looked up
}
