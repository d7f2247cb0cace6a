package output

import (
	"encoding/csv"
	"io"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// csvColumns is the CSV header. Each result entry is one row, with the
// query, detected type, strategy and unsupported reason repeated on every row
// so that each row stands alone in a spreadsheet or `grep`. A value with no
// results is one row whose result columns are empty; a failed value is one row
// with query and error filled and the rest empty. "query" is the value sent
// (after refang, before defang). "count" is the server's number as written.
// --defang applies to query and matched_value, never to detail_url: the
// service's own link must still open.
// Preview records are not part of CSV: they are free-form; use json.
//
// Formula injection: unless --csv-raw, a cell that begins with "=", "+", "-",
// "@", TAB or CR gets a leading "'" (OWASP's advice), so that a spreadsheet
// shows it as text instead of evaluating it. This applies to every cell,
// numbers included: a plain "-5" becomes "'-5", because a spreadsheet cannot
// be told that one column is safe and OWASP's rule is about the first
// character only. Scripts that want the exact values use --csv-raw or json.
//
// On a terminal, cells are also sanitized (see CSVWriter.cell); piped CSV
// carries the server's text unchanged.
var csvColumns = []string{
	"query", "detected_type", "strategy", "unsupported_reason",
	"resource", "label", "group", "matched_column", "matched_value",
	"count", "detail_url", "error",
}

type csvPrinter struct {
	opts Options
	w    *CSVWriter
	row  []string
}

func newCSVPrinter(opts Options) *csvPrinter {
	return &csvPrinter{opts: opts, w: NewCSVWriter(opts, csvColumns), row: make([]string, len(csvColumns))}
}

func (p *csvPrinter) Add(r Record) error {
	defang := p.opts.Defang
	if defang == nil {
		defang = func(s string) string { return s }
	}
	row := p.row
	clear(row)
	row[0] = defang(r.query())
	if r.Err != nil {
		row[11] = r.Err.Error()
		return p.w.Write(row)
	}
	resp := r.Resp
	if resp == nil {
		resp = &api.SearchResponse{}
	}
	row[1], row[2], row[3] = resp.DetectedType, resp.Strategy, resp.UnsupportedReason
	if resp.ResultCount() == 0 {
		if err := p.w.Write(row); err != nil {
			return err
		}
	}
	// Every result, decoded one at a time: Results keeps only the first.
	for _, res := range resp.All() {
		row[4], row[5], row[6], row[7] = res.Resource, res.Label, res.Group, res.MatchedColumn
		row[8], row[9], row[10] = defang(res.MatchedValue), string(res.Count), res.DetailURL
		if err := p.w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

func (p *csvPrinter) Flush() error { return p.w.Flush() }
func (p *csvPrinter) Close() error { return p.w.Close() }

// CSVWriter is the one CSV writer of tilookup: search, events, triage,
// detect, extract and config list write their rows through it, so that
// every cell follows one policy (CSVWriter.cell). The header is written
// before the first row, or by Close when there was none.
type CSVWriter struct {
	w          *csv.Writer
	out        io.Writer
	tty, raw   bool
	header     []string
	headerDone bool
	cells      []string // the row as written, reused
}

// NewCSVWriter writes to o.Out, with o.TTY and o.CSVRaw deciding the cell
// policy.
func NewCSVWriter(o Options, header []string) *CSVWriter {
	return &CSVWriter{w: csv.NewWriter(o.Out), out: o.Out, tty: o.TTY, raw: o.CSVRaw, header: header}
}

// Write writes one row (the header first); row is not modified, so the
// caller may reuse it.
func (c *CSVWriter) Write(row []string) error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	return c.write(row)
}

func (c *CSVWriter) writeHeader() error {
	if c.headerDone {
		return nil
	}
	c.headerDone = true
	return c.write(c.header)
}

func (c *CSVWriter) write(row []string) error {
	if cap(c.cells) < len(row) {
		c.cells = make([]string, len(row))
	}
	cells := c.cells[:len(row)]
	for i, v := range row {
		cells[i] = c.cell(v)
	}
	return failure.WriteError(c.w.Write(cells))
}

// cell returns a cell as it should be written: on a terminal it is
// sanitized (keeping LF and TAB, which CSV quotes), because there is no
// escape syntax in CSV to show a control character harmlessly; piped output
// keeps the data exact. Then a formula cell is neutralised unless --csv-raw.
func (c *CSVWriter) cell(v string) string { return csvCell(c.tty, c.raw, v) }

// CSVCell is the same policy for a writer of its own (enrich writes the
// user's cells back as they came, and only its added cells through this).
func (o Options) CSVCell(v string) string { return csvCell(o.TTY, o.CSVRaw, v) }

func csvCell(tty, raw bool, v string) string {
	if tty {
		v = sanitize.Multiline(v)
	}
	if !raw {
		v = neutralizeCSV(v)
	}
	return v
}

// Flush writes what the CSV writer buffers, then flushes the output when
// it has a Flush method.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return failure.WriteError(err)
	}
	return failure.WriteError(flush(c.out))
}

// Close writes the header when no row came, and flushes.
func (c *CSVWriter) Close() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	return c.Flush()
}

// neutralizeCSV keeps a spreadsheet from reading a cell as a formula.
func neutralizeCSV(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
