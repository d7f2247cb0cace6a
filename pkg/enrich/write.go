package enrich

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// The status of one cell.
const (
	Matched     = "matched"
	NoMatch     = "no_match"
	Unsupported = "unsupported"
	Skipped     = "skipped"
	Error       = "error"
)

// Outcome is what became of one cell.
type Outcome struct {
	Status    string   // "" for an empty cell, not looked up
	Count     int      // the number of resources that matched
	Resources []string // their labels, in the service's order
	URL       string   // the first detail_url
	Reason    string   // skipped, unsupported: why
	Err       error    // Status error: why
}

// OutcomeOf reads one cell's result.
func OutcomeOf(r lookup.Result) Outcome {
	var l *Local
	switch {
	case errors.As(r.Err, &l):
		return Outcome{Status: l.Status, Reason: l.Reason}
	case r.Err != nil:
		return Outcome{Status: Error, Err: r.Err}
	case r.Resp.ResultCount() > 0:
		o := Outcome{Status: Matched, Count: r.Resp.ResultCount()}
		for _, res := range r.Resp.Results {
			label := res.Name()
			o.Resources = append(o.Resources, label)
			if o.URL == "" {
				o.URL = res.DetailURL
			}
		}
		return o
	case r.Resp.UnsupportedReason != "":
		return Outcome{Status: Unsupported, Reason: r.Resp.UnsupportedReason}
	}
	return Outcome{Status: NoMatch}
}

// Writer writes records back with their outcomes: CSV or TSV as read with
// four cells added per column, or NDJSON objects with a "tilookup" field.
type Writer struct {
	out    io.Writer
	layout *Layout
	ndjson bool
	// Cell guards a cell of service text (labels, URLs) in CSV and TSV
	// output, as search -o csv does; the user's own cells are never
	// passed through it.
	Cell func(string) string
	// Terminal cleans everything written before it reaches a terminal:
	// an export is data from the network (a log line, an NDJSON key may
	// carry escape sequences), and so are the service's labels. A file
	// or a pipe gets the input's bytes unchanged.
	Terminal bool
	buf      bytes.Buffer
}

// NewWriter writes to out; ndjson asks for NDJSON objects from a CSV or
// TSV input (header names as keys).
func NewWriter(out io.Writer, layout *Layout, ndjson bool) *Writer {
	return &Writer{out: out, layout: layout, ndjson: ndjson || layout.Format == NDJSON, Cell: func(s string) string { return s }}
}

// Header writes the CSV or TSV header with the added columns; nothing for
// NDJSON.
func (w *Writer) Header() error {
	if w.ndjson {
		return nil
	}
	b := &w.buf
	b.Reset()
	b.Write(w.layout.HeaderRaw)
	for _, c := range w.layout.Columns {
		for _, suffix := range addedSuffixes {
			b.WriteByte(Delimiter(w.layout.Format))
			w.writeCell(addedPrefix + c.Name + "_" + suffix)
		}
	}
	b.WriteString(w.lineEnd(w.layout.HeaderEnd))
	return w.flushBuf()
}

// lineEnd is a record's own line end, or the header's for a last record
// that had none, so that the output ends with a whole line.
func (w *Writer) lineEnd(end string) string {
	if end != "" {
		return end
	}
	if w.layout.HeaderEnd != "" {
		return w.layout.HeaderEnd
	}
	return "\n"
}

// Row writes one record (raw: its bytes and line end, as Source gave
// them) with the outcomes of its columns. A record that cannot carry them
// (an NDJSON line that is not an object, a CSV record longer than the
// header) is written back unchanged, or as an object of its cells when a
// CSV or TSV input goes out as NDJSON.
func (w *Writer) Row(raw string, outs []Outcome, bad bool) error {
	body, end := splitEnd(raw)
	b := &w.buf
	b.Reset()
	switch {
	case w.ndjson && w.layout.Format != NDJSON:
		// A bad record too: its cells as they are, so that the output
		// stays NDJSON.
		w.object(body, outs)
		b.WriteByte('\n')
	case bad || (w.layout.Format == NDJSON && strings.TrimSpace(body) == ""):
		b.WriteString(body)
		b.WriteString(end)
	case w.layout.Format == NDJSON:
		if !insertField(b, []byte(body), addedField, w.fields(outs)) {
			b.WriteString(body)
		}
		b.WriteString(w.lineEnd(end))
	default:
		b.WriteString(body)
		d := Delimiter(w.layout.Format)
		for _, o := range outs {
			b.WriteByte(d)
			b.WriteString(o.Status) // a fixed word
			b.WriteByte(d)
			if o.Status == Matched || o.Status == NoMatch {
				b.WriteString(strconv.Itoa(o.Count))
			}
			b.WriteByte(d)
			w.writeCell(w.Cell(strings.Join(o.Resources, ";")))
			b.WriteByte(d)
			w.writeCell(w.Cell(o.URL))
		}
		b.WriteString(w.lineEnd(end))
	}
	return w.flushBuf()
}

func splitEnd(raw string) (body, end string) {
	switch {
	case strings.HasSuffix(raw, "\r\n"):
		return raw[:len(raw)-2], "\r\n"
	case strings.HasSuffix(raw, "\n"):
		return raw[:len(raw)-1], "\n"
	}
	return raw, ""
}

