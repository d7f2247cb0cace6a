package triage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/report"
)

// writer prints a triage as the answers come, in input order. JSON, NDJSON
// and CSV stream; the table waits for the end, since it groups by status.
type writer interface {
	Add(report.Indicator) error
	// Flush pushes what is buffered to the reader (the next answer is
	// not ready yet).
	Flush() error
	// Close ends the report with what only the end knows.
	Close(report.Summary, *skipList) error
}

func newWriter(o output.Options, opts *Options, title string, now time.Time) (writer, error) {
	switch o.Format {
	case output.JSON:
		return &jsonWriter{o: o}, nil
	case output.NDJSON:
		return &ndjsonWriter{o: o}, nil
	case output.CSV:
		return newCSVWriter(o, opts), nil
	case output.Table, "":
		return &tableWriter{o: o, opts: opts, rep: report.Report{Title: title, Time: now}}, nil
	}
	if err := output.CheckFormat("triage", o.Format); err != nil {
		return nil, err
	}
	if cmdutil.IsDocument(o.Format) {
		return &documentWriter{o: o, opts: opts, rep: report.Report{Title: title, Time: now.UTC()}}, nil
	}
	return nil, failure.New(failure.Usage, "triage cannot write -o %s yet", o.Format)
}

// documentWriter keeps the run and writes it at the end in a document
// format (pkg/export's printers: Markdown, a STIX bundle, a MISP event):
// none can be streamed.
type documentWriter struct {
	o    output.Options
	opts *Options
	rep  report.Report
}

func (w *documentWriter) Add(ind report.Indicator) error {
	ind.Resp = report.Lean(ind.Resp)
	w.rep.Indicators = append(w.rep.Indicators, ind)
	return nil
}

func (w *documentWriter) Flush() error { return nil }

func (w *documentWriter) Close(sum report.Summary, skipped *skipList) error {
	// A document read later must say that it stops short.
	w.rep.Skipped, w.rep.SkippedOmitted, w.rep.Interrupted = skipped.Slice(), skipped.Omitted(), sum.Interrupted
	// Markdown goes into tickets: defanged unless asked otherwise.
	o := export.Options{TLP: w.opts.TLP, ToIDS: w.opts.ToIDS, Defang: w.opts.Defang || !w.opts.DefangSet}
	err := export.WriteDocument(w.o.Out, w.o.TTY, w.o.Format, export.Records(&w.rep), o)
	if err != nil {
		return failure.WriteError(err)
	}
	return flushOut(w.o.Out)
}

// The JSON objects of a triage.
type (
	indicatorJSON struct {
		Value   string `json:"value"`
		Type    string `json:"type"`
		FromURL string `json:"from_url,omitempty"`
		// Warninglists: the CIDR warning lists whose ranges hold the
		// value (looked up all the same).
		Warninglists []string        `json:"warninglists,omitempty"`
		Status       report.Status   `json:"status"`
		Result       json.RawMessage `json:"result,omitempty"`
		Error        *errorJSON      `json:"error,omitempty"`
	}
	errorJSON struct {
		Status  int    `json:"status,omitempty"`
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	skippedJSON struct {
		Value   string `json:"value"`
		Type    string `json:"type"`
		FromURL string `json:"from_url,omitempty"`
		Status  string `json:"status,omitempty"`
		Reason  string `json:"reason"`
	}
	summaryJSON struct {
		Total       int            `json:"total"`
		Matched     int            `json:"matched"`
		NoMatch     int            `json:"no_match"`
		Unsupported int            `json:"unsupported"`
		Failed      int            `json:"failed"`
		Skipped     int            `json:"skipped"`
		ByType      map[string]int `json:"by_type"`
		// Interrupted: the run stopped (Ctrl-C, SIGTERM, SIGHUP) before
		// every indicator was looked up; the document is the complete
		// prefix, and must not pass for the whole report.
		Interrupted bool `json:"interrupted"`
		// URLHosts counts the values taken from a URL's host (in the
		// counts above too).
		URLHosts int `json:"url_hosts"`
		// SkippedByReason counts the skipped values by reason.
		SkippedByReason map[string]int `json:"skipped_by_reason"`
		// SkippedOmitted counts the skipped values the skipped list
		// leaves out: it names the first skipSample only.
		SkippedOmitted int `json:"skipped_omitted,omitempty"`
	}
)

func newIndicatorJSON(ind report.Indicator) (indicatorJSON, error) {
	j := indicatorJSON{Value: ind.Value, Type: ind.Type, FromURL: ind.FromURL, Warninglists: ind.Warninglists, Status: ind.Status()}
	if ind.Err != nil {
		j.Error = &errorJSON{Status: httpStatus(ind.Err), Kind: string(failure.KindOf(ind.Err)), Message: ind.Err.Error()}
		return j, nil
	}
	raw := []byte(ind.Resp.Raw)
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(ind.Resp); err != nil {
			return j, err
		}
	}
	// The server's bytes, on one line: compacting keeps every token as
	// it was (unknown fields, exact numbers).
	var b bytes.Buffer
	if ind.Resp.OneLine() {
		b.Write(bytes.TrimSpace(raw))
	} else if err := json.Compact(&b, raw); err != nil {
		return j, failure.Wrap(failure.Decode, err, "the response is not valid JSON: "+err.Error())
	}
	j.Result = b.Bytes()
	return j, nil
}

