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
	var out []Column
	for c, name := range names {
		nonEmpty, free := 0, 0
		types := map[ioc.Type]int{}
		for _, row := range rows {
			if c >= len(row) {
				continue
			}
			t, isFree := classify(row[c])
			switch {
			case isFree:
				nonEmpty++
				free++
			case t != "":
				nonEmpty++
				if t != ioc.Unknown {
					types[t]++
				}
			}
		}
		if nonEmpty == 0 || free*10 > nonEmpty {
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
		if kin*2 > nonEmpty {
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