// object writes a CSV or TSV record as a JSON object: header names as
// keys, in order; a cell beyond the header is kept under its position
// ("_7"), never dropped.
func (w *Writer) object(body string, outs []Outcome) {
	b := &w.buf
	b.WriteByte('{')
	n := 0
	EachCell([]byte(body), w.layout.Format, -1, func(i int, cell []byte) {
		if i > 0 {
			b.WriteByte(',')
		}
		name := "_" + strconv.Itoa(i+1)
		if i < len(w.layout.Header) {
			name = w.layout.Header[i]
		}
		writeJSONString(b, name)
		b.WriteByte(':')
		writeJSONString(b, Unquote(cell, w.layout.Format))
		n++
	})
	if n > 0 {
		b.WriteByte(',')
	}
	writeJSONString(b, addedField)
	b.WriteByte(':')
	b.Write(w.fields(outs))
	b.WriteByte('}')
}

// cellJSON is one column's member of the "tilookup" field.
type cellJSON struct {
	Status    string   `json:"status"`
	Count     *int     `json:"count,omitempty"`
	Resources []string `json:"resources,omitempty"`
	DetailURL string   `json:"detail_url,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// fields is the value of the "tilookup" field: an object with a member per
// column that had a value.
func (w *Writer) fields(outs []Outcome) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for i, o := range outs {
		if o.Status == "" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeJSONString(&b, w.layout.Columns[i].Name)
		b.WriteByte(':')
		c := cellJSON{Status: o.Status, Resources: o.Resources, DetailURL: o.URL, Reason: o.Reason}
		if o.Status == Matched || o.Status == NoMatch {
			c.Count = &o.Count
		}
		if o.Err != nil {
			c.Error = o.Err.Error()
		}
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(c)
		b.WriteString(strings.TrimSuffix(sb.String(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// writeCell writes an added cell so that it stays one cell: quoted in CSV
// when it holds the delimiter, a quote or a line end; in TSV, which has no
// quoting, those become spaces.
func (w *Writer) writeCell(s string) {
	b := &w.buf
	if w.layout.Format == TSV {
		b.WriteString(strings.NewReplacer("\t", " ", "\r", " ", "\n", " ").Replace(s))
		return
	}
	if !strings.ContainsAny(s, ",\"\r\n") {
		b.WriteString(s)
		return
	}
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(s, `"`, `""`))
	b.WriteByte('"')
}

func (w *Writer) flushBuf() error {
	if _, err := w.out.Write(w.shown(w.buf.Bytes())); err != nil {
		return failure.Wrap(failure.IO, err, "cannot write the output: "+err.Error())
	}
	return nil
}

// shown is a record as written, made safe for a terminal when the output
// is one: NDJSON with each unsafe character as a \u escape, so that it
// stays the same JSON; CSV and TSV with pkg/sanitize's visible stand-ins,
// the record's own line end kept.
func (w *Writer) shown(rec []byte) []byte {
	if !w.Terminal {
		return rec
	}
	if w.ndjson {
		return sanitize.JSON(rec)
	}
	body, end := splitEnd(string(rec))
	return []byte(sanitize.Multiline(body) + end)
}

// Sink takes the results of Run, one per column of each record, and
// writes each record once all its columns are in. It counts the outcomes
// for the exit code as triage does: the largest code of a failure, else 0
// when any cell matched and 1 when none did.
type Sink struct {
	W        *Writer
	FlushOut func() error // pushes buffered output to the reader
	// Progress is told how far into the input each written record ends.
	Progress func(offset int64)
	Tally    failure.Tally

	Failed   int    // cells with status error
	FirstErr string // the first of them, "value: message"
	BadRows  []error

	k    int
	row  []lookup.Result
	outs []Outcome
}

// NewSink writes to w.
func NewSink(w *Writer) *Sink { return &Sink{W: w, k: len(w.layout.Columns)} }

// Add implements lookup.Sink.
func (s *Sink) Add(r lookup.Result) error {
	s.row = append(s.row, r)
	if len(s.row) < s.k {
		return nil
	}
	defer func() { s.row = s.row[:0] }()
	var bad *rowError
	if errors.As(s.row[0].Err, &bad) {
		s.Tally.Raise(bad.err)
		s.BadRows = append(s.BadRows, bad)
		return s.W.Row(s.row[0].Item.Input, nil, true)
	}
	s.outs = s.outs[:0]
	for _, r := range s.row {
		o := OutcomeOf(r)
		switch o.Status {
		case Matched:
			s.Tally.Add(nil, true)
		case NoMatch, Unsupported:
			s.Tally.Add(nil, false)
		case Error:
			s.Tally.Add(o.Err, false)
			if s.Failed++; s.FirstErr == "" {
				v := r.Item.Value
				if v == "" {
					v = "a cell"
				}
				s.FirstErr = v + ": " + o.Err.Error()
			}
		}
		s.outs = append(s.outs, o)
	}
	if s.Progress != nil {
		s.Progress(s.row[0].Item.Offset)
	}
	return s.W.Row(s.row[0].Item.Input, s.outs, false)
}

// Flush implements lookup.Sink.
func (s *Sink) Flush() error {
	if s.FlushOut == nil {
		return nil
	}
	return s.FlushOut()
}

// The columns enrich adds to a CSV or TSV for an indicator column C are
// addedPrefix+C+"_"+suffix, for each of addedSuffixes; to an NDJSON
// object, the field addedField.
const (
	addedPrefix = "tl_"
	addedField  = "tilookup"
)

var addedSuffixes = []string{"status", "count", "resources", "url"}

// added tells a column or field that enrich itself adds (tl_C_status …,
// the "tilookup" field and what it holds): an export enriched once and
// given to enrich again holds them, and they are no indicators of the
// export's (tl_C_url is the service's own link).
func added(name string) bool {
	if name == addedField || strings.HasPrefix(name, addedField+".") {
		return true
	}
	if !strings.HasPrefix(name, addedPrefix) {
		return false
	}
	for _, suffix := range addedSuffixes {
		if strings.HasSuffix(name, "_"+suffix) && len(name) > len(addedPrefix)+len(suffix)+1 {
			return true
		}
	}
	return false
}