func newSummaryJSON(s report.Summary) summaryJSON {
	if s.SkippedByReason == nil {
		s.SkippedByReason = map[string]int{} // {} rather than null: a script reads it whatever ran
	}
	return summaryJSON{Total: s.Counted(), Matched: s.Matched, NoMatch: s.NoMatch,
		Unsupported: s.Unsupported, Failed: s.Failed, Skipped: s.Skipped, ByType: s.ByType, Interrupted: s.Interrupted, URLHosts: s.URLHosts,
		SkippedByReason: s.SkippedByReason, SkippedOmitted: s.SkippedOmitted}
}

func httpStatus(err error) int {
	var hs interface{ HTTPStatus() int }
	if errors.As(err, &hs) {
		return hs.HTTPStatus()
	}
	return 0
}

// marshal encodes v on one line without escaping <, > and & (they are data).
func marshal(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// writeOut writes JSON text, with what a terminal would interpret escaped
// when the output is one.
func writeOut(o output.Options, b []byte) error { return output.WriteJSON(o, b) }

func flushOut(w io.Writer) error {
	if f, ok := w.(interface{ Flush() error }); ok {
		return failure.WriteError(f.Flush())
	}
	return nil
}

// jsonWriter writes one document, {"indicators": [...], "skipped": [...],
// "summary": {...}}, an indicator per line as its answer comes; the
// summary goes last because it is only known at the end.
type jsonWriter struct {
	o   output.Options
	n   int
	buf bytes.Buffer
}

func (w *jsonWriter) Add(ind report.Indicator) error {
	j, err := newIndicatorJSON(ind)
	if err != nil {
		return err
	}
	w.buf.Reset()
	if w.n == 0 {
		w.buf.WriteString("{\"indicators\": [\n")
	} else {
		w.buf.WriteString(",\n")
	}
	w.n++
	if err := marshal(&w.buf, j); err != nil {
		return err
	}
	return writeOut(w.o, w.buf.Bytes())
}

func (w *jsonWriter) Flush() error { return flushOut(w.o.Out) }

func (w *jsonWriter) Close(sum report.Summary, skipped *skipList) error {
	w.buf.Reset()
	if w.n == 0 {
		w.buf.WriteString("{\"indicators\": [],\n")
	} else {
		w.buf.WriteString("\n],\n")
	}
	w.buf.WriteString("\"skipped\": [")
	// Written as they are read back, so that millions of them never sit
	// in the buffer at once.
	n := 0
	err := skipped.Each(func(s report.Skipped) error {
		if n > 0 {
			w.buf.WriteByte(',')
		}
		n++
		w.buf.WriteString("\n")
		if err := marshal(&w.buf, skippedJSON{Value: s.Value, Type: s.Type, FromURL: s.FromURL, Reason: s.Reason}); err != nil {
			return err
		}
		if w.buf.Len() < 64<<10 {
			return nil
		}
		err := writeOut(w.o, w.buf.Bytes())
		w.buf.Reset()
		return err
	})
	if err != nil {
		return err
	}
	if n > 0 {
		w.buf.WriteString("\n")
	}
	w.buf.WriteString("],\n\"summary\": ")
	if err := marshal(&w.buf, newSummaryJSON(sum)); err != nil {
		return err
	}
	w.buf.WriteString("}\n")
	if err := writeOut(w.o, w.buf.Bytes()); err != nil {
		return err
	}
	return flushOut(w.o.Out)
}

// ndjsonWriter writes a line per indicator, then a line per skipped value
// (status "skipped"), then {"summary": ...}.
type ndjsonWriter struct {
	o   output.Options
	buf bytes.Buffer
}

func (w *ndjsonWriter) Add(ind report.Indicator) error {
	j, err := newIndicatorJSON(ind)
	if err != nil {
		return err
	}
	return w.line(j)
}

func (w *ndjsonWriter) line(v any) error {
	w.buf.Reset()
	if err := marshal(&w.buf, v); err != nil {
		return err
	}
	w.buf.WriteByte('\n')
	return writeOut(w.o, w.buf.Bytes())
}

func (w *ndjsonWriter) Flush() error { return flushOut(w.o.Out) }

func (w *ndjsonWriter) Close(sum report.Summary, skipped *skipList) error {
	if err := skipped.Each(func(s report.Skipped) error {
		return w.line(skippedJSON{Value: s.Value, Type: s.Type, FromURL: s.FromURL, Status: "skipped", Reason: s.Reason})
	}); err != nil {
		return err
	}
	if err := w.line(struct {
		Summary summaryJSON `json:"summary"`
	}{newSummaryJSON(sum)}); err != nil {
		return err
	}
	return flushOut(w.o.Out)
}

// csvColumns: one row per indicator and matching resource; an indicator
// with no match, a failed one and a skipped one are one row each. reason
// is the skip reason or the service's unsupported_reason.
// from_url, last so that existing column positions hold, is the URL a
// host was taken from.
var csvColumns = []string{"value", "type", "status", "resource", "label", "group",
	"matched_column", "matched_value", "count", "detail_url", "reason", "error", "from_url"}

type csvWriter struct {
	warn   func(string)
	defang bool
	w      *output.CSVWriter
}

func newCSVWriter(o output.Options, opts *Options) *csvWriter {
	o.CSVRaw = opts.CSVRaw
	return &csvWriter{warn: opts.warn, defang: opts.Defang, w: output.NewCSVWriter(o, csvColumns)}
}

func (w *csvWriter) Add(ind report.Indicator) error {
	value := w.indicator(ind.Value, ioc.Type(ind.Type))
	status := string(ind.Status())
	from := w.indicator(ind.FromURL, ioc.URL)
	switch {
	case ind.Err != nil:
		return w.row(value, ind.Type, status, "", "", "", "", "", "", "", "", ind.Err.Error(), from)
	case ind.Resp.ResultCount() == 0:
		return w.row(value, ind.Type, status, "", "", "", "", "", "", "", ind.Resp.UnsupportedReason, "", from)
	}
	for _, r := range ind.Resp.All() { // every result, as search's CSV
		mv := w.indicator(r.MatchedValue, ioc.Detect(r.MatchedValue))
		if err := w.row(value, ind.Type, status, r.Resource, r.Label, r.Group, r.MatchedColumn, mv,
			r.Count.String(), r.DetailURL, ind.Resp.UnsupportedReason, "", from); err != nil {
			return err
		}
	}
	return nil
}

func (w *csvWriter) indicator(v string, t ioc.Type) string {
	if w.defang {
		return ioc.Defang(v, t)
	}
	return v
}

func (w *csvWriter) row(cells ...string) error { return w.w.Write(cells) }

func (w *csvWriter) Flush() error { return w.w.Flush() }

func (w *csvWriter) Close(sum report.Summary, skipped *skipList) error {
	if err := skipped.Each(func(s report.Skipped) error {
		v := w.indicator(s.Value, ioc.Type(s.Type))
		return w.row(v, s.Type, "skipped", "", "", "", "", "", "", "", s.Reason, "", w.indicator(s.FromURL, ioc.URL))
	}); err != nil {
		return err
	}
	if sum.SkippedOmitted > 0 {
		// CSV has no summary to count them in; a row that is no value
		// would break a reader's columns. stderr says it.
		w.warn(omittedLine(sum.SkippedOmitted))
	}
	return w.w.Close() // no indicator at all: the header alone
}

// omittedLine says how many skipped values a list leaves out.
func omittedLine(n int) string {
	return fmt.Sprintf("%s more skipped, not listed (the first %d are; the summary counts them all)", plural(n, "value", "values"), skipSample)
}

// trimmed keeps of an answer what the table shows, so that a long report
// does not hold every answer's bytes until the end.
func trimmed(resp *api.SearchResponse) *api.SearchResponse {
	if resp == nil {
		return nil
	}
	// Lean keeps the whole answer's result count; of each result, only
	// what the table shows.
	t := resp.Lean()
	t.Query, t.Strategy, t.CachedAt = "", "", time.Time{}
	for i, r := range t.Results {
		t.Results[i] = api.Result{Resource: r.Resource, Label: r.Label, Group: r.Group, Count: r.Count}
	}
	return t
}
