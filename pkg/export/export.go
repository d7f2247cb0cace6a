// Package export writes a report.Report as a document to hand over: GitHub
// Flavoured Markdown for a ticket (Markdown) and one STIX 2.1 bundle for a
// threat-intelligence platform (STIX). search and triage share them; both
// take the whole run at once, since neither format can be streamed.
//
// Nothing from the service is trusted. In Markdown every string of data is
// escaped so that it stays inside its table cell or list item and cannot
// become a link, an image, HTML or emphasis; in STIX, strings are JSON
// strings and pattern literals are escaped.
package export

import (
	"time"

	"github.com/tilookup/tilookup/pkg/report"
)

// lookupTime is when the run's lookups were made; a report without one
// (a caller that forgot) gets the time of writing, so that valid_from and
// the summary line are never the zero year.
func lookupTime(r *report.Report) time.Time {
	if r.Time.IsZero() {
		return time.Now().UTC()
	}
	return r.Time.UTC()
}

// typeOf is the indicator's type, falling back on the service's
// detected_type when the local type is not known.
func typeOf(in report.Indicator) string {
	if in.Type != "" {
		return in.Type
	}
	if in.Resp != nil {
		return in.Resp.DetectedType
	}
	return ""
}
