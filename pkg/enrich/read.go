// Package enrich is what `tilookup enrich` needs besides the lookup
// pipeline: reading a CSV, TSV or NDJSON export record by record while
// keeping each record's exact bytes, finding the columns that hold
// indicators, and writing each record back with what the service knows
// about its indicators, in input order.
package enrich

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
)

// Format is the layout of an export.
type Format int

const (
	Auto Format = iota
	CSV
	TSV
	NDJSON
)

func (f Format) String() string {
	switch f {
	case CSV:
		return "csv"
	case TSV:
		return "tsv"
	case NDJSON:
		return "ndjson"
	}
	return "auto"
}

// Formats are the names enrich --input takes, the default first.
var Formats = []string{"auto", "csv", "tsv", "ndjson"}

// ParseFormat reads an --input name.
func ParseFormat(s string) (Format, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, true
	case "csv":
		return CSV, true
	case "tsv":
		return TSV, true
	case "ndjson", "jsonl", "json":
		return NDJSON, true
	}
	return Auto, false
}

var bom = []byte("\ufeff")

// Sniff tells the format from the first bytes of an export: an object is
// NDJSON, a first line with more tabs than commas is TSV, anything else
// CSV.
func Sniff(b []byte) Format {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, bom), " \t\r\n")
	if len(b) > 0 && b[0] == '{' {
		return NDJSON
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if bytes.Count(b, []byte{'\t'}) > bytes.Count(b, []byte{','}) {
		return TSV
	}
	return CSV
}

// DefaultMaxRecord bounds one record: beyond it a record is most likely a
// quote that never closes, which would otherwise read the whole file into
// memory as one cell.
const DefaultMaxRecord = 64 << 20

// Record is one record of an export: its bytes exactly as read.
type Record struct {
	Raw    []byte // without the line end; the caller may keep it
	End    string // the line end as read: "\r\n", "\n" or "" at the end of the input
	Line   int    // the line the record starts on, from 1
	Offset int64  // bytes of input read through the end of this record
	// Err says why the record cannot be read as cells (a CSV quote that
	// never closes): it is to be written back unchanged.
	Err error
}

// Reader reads an export record by record. A CSV record ends at a line
// end outside quotes (RFC 4180: a quoted cell may hold the delimiter, a
// doubled quote and line ends); a TSV or NDJSON record is one line.
type Reader struct {
	br        *bufio.Reader
	quoting   bool
	delim     byte
	offset    int64
	line      int
	MaxRecord int
	// scratch gathers a record read in several chunks, so that the
	// record's own copy is made once, at its size, not grown by doubling.
	scratch []byte
}

// NewReader reads r as f (not Auto).
func NewReader(r io.Reader, f Format) *Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &Reader{br: br, quoting: f == CSV, delim: Delimiter(f), line: 1, MaxRecord: DefaultMaxRecord}
}

// Delimiter is the cell delimiter of f.
func Delimiter(f Format) byte {
	if f == TSV {
		return '\t'
	}
	return ','
}

// Next returns the next record, or io.EOF after the last one.
func (r *Reader) Next() (Record, error) {
	buf := r.scratch[:0]
	defer func() { r.scratch = buf[:0] }()
	var st quoteState
	start := r.line
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(chunk) > 0 {
			if r.quoting && (st.inQuote || bytes.IndexByte(chunk, '"') >= 0) {
				st.scan(chunk, r.delim)
			}
			if len(buf)+len(chunk) > r.MaxRecord {
				return Record{}, failure.New(failure.Input, "the record on line %d is longer than %d bytes (a quote that never closes?)", start, r.MaxRecord)
			}
			buf = append(buf, chunk...)
			r.offset += int64(len(chunk))
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if len(buf) == 0 {
				return Record{}, io.EOF
			}
			r.line += bytes.Count(buf, []byte{'\n'})
			rec := Record{Raw: bytes.Clone(buf), Line: start, Offset: r.offset}
			if st.inQuote {
				rec.Err = failure.New(failure.Input, "line %d: a quote opens a cell and never closes: the rest of the input is one record, written back unchanged", start)
			}
			return rec, nil
		case err != nil:
			return Record{}, failure.Wrap(failure.IO, err, "cannot read the input: "+err.Error())
		}
		r.line++
		if st.inQuote {
			continue // a line end inside a quoted cell
		}
		rec := Record{Line: start, Offset: r.offset}
		n := len(buf) - 1
		rec.End = "\n"
		if n > 0 && buf[n-1] == '\r' {
			n--
			rec.End = "\r\n"
		}
		rec.Raw = bytes.Clone(buf[:n])
		return rec, nil
	}
}

