package enrich

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/triage"
)

// Layout is what Open found out about an export.
type Layout struct {
	Format    Format
	Header    []string // CSV, TSV: the column names (a BOM taken off)
	HeaderRaw []byte   // CSV, TSV: the header record's bytes, BOM included
	HeaderEnd string   // its line end
	Columns   []Column
	Detected  bool // the columns were detected, not named
}

// Source hands the cells of an export's indicator columns to lookup.Run:
// len(Columns) items per record, in order. The first item of a record
// carries the record's bytes (Input), so that the ordering budget of Run
// counts them and the Sink can write the record back once all its cells
// are answered. A cell that is not to be looked up (empty, skipped, no
// indicator) is an item with a *Local error, which Run hands on without a
// request.
type Source struct {
	rd      *Reader
	layout  *Layout
	replay  []Record
	pending []lookup.Item
	Skipper *triage.Skipper // nil: nothing skipped (--no-skip)
	last    int             // the highest column index wanted
	// seen remembers what recent cells became: an export repeats a few
	// thousand values millions of times, and preparing a value (refang,
	// type, skip rules) costs more than reading its row.
	seen map[string]lookup.Item
	raw  [][]byte // a record's cells, reused
}

// seenMax bounds Source.seen; it starts over when full.
const seenMax = 8192

// Local is the status of a cell decided without a request.
type Local struct {
	Status string // "" for an empty cell
	Reason string
}

func (l *Local) Error() string { return l.Reason }

// rowError marks a record that cannot carry the added fields (an NDJSON
// line that is not an object): it is written back unchanged.
type rowError struct{ err error }

func (e *rowError) Error() string { return e.err.Error() }
func (e *rowError) Unwrap() error { return e.err }

var emptyCell = &Local{}

// Open reads an export's header and first records: the format (when f is
// Auto), the header and the indicator columns, named (names) or detected.
// skip is what the run skips (nil: nothing, as --no-skip).
func Open(r io.Reader, f Format, names []string, skip *triage.Skipper) (*Source, *Layout, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if f == Auto {
		head, err := br.Peek(4 << 10)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, nil, failure.Wrap(failure.IO, err, "cannot read the input: "+err.Error())
		}
		if len(strings.TrimSpace(string(head))) == 0 {
			return nil, nil, failure.New(failure.Input, "the input is empty: give a CSV (with a header), TSV or NDJSON export")
		}
		f = Sniff(head)
	}
	layout := &Layout{Format: f}
	s := &Source{rd: NewReader(br, f), layout: layout, Skipper: skip}
	if f == NDJSON {
		// A BOM is no part of the first object, and an NDJSON output
		// has no header to keep it in (a CSV or TSV header keeps it).
		if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
			n, _ := br.Discard(len(bom))
			s.rd.offset += int64(n)
		}
	}
	if f != NDJSON {
		rec, err := s.rd.Next()
		if err == io.EOF {
			return nil, nil, failure.New(failure.Input, "the input is empty: a %s export needs a header", f)
		}
		if err == nil {
			err = rec.Err // the whole input is the header
		}
		if err != nil {
			return nil, nil, err
		}
		layout.HeaderRaw, layout.HeaderEnd = rec.Raw, rec.End
		raw := rec.Raw
		if len(raw) >= len(bom) && string(raw[:len(bom)]) == string(bom) {
			raw = raw[len(bom):]
		}
		layout.Header = Cells(raw, f)
	}
	for len(s.replay) < SampleRows {
		rec, err := s.rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		s.replay = append(s.replay, rec)
	}
	var err error
	if len(names) > 0 {
		layout.Columns, err = s.named(names)
	} else {
		layout.Columns, err = s.detect()
		layout.Detected = true
	}
	if err != nil {
		return nil, nil, err
	}
	if err := s.enrichedAlready(); err != nil {
		return nil, nil, err
	}
	for _, c := range layout.Columns {
		s.last = max(s.last, c.Index)
	}
	return s, layout, nil
}

