package output

import (
	"encoding/csv"

	"github.com/tilookup/tilookup/pkg/api"
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
// On a terminal, cells are also sanitized (see Options.csvCells); piped CSV
// carries the server's text unchanged.
var csvColumns = []string{
	"query", "detected_type", "strategy", "unsupported_reason",
	"resource", "label", "group", "matched_column", "matched_value",
	"count", "detail_url", "error",
}

type csvPrinter struct {
	opts       Options
	w          *csv.Writer
	headerDone bool
	row        []string
	out        []string
}

func newCSVPrinter(opts Options) *csvPrinter {
	return &csvPrinter{opts: opts, w: csv.NewWriter(opts.Out), row: make([]string, len(csvColumns))}
}

func (p *csvPrinter) header() error {
	if p.headerDone {
		return nil
	}
	p.headerDone = true
	return p.w.Write(csvColumns)
}

func (p *csvPrinter) Add(r Record) error {
	if err := p.header(); err != nil {
		return writeErr(err)
	}
	defang := p.opts.Defang
	if defang == nil {
		defang = func(s string) string { return s }
	}
	row := p.row
	clear(row)
	row[0] = defang(r.query())
	if r.Err != nil {
		row[11] = r.Err.Error()
		return p.write(row)
	}
	resp := r.Resp
	if resp == nil {
		resp = &api.SearchResponse{}
	}
	row[1], row[2], row[3] = resp.DetectedType, resp.Strategy, resp.UnsupportedReason
	if resp.ResultCount() == 0 {
		if err := p.write(row); err != nil {
			return err
		}
	}
	// Every result, decoded one at a time: Results keeps only the first.
	for _, res := range resp.All() {
		row[4], row[5], row[6], row[7] = res.Resource, res.Label, res.Group, res.MatchedColumn
		row[8], row[9], row[10] = defang(res.MatchedValue), string(res.Count), res.DetailURL
		if err := p.write(row); err != nil {
			return err
		}
	}
	return nil
}

// write writes one row, neutralising formula cells in a copy (reused from
// row to row) so that row can be reused for the next result of the same
// value.
func (p *csvPrinter) write(row []string) error {
	if len(p.out) != len(row) {
		p.out = make([]string, len(row))
	}
	for i, c := range row {
		p.out[i] = p.opts.csvCell(c)
	}
	return writeErr(p.w.Write(p.out))
}

// csvCell returns a cell as it should be written: on a terminal it is
// sanitized (keeping LF and TAB, which CSV quotes), because there is no
// escape syntax in CSV to show a control character harmlessly; piped output
// keeps the data exact. Then a formula cell is neutralised unless CSVRaw.
func (o Options) csvCell(c string) string {
	if o.TTY {
		c = sanitize.Multiline(c)
	}
	if !o.CSVRaw {
		c = neutralizeCSV(c)
	}
	return c
}

// CSVCell is csvCell for the CSV writers outside this package (enrich's
// added cells), so that every CSV cell of service text is guarded the same way.
func (o Options) CSVCell(c string) string { return o.csvCell(c) }

func (p *csvPrinter) Flush() error {
	p.w.Flush()
	if err := p.w.Error(); err != nil {
		return writeErr(err)
	}
	return writeErr(flush(p.opts.Out))
}

func (p *csvPrinter) Close() error {
	if err := p.header(); err != nil {
		return writeErr(err)
	}
	return p.Flush()
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
