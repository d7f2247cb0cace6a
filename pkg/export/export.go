// Package export is the document printer layer: a run handed over as one
// document (Document: search's and triage's report, watch's changes,
// pivot's graph) is written in a format of the registry by WriteDocument,
// through the printers table (document.go): GitHub Flavoured Markdown for
// a ticket (Markdown), one STIX 2.1 bundle for a threat-intelligence
// platform (STIX), one MISP event (MISP). Every command that writes
// documents shares them; each takes the whole run at once, since no
// document can be streamed.
//
// Nothing from the service is trusted. In Markdown every string of data is
// escaped so that it stays inside its table cell or list item and cannot
// become a link, an image, HTML or emphasis; in STIX, strings are JSON
// strings and pattern literals are escaped.
//
// The report's answers must be decoded (lookup.Client with raw false): a
// raw answer has its results counted, not read, and there would be no
// resource to name or link.
package export

import (
	"bytes"
	"io"
	"time"

	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Write writes the document that write makes to w. On a terminal (tty) it
// is made whole first and passed through the sanitiser, as every other
// format is: a JSON document (STIX) gets \u escapes, the same value, and
// Markdown shows the characters a terminal would interpret (U+202E,
// U+200B, escape sequences) as harmless stand-ins. To a pipe or a file
// the bytes are unchanged, as a ticket or a platform should get them.
func Write(w io.Writer, tty, isJSON bool, write func(io.Writer) error) error {
	if !tty {
		return write(w)
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	out := b.Bytes()
	if isJSON {
		out = sanitize.JSON(out)
	} else {
		out = []byte(sanitize.Multiline(b.String()))
	}
	_, err := w.Write(out)
	return err
}

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