// enrichedAlready refuses an export that holds what enrich would add to it
// (an output of enrich given to it again): the added cells would come
// twice, under the same names, or a second "tilookup" member in an
// object, which a reader of JSON takes either of.
func (s *Source) enrichedAlready() error {
	const again = "the input was enriched already (it holds %s): give enrich the export it was made from"
	if s.layout.Format == NDJSON {
		for _, rec := range s.replay {
			if fields, err := Fields(rec.Raw); err == nil {
				for _, f := range fields {
					if f.Name == addedField {
						return failure.New(failure.Input, again, `a "`+addedField+`" field`)
					}
				}
			}
		}
		return nil
	}
	for _, c := range s.layout.Columns {
		for _, suffix := range addedSuffixes {
			if name := addedPrefix + c.Name + "_" + suffix; slices.Contains(s.layout.Header, name) {
				return failure.New(failure.Input, again, sanitize.Line(name))
			}
		}
	}
	return nil
}

func (s *Source) named(names []string) ([]Column, error) {
	var out []Column
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if s.layout.Format == NDJSON {
			if err := s.sampled(n); err != nil {
				return nil, err
			}
			out = append(out, Column{Name: n, Index: -1})
			continue
		}
		i := indexOf(s.layout.Header, n)
		if i < 0 {
			return nil, failure.New(failure.Usage, "no column %q in the header; the columns are: %s", n, strings.Join(s.layout.Header, ", "))
		}
		out = append(out, Column{Name: n, Index: i})
	}
	return out, nil
}

