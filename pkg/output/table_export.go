package output

import (
	"bytes"

	"github.com/tilookup/tilookup/pkg/failure"
)

// Column is one column of a table that a command builds itself and lays
// out with WriteTable.
type Column struct {
	Title string
	// Min is the narrowest width worth showing (0: the title's); a
	// column that is the news gets a large one, so that the others give
	// up their width first.
	Min int
	// Token: the values are hashes, addresses or URLs, cut in the middle
	// rather than at the end.
	Token bool
	// Drop orders the columns left out when even the minimums do not fit:
	// the highest goes first; 0 is never left out.
	Drop int
}

// WriteTable writes rows (one cell per column) under cols with search's
// table layout: a header, cells sanitized and aligned, fitted to o.Width
// (0: natural widths, nothing cut) by shrinking the widest columns, and a
// record view ("key: value" lines, long values wrapped) when even the
// minimums do not fit.
func WriteTable(o Options, cols []Column, rows [][]string) error {
	return WriteTableStyled(o, TableStyle{}, cols, rows)
}

// TableStyle frames a table that sits under a heading of its own, as
// triage's sections do.
type TableStyle struct {
	NoHeader bool   // the rows only: the heading above says what they are
	Indent   string // starts every line; the table fits in what is left
}

// WriteTableStyled is WriteTable framed by style.
func WriteTableStyled(o Options, style TableStyle, cols []Column, rows [][]string) error {
	g := &grid{cols: make([]column, len(cols)), rows: make([][]cell, len(rows)), noHeader: style.NoHeader}
	kinds := make([]cellKind, len(cols))
	for i, c := range cols {
		g.cols[i] = column{title: c.Title, min: c.Min, drop: c.Drop}
		if c.Token {
			kinds[i] = kindToken
		}
	}
	for r, row := range rows {
		g.rows[r] = make([]cell, len(cols))
		for i := range cols {
			g.rows[r][i] = textCell(row[i], kinds[i])
		}
	}
	if o.Width > 0 {
		o.Width = max(1, o.Width-textWidth(style.Indent))
	}
	var b bytes.Buffer
	writeTableOrRecords(o, &b, g)
	out := b.Bytes()
	if style.Indent != "" {
		out = indentLines(out, style.Indent)
	}
	_, err := o.Out.Write(out)
	return failure.WriteError(err)
}

// indentLines starts each line of text with indent, blank lines aside.
func indentLines(text []byte, indent string) []byte {
	var b bytes.Buffer
	for line := range bytes.Lines(text) {
		if len(bytes.TrimSpace(line)) > 0 {
			b.WriteString(indent)
		}
		b.Write(line)
	}
	return b.Bytes()
}
