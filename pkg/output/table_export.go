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
	g := &grid{cols: make([]column, len(cols)), rows: make([][]cell, len(rows))}
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
	var b bytes.Buffer
	writeTableOrRecords(o, &b, g)
	_, err := o.Out.Write(b.Bytes())
	return failure.WriteError(err)
}
