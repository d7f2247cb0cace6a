package enrich

import (
	"strings"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// SampleRows is how many records column detection reads.
const SampleRows = 100

// Column is one column (NDJSON: one field, named as --column names it,
// "destination.ip" for a nested one) that holds indicators.
type Column struct {
	Name  string
	Index int      // CSV, TSV: the cell's position from 0; NDJSON: -1
	Type  ioc.Type // the type most of its sampled indicators are; "" when named by --column
	// Kind names what the column holds for the notice: the type,
	// "hashes"/"addresses" when its cells are of several of that family,
	// "mixed" when they are of several families (a column of defanged
	// URLs, addresses and domains, as an analyst keeps them).
	Kind string
}

// DetectColumns picks the indicator columns of a sample: rows[r][c] is the
// text of column c (named names[c]) in record r, "" when missing. A column
// is taken when more than half of its non-empty cells are indicators,
// whatever their types; a column of private addresses is one too: its
// cells come back "skipped", and a public address further down is looked
// up (leaving the column out on the sample's word would drop it unsaid).
// A column of free text (more than one cell in ten with white
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
		cl = d.classify(text)
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
func (d *detector) columns(names []string) (taken []Column) {
	for c, name := range names {
		if c >= len(d.cols) {
			break
		}
		t := &d.cols[c]
		if t.nonEmpty == 0 || int(t.free)*10 > int(t.nonEmpty) || added(name) {
			continue
		}
		// Any indicators count together: an analyst's "indicator" column
		// mixes URLs, addresses and domains, defanged, and is the column
		// enrich is most often handed.
		indicators := 0
		for _, n := range t.types {
			indicators += n
		}
		if indicators*2 <= int(t.nonEmpty) {
			continue
		}
		best := plurality(t.types)
		col := Column{Name: name, Index: c, Type: best, Kind: kind(t.types, best, int(t.nonEmpty))}
		taken = append(taken, col)
	}
	return taken
}

// plurality is the type most cells are of, in ioc's fixed order on a tie,
// so that ties resolve the same way every run.
func plurality(types map[ioc.Type]int) ioc.Type {
	best, n := ioc.Type(""), 0
	for _, t := range ioc.AllTypes {
		if types[t] > n {
			best, n = t, types[t]
		}
	}
	return best
}

// kind names a column's types for the notice, by its plurality type best:
// best itself, or its family's plural when the column holds several of
// that family (MD5 and SHA-256 in a file_hash column, IPv4 and IPv6) and
// they are most of the column; "mixed" when no one family is.
func kind(types map[ioc.Type]int, best ioc.Type, nonEmpty int) string {
	kin, kinds := 0, 0
	for t, n := range types {
		if family(t) == family(best) {
			kin += n
			kinds++
		}
	}
	switch {
	case kin*2 <= nonEmpty:
		return "mixed"
	case kinds > 1:
		return family(best) + "es"
	}
	return string(best)
}

// classify types one cell: t is "" when empty, Unknown when it is no
// indicator; free when it is text with white space inside.
func (d *detector) classify(cell string) cellClass {
	v := strings.TrimSpace(cell)
	if v == "" {
		return cellClass{}
	}
	if strings.ContainsAny(v, " \t\r\n") {
		return cellClass{t: ioc.Unknown, free: true}
	}
	_, t, err := ioc.Prepare(v, true)
	if err != nil || t == ioc.Unknown {
		return cellClass{t: ioc.Unknown}
	}
	return cellClass{t: t}
}

// family groups the types one column of an export holds together (ioc's
// type table).
func family(t ioc.Type) string {
	if info, ok := ioc.Info(t); ok {
		return info.Family
	}
	return string(t)
}