// sampled checks that an NDJSON field is in some sampled object, as a CSV
// column must be in the header: a misspelt name would match nothing, and
// the run would say nothing of it. With no object sampled (an empty
// input) there is nothing to check against.
func (s *Source) sampled(name string) error {
	var names []string
	seen := map[string]bool{}
	for _, rec := range s.replay {
		fields, err := Fields(rec.Raw)
		if err != nil {
			continue
		}
		if _, ok := Lookup(fields, name); ok {
			return nil
		}
		for _, f := range fields {
			if !seen[f.Name] {
				seen[f.Name] = true
				names = append(names, f.Name)
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	return failure.New(failure.Usage, "no field %q in the first %d records; the fields are: %s", name, SampleRows, strings.Join(names, ", "))
}

func indexOf(names []string, n string) int {
	for i, h := range names {
		if h == n {
			return i
		}
	}
	for i, h := range names { // "Src_IP" for src_ip, and a padded header
		if strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(n)) {
			return i
		}
	}
	return -1
}

func (s *Source) detect() ([]Column, error) {
	names := s.layout.Header
	d := detector{cols: make([]tally, len(names))}
	if s.layout.Format == NDJSON {
		names = s.sampleFields(&d)
	} else {
		for _, rec := range s.replay {
			if rec.Err != nil {
				continue
			}
			EachCell(rec.Raw, s.layout.Format, len(names)-1, func(i int, cell []byte) {
				if s.layout.Format == CSV && len(cell) > 0 && cell[0] == '"' {
					cell = []byte(unquote(cell))
				}
				d.add(i, cell)
			})
		}
	}
	cols := d.columns(names)
	if len(cols) == 0 {
		what := "column"
		if s.layout.Format == NDJSON {
			what = "field"
		}
		return nil, failure.New(failure.Usage, "no %s of indicators found in the first %d records; name them with --column NAME", what, SampleRows)
	}
	if s.layout.Format == NDJSON {
		for i := range cols {
			cols[i].Index = -1
		}
	}
	return cols, nil
}

// sampleFields counts the fields of the sampled NDJSON objects, nested
// ones included (eachLeaf), and names them in order of first appearance
// as --column names them: at most maxLeaves of each record, so that one
// hostile record does not crowd out the fields of the others.
func (s *Source) sampleFields(d *detector) []string {
	var names []string
	pos := map[string]int{}
	var leaves []Field
	count := map[string]int{}
	for _, rec := range s.replay {
		fields, err := Fields(rec.Raw)
		if err != nil {
			continue
		}
		leaves = leaves[:0]
		clear(count)
		n := 0
		eachLeaf(fields, "", 1, &n, func(name string, v json.RawMessage) {
			leaves = append(leaves, Field{Name: name, Value: v})
			count[name]++
		})
		for _, l := range leaves {
			i, ok := pos[l.Name]
			if !ok {
				i = len(names)
				pos[l.Name] = i
				names = append(names, l.Name)
			}
			v := l.Value
			switch count[l.Name] {
			case -1:
				continue // counted already
			case 1:
			default:
				// One name for two members ({"a.b": 1, "a": {"b": 2}},
				// or a key twice): counted once, as --column would read
				// it.
				v, _ = Lookup(fields, l.Name)
				count[l.Name] = -1
			}
			d.add(i, []byte(Text(v)))
		}
	}
	return names
}

// Next implements lookup.Source.
func (s *Source) Next() (lookup.Item, bool, error) {
	if len(s.pending) == 0 {
		var rec Record
		if len(s.replay) > 0 {
			rec, s.replay = s.replay[0], s.replay[1:]
		} else {
			var err error
			if rec, err = s.rd.Next(); err == io.EOF {
				return lookup.Item{}, false, nil
			} else if err != nil {
				return lookup.Item{}, false, err
			}
		}
		s.pending = s.items(rec, s.pending[:0])
	}
	it := s.pending[0]
	s.pending = s.pending[1:]
	return it, true, nil
}

// items are a record's cells to look up, one per column.
func (s *Source) items(rec Record, out []lookup.Item) []lookup.Item {
	cols := s.layout.Columns
	for range cols {
		out = append(out, lookup.Item{Err: emptyCell, Offset: rec.Offset})
	}
	out[0].Input = concat(rec.Raw, rec.End, "")
	if rec.Err != nil {
		out[0].Err = &rowError{rec.Err}
		return out
	}
	if s.layout.Format == NDJSON {
		if len(strings.TrimSpace(string(rec.Raw))) == 0 {
			return out // a blank line: written back as it is
		}
		fields, err := Fields(rec.Raw)
		if err != nil {
			out[0].Err = &rowError{fmt.Errorf("line %d: %w", rec.Line, err)}
			return out
		}
		for i, c := range cols {
			if v, ok := Lookup(fields, c.Name); ok {
				s.cell(&out[i], Text(v))
			}
		}
		return out
	}
	// The columns' cells, looked up only once the record is known to
	// have the header's shape.
	raw := s.raw[:0]
	cells := 0
	EachCell(rec.Raw, s.layout.Format, -1, func(n int, cell []byte) {
		cells++
		if n <= s.last {
			raw = append(raw, cell)
		}
	})
	s.raw = raw
	width := len(s.layout.Header)
	if cells > width {
		// Which of its cells is under which name cannot be told.
		out[0].Err = &rowError{failure.New(failure.Input, "line %d: %d cells, the header has %d: written back unchanged", rec.Line, cells, width)}
		return out
	}
	if cells < width {
		// Empty cells up to the header's width keep the added ones under
		// their names.
		pad := strings.Repeat(string(Delimiter(s.layout.Format)), width-cells)
		out[0].Input = concat(rec.Raw, pad, rec.End)
	}
	for i, c := range cols {
		if c.Index < len(raw) {
			s.rawCell(&out[i], raw[c.Index])
		}
	}
	return out
}

// concat is raw followed by a and b in one allocation (string(raw) + a
// copies a long record twice).
func concat(raw []byte, a, b string) string {
	var sb strings.Builder
	sb.Grow(len(raw) + len(a) + len(b))
	sb.Write(raw)
	sb.WriteString(a)
	sb.WriteString(b)
	return sb.String()
}

// rawCell is cell for a CSV or TSV cell's bytes, through s.seen.
func (s *Source) rawCell(it *lookup.Item, cell []byte) {
	if s.layout.Format == CSV && len(cell) > 0 && cell[0] == '"' {
		s.cell(it, unquote(cell))
		return
	}
	if prev, ok := s.seen[string(cell)]; ok { // no copy of cell for the look-up
		it.Value, it.Type, it.Err = prev.Value, prev.Type, prev.Err
		if it.Input == "" {
			it.Input = prev.Input
		}
		return
	}
	text := string(cell)
	s.cell(it, text)
	if s.seen == nil || len(s.seen) >= seenMax {
		s.seen = make(map[string]lookup.Item, 1024)
	}
	s.seen[text] = lookup.Item{Input: text, Value: it.Value, Type: it.Type, Err: it.Err}
}

// cell decides what becomes of one cell: a lookup, or a local status.
func (s *Source) cell(it *lookup.Item, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	v, t, err := ioc.Prepare(text, true)
	switch {
	case err != nil:
		it.Err = err
	case t == ioc.Unknown:
		// Not an indicator: a request would spend quota on a value the
		// service cannot search either.
		it.Err = &Local{Status: Unsupported, Reason: "not an indicator"}
	default:
		if r := s.Skipper.Reason(v, t); r != "" {
			it.Err = &Local{Status: Skipped, Reason: r}
			return
		}
		it.Err, it.Value, it.Type = nil, v, t
	}
	if it.Input == "" {
		it.Input = text
	}
}