// quoteState follows a CSV record's quotes across the chunks it is read in.
type quoteState struct {
	started bool // a cell has begun (the next byte is not its first)
	quoted  bool // the current cell began with a quote
	inQuote bool
}

func (s *quoteState) scan(b []byte, delim byte) {
	for _, c := range b {
		switch {
		case s.inQuote:
			if c == '"' {
				s.inQuote = false
			}
		case c == delim || c == '\n':
			s.started, s.quoted = false, false
		case !s.started:
			s.started = true
			if c == '"' {
				s.quoted, s.inQuote = true, true
			}
		case s.quoted && c == '"':
			// The second quote of a doubled one (or a stray quote after
			// the closing one, read leniently as text).
			s.inQuote = true
		}
	}
}

// Cells splits a record's raw bytes into cells, unquoting CSV cells. A
// stray quote inside an unquoted cell is text, as most exporters mean it.
func Cells(raw []byte, f Format) []string {
	// At most one cell per delimiter and one more: a header of 100,000
	// names is not grown by doubling.
	out := make([]string, 0, bytes.Count(raw, []byte{Delimiter(f)})+1)
	EachCell(raw, f, -1, func(_ int, cell []byte) { out = append(out, Unquote(cell, f)) })
	return out
}

// EachCell calls fn with the raw bytes of each cell of a record, up to the
// cell numbered last (all when last < 0), without copying them. Quotes are
// read as Reader reads them: in a cell that begins with a quote, every
// quote opens or closes a quoted part (a doubled quote closes and opens
// again), and only a delimiter outside them ends the cell.
func EachCell(raw []byte, f Format, last int, fn func(i int, cell []byte)) {
	delim := Delimiter(f)
	for i := 0; last < 0 || i <= last; i++ {
		end := -1
		if f == CSV && len(raw) > 0 && raw[0] == '"' {
			end = quotedCellEnd(raw, delim)
		} else {
			end = bytes.IndexByte(raw, delim)
		}
		if end < 0 || end >= len(raw) {
			fn(i, raw)
			return
		}
		fn(i, raw[:end])
		raw = raw[end+1:]
	}
}

// quotedCellEnd is the index of the delimiter that ends the quoted cell at
// the start of b, or len(b).
func quotedCellEnd(b []byte, delim byte) int {
	i := 1 // inside the opening quote
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return len(b) // never closed: the rest is the cell
		}
		i += k + 1 // just past the closing quote
		d := bytes.IndexByte(b[i:], delim)
		q := bytes.IndexByte(b[i:], '"')
		if d < 0 && q < 0 {
			return len(b)
		}
		if q < 0 || (d >= 0 && d < q) {
			return i + d
		}
		i += q + 1 // a quote opens again
	}
}

// Unquote is a CSV cell's text; TSV and NDJSON cells are their bytes.
func Unquote(cell []byte, f Format) string {
	if f == CSV {
		return unquote(cell)
	}
	return string(cell)
}

func unquote(cell []byte) string {
	if len(cell) < 2 || cell[0] != '"' || cell[len(cell)-1] != '"' {
		return string(cell)
	}
	inner := cell[1 : len(cell)-1]
	if bytes.IndexByte(inner, '"') < 0 {
		return string(inner)
	}
	return string(bytes.ReplaceAll(inner, []byte(`""`), []byte(`"`)))
}
