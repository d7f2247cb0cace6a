package enrich

import (
	"strings"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// SampleRows is how many records column detection reads.
const SampleRows = 100

// Column is one column (NDJSON: one top-level field) that holds indicators.
type Column struct {
	Name  string
	Index int      // CSV, TSV: the cell's position from 0; NDJSON: -1
	Type  ioc.Type // the type of most of its sampled cells; "" when named by --column
	// Kind names what the column holds for the notice: the type, or
	// "hashes"/"addresses" when its cells are of several of that family.
	Kind string
}

// DetectColumns picks the indicator columns of a sample: rows[r][c] is the
// text of column c (named names[c]) in record r, "" when missing. A column
// is taken when more than half of its non-empty cells are indicators of
// one type, or of one family (hashes, addresses). A column of free text (more than one cell in ten with white
// space inside, like a message or a user agent) is never taken, even when
// its cells hold indicators: those are for extract and triage.
func DetectColumns(names []string, rows [][]string) []Column {
	var d detector
	for _, row := range rows {
		for c, cell := range row {
			if c < len(names) {
				d.add(c, []byte(cell))
			}
		}
	}
	return d.columns(names)
}

// detector counts what the cells of each column are, a record at a time,
// so that a sample is never held as cells: an export of 100,000 columns
// would cost many times its size as strings.
type detector struct {
	cols []tally
	// memo remembers how recent cell texts classify: a wide export
	// repeats a few values across its columns, and classifying is the
	// cost of detection.
	memo map[string]cellClass
}

// memoMax bounds detector.memo; it starts over when full.
const memoMax = 8192

type tally struct {
	nonEmpty, free int32
	types          map[ioc.Type]int // nil until a cell is an indicator
}

type cellClass struct {
	t    ioc.Type
	free bool
}

// add counts the text of the cell of column c.
func (d *detector) add(c int, cell []byte) {
	cl, ok := d.memo[string(cell)] // no copy for the look-up
	if !ok {
		text := string(cell)
		cl.t, cl.free = classify(text)
		if d.memo == nil || len(d.memo) >= memoMax {
			d.memo = make(map[string]cellClass, 256)
		}
		d.memo[text] = cl
	}
	if c >= len(d.cols) {
		d.cols = append(d.cols, make([]tally, c+1-len(d.cols))...)
	}
	t := &d.cols[c]
	switch {
	case cl.free:
		t.nonEmpty++
		t.free++
	case cl.t != "":
		t.nonEmpty++
		if cl.t != ioc.Unknown {
			if t.types == nil {
				t.types = map[ioc.Type]int{}
			}
			t.types[cl.t]++
		}
	}
}

// columns are the columns counted that hold indicators (DetectColumns).
func (d *detector) columns(names []string) []Column {
	var out []Column
	for c, name := range names {
		if c >= len(d.cols) {
			break
		}
		nonEmpty, free, types := d.cols[c].nonEmpty, d.cols[c].free, d.cols[c].types
		if nonEmpty == 0 || int(free)*10 > int(nonEmpty) {
			continue
		}
		best, n := ioc.Type(""), 0
		for _, t := range ioc.AllTypes { // a fixed order: ties resolve the same way every run
			if types[t] > n {
				best, n = t, types[t]
			}
		}
		// A file_hash column mixes MD5, SHA-1 and SHA-256, an address
		// column IPv4 and IPv6: the kinds count together.
		kin, kinds := 0, 0
		for t, k := range types {
			if family(t) == family(best) {
				kin += k
				kinds++
			}
		}
		kind := string(best)
		if kinds > 1 {
			kind = family(best) + "es"
		}
		if kin*2 > int(nonEmpty) {
			out = append(out, Column{Name: name, Index: c, Type: best, Kind: kind})
		}
	}
	return out
}

// classify types one cell: "" when empty, Unknown when it is no indicator,
// free when it is text with white space inside.
func classify(cell string) (t ioc.Type, free bool) {
	v := strings.TrimSpace(cell)
	if v == "" {
		return "", false
	}
	if strings.ContainsAny(v, " \t\r\n") {
		return ioc.Unknown, true
	}
	if _, t, err := ioc.Prepare(v, true); err == nil {
		return t, false
	}
	return ioc.Unknown, false
}

// family groups the types one column of an export holds together (ioc's
// type table).
func family(t ioc.Type) string {
	if info, ok := ioc.Info(t); ok {
		return info.Family
	}
	return string(t)
}
