package output

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twcache"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Bounds on what a table shows, so that time and memory stay bounded for any
// answer within the size cap (a million results, a million-key union, a
// megabyte cell). What is left out is said in a "… N more" line; -o json and
// ndjson always carry everything.
const (
	maxRows      = 500  // rows of one table, records of one record view
	maxColumns   = 24   // columns of a free-form table (preview, events)
	maxFields    = 64   // fields of one record
	maxCellRunes = 1024 // runes of one cell, also when piped
	colGap       = 2    // spaces between columns
)

// Our own styling, added only after sanitizing and only when Options.Color.
const (
	styleBold  = "\x1b[1m"
	styleDim   = "\x1b[2m"
	styleRed   = "\x1b[31m"
	styleReset = "\x1b[0m"
	emptyCell  = "—"
)

func (o Options) style(code, s string) string {
	if !o.Color || code == "" || s == "" {
		return s
	}
	return code + s + styleReset
}

// link makes text an OSC 8 hyperlink to target when the terminal takes them.
// Only http and https targets are linked: a link is a promise that clicking
// opens a page, not a program.
func (o Options) link(target, text string) string {
	if !o.Hyperlinks || target == "" || text == "" {
		return text
	}
	lower := strings.ToLower(target)
	if !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
		return text
	}
	return "\x1b]8;;" + target + "\x1b\\" + text + "\x1b]8;;\x1b\\"
}

// cellKind says how a cell is shortened when its column is too narrow.
type cellKind uint8

const (
	kindText  cellKind = iota // prose: the end is cut, "Exploitation obse…"
	kindToken                 // a hash, address or URL: the middle is cut, "44d886…abb02f"
	kindAuto                  // kindToken when the text has no space, else kindText
)

// cell is one table cell. text is what shows: sanitized, one line. Style and
// link are applied after layout, so that widths count only visible text.
type cell struct {
	text   string
	style  string
	link   string
	kind   cellKind
	absent bool // the record has no such key: a dash in a table, no line in a record view
	// raw is the value as the server sent it when it is a string, before
	// defanging and sanitizing: compared with the query (withoutQuery).
	raw string
}

// textCell makes a cell from server text: capped, sanitized.
func textCell(s string, kind cellKind) cell {
	return cell{text: sanitize.String(capString(s, maxCellRunes)), kind: kind}
}

func (c cell) width() int {
	if c.text == "" {
		return 1 // emptyCell
	}
	return textWidth(c.text)
}

func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return twwidth.Width(s)
		}
	}
	return len(s)
}

func runeWidth(s string) int {
	if len(s) == 1 {
		return 1
	}
	return twwidth.Width(s)
}

// shorten fits s in w columns, cutting the end (kindText) or the middle
// (kindToken) and marking the cut with "…".
func shorten(s string, w int, kind cellKind) string {
	if textWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	if w == 1 {
		return "…"
	}
	if kind == kindAuto {
		kind = kindText
		if !strings.ContainsRune(s, ' ') {
			kind = kindToken
		}
	}
	if kind == kindText {
		return head(s, w-1) + "…"
	}
	if n := urlHostEnd(s); n > 0 && n < len(s) && w-textWidth(s[:n]) >= 3 {
		// A URL keeps its scheme and host, the part an analyst reads
		// first; its path is cut in the middle.
		return s[:n] + cutMiddle(s[n:], w-textWidth(s[:n]))
	}
	return cutMiddle(s, w)
}

// cutMiddle fits s in w (at least 2) columns by cutting its middle.
func cutMiddle(s string, w int) string {
	tw := (w - 1) / 2
	return head(s, w-1-tw) + "…" + tail(s, tw)
}

// urlHostEnd is the length of s's scheme and host (with port and
// credentials) when s is a URL, also a defanged one ("hxxps[://]..."),
// else 0.
func urlHostEnd(s string) int {
	i := strings.Index(s, "://")
	sep := 3
	if j := strings.Index(s, "[://]"); j >= 0 && (i < 0 || j < i) {
		i, sep = j, 5
	}
	if i <= 0 || strings.ContainsAny(s[:i], " /") {
		return 0
	}
	start := i + sep
	if end := strings.IndexAny(s[start:], "/?#"); end >= 0 {
		return start + end
	}
	return len(s)
}

// head is the longest prefix of s at most w columns wide.
func head(s string, w int) string {
	used := 0
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		rw := runeWidth(s[i : i+size])
		if used+rw > w {
			return s[:i]
		}
		used += rw
		i += size
	}
	return s
}

// tail is the longest suffix of s at most w columns wide.
func tail(s string, w int) string {
	used, i := 0, len(s)
	for i > 0 {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		rw := runeWidth(s[i-size : i])
		if used+rw > w {
			break
		}
		used += rw
		i -= size
	}
	return s[i:]
}

// column describes one column of a table for fitting.
type column struct {
	title string
	min   int // narrowest width worth showing; 0 means the title's width
	// drop orders the columns that may be left out when even their minimum
	// widths do not fit: the highest goes first; 0 is never left out.
	drop int
	// squeeze: this column gives up width, down to its minimum, before any
	// other column is cut (a long link matters less than a label).
	squeeze bool
}

func (c column) minWidth(natural int) int {
	m := c.min
	if m == 0 {
		m = textWidth(c.title)
	}
	return min(m, natural)
}

// fitWidths decides each column's width for a table width wide (0: no
// limit): natural widths when they fit; else the widest columns shrink
// evenly, never below their minimum; else columns are left out by drop
// order (width 0). ok is false when even that does not fit.
func fitWidths(cols []column, natural []int, width int) (widths []int, ok bool) {
	widths = append([]int(nil), natural...)
	if width <= 0 {
		return widths, true
	}
	for {
		kept, need, avail := 0, 0, width
		for i, c := range cols {
			if widths[i] > 0 || natural[i] == 0 {
				kept++
				need += c.minWidth(natural[i])
			}
		}
		avail -= colGap * max(0, kept-1)
		if need <= avail {
			shrink(cols, natural, widths, avail)
			return widths, true
		}
		i := nextDrop(cols, widths)
		if i < 0 {
			return nil, false
		}
		widths[i] = 0
	}
}

func nextDrop(cols []column, widths []int) int {
	best := -1
	for i, c := range cols {
		if c.drop > 0 && widths[i] > 0 && (best < 0 || c.drop > cols[best].drop) {
			best = i
		}
	}
	return best
}

// shrink sets the kept columns' widths so they sum to at most avail: each
// gets min(natural, cap) but at least its minimum, for the largest cap that
// fits, and what is left goes to the columns that were cut.
func shrink(cols []column, natural, widths []int, avail int) {
	sum := func(limit int) int {
		t := 0
		for i, c := range cols {
			if widths[i] > 0 {
				t += max(c.minWidth(natural[i]), min(natural[i], limit))
			}
		}
		return t
	}
	hi := 0
	for _, n := range natural {
		hi = max(hi, n)
	}
	if sum(hi) <= avail {
		return
	}
	over := sum(hi) - avail
	for i, c := range cols {
		if c.squeeze && widths[i] > 0 && over > 0 {
			cut := min(over, natural[i]-c.minWidth(natural[i]))
			widths[i] = natural[i] - cut
			over -= cut
		}
	}
	if over <= 0 {
		return
	}
	for i, c := range cols {
		if c.squeeze && widths[i] > 0 {
			natural[i] = widths[i] // squeezed to its minimum: keep it there
		}
	}
	lo := 0
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if sum(mid) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	left := avail - sum(lo)
	for i, c := range cols {
		if widths[i] == 0 {
			continue
		}
		widths[i] = max(c.minWidth(natural[i]), min(natural[i], lo))
		if left > 0 && widths[i] < natural[i] {
			widths[i]++
			left--
		}
	}
}

// grid is a table ready to fit: its columns and rows of cells.
type grid struct {
	cols []column
	rows [][]cell
	// noHeader: the rows only, without the column titles.
	noHeader bool
	// keep is the share of the natural width below which the table would be
	// too cut to read and a record view is shown instead; 0 accepts any
	// fit within the columns' minimum widths.
	keep float64
}

func (g *grid) naturalWidths() []int {
	w := make([]int, len(g.cols))
	for i, c := range g.cols {
		if !g.noHeader {
			w[i] = textWidth(c.title)
		}
	}
	for _, row := range g.rows {
		for i := range g.cols {
			w[i] = max(w[i], row[i].width())
		}
	}
	return w
}

func (g *grid) readable(natural, widths []int) bool {
	have, want := 0, 0
	for i := range natural {
		have += widths[i]
		want += natural[i]
	}
	return float64(have) >= g.keep*float64(want)
}

// writeGrid writes g at widths (0 leaves a column out), header first.
// tilookup decides the widths and each cell's text (cut, sanitized, styled);
// tablewriter lays the cells out, with nothing of its own: no borders, no
// padding, no wrapping, cuts or header formatting, two spaces between
// columns. Blueprint pads the last column too, and a line must not end in
// the spaces it added: trimTable takes exactly those off again.
func writeGrid(o Options, b *bytes.Buffer, g *grid, widths []int) {
	var keep []int // the columns shown: tablewriter writes no gap after a 0-width column
	for i, w := range widths {
		if w > 0 {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return
	}
	colWidths := tw.NewMapper[int, int]()
	for j, i := range keep {
		colWidths.Set(j, widths[i])
	}
	last := widths[keep[len(keep)-1]]
	header := make([]cell, len(g.cols))
	for i, c := range g.cols {
		header[i] = cell{text: c.title, style: styleBold, kind: kindText}
	}
	pads := make([]int, 0, 1+len(g.rows)) // what Blueprint adds after each line's last cell
	line := func(row []cell) []string {
		out := make([]string, len(keep))
		for j, i := range keep {
			c := row[i]
			text, style := c.text, c.style
			if text == "" {
				text, style = emptyCell, styleDim
			}
			text = shorten(text, widths[i], c.kind) // piped, the width is the natural one: nothing is cut
			out[j] = o.style(style, o.link(c.link, text))
			if j == len(keep)-1 {
				pads = append(pads, max(0, last-textWidth(text)))
			}
		}
		return out
	}
	lt := layoutTables.Get().(*layoutTable)
	defer layoutTables.Put(lt)
	lt.out.Reset()
	t := lt.t
	t.Reset()
	t.Options(tablewriter.WithColumnWidths(colWidths))
	if !g.noHeader {
		t.Header(line(header))
	}
	for _, row := range g.rows {
		if err := t.Append(line(row)); err != nil {
			panic(err) // a []string row always converts
		}
	}
	if err := t.Render(); err != nil {
		panic(err) // writes go to a bytes.Buffer, which cannot fail
	}
	trimTable(b, lt.out.Bytes(), pads)
}

// trimTable copies rendered lines to b, taking pads[i] trailing spaces off
// line i: the padding of the last column, never a space of the cell's own.
func trimTable(b *bytes.Buffer, rendered []byte, pads []int) {
	for i := 0; len(rendered) > 0; i++ {
		n := bytes.IndexByte(rendered, '\n')
		if n < 0 {
			n = len(rendered) - 1
		}
		line := rendered[:n]
		// Only spaces are taken off: should tablewriter ever lay a line out
		// otherwise, it shows padded rather than cut.
		if i < len(pads) && pads[i] <= len(line) && len(bytes.TrimRight(line[len(line)-pads[i]:], " ")) == 0 {
			line = line[:len(line)-pads[i]]
		}
		b.Write(line)
		b.WriteByte('\n')
		rendered = rendered[n+1:]
	}
}

// layoutTable is a tablewriter table that only places cells: every width is
// given, and the cells are already cut, sanitized and styled. It writes to
// out.
type layoutTable struct {
	t   *tablewriter.Table
	out bytes.Buffer
}

// layoutTables reuses tables: NewTable sizes a 10,240-entry cache map
// (~440 KB) that a table of strings never uses, and a --preview of 500
// results draws 500 tables (TestTableBoundsPreview). Made on first use, not
// at start-up.
var layoutTables = sync.Pool{New: func() any { return newLayoutTable() }}

func newLayoutTable() *layoutTable {
	lt := &layoutTable{}
	lt.t = tablewriter.NewTable(&lt.out, append(layoutOptions(),
		// Reset would otherwise make the big cache again for every table.
		tablewriter.WithStringerCacheCustom(twcache.NewLRU[reflect.Type, reflect.Value](1)),
	)...)
	return lt
}

// layoutOptions make tablewriter place cells and nothing else: no
// borders, lines, padding, wrapping, cuts or header formatting, cells left
// aligned, two spaces between columns.
func layoutOptions() []tablewriter.Option {
	return []tablewriter.Option{
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbolCustom("tilookup").WithColumn("  "),
			Settings: tw.Settings{
				Lines:      tw.LinesNone,
				Separators: tw.Separators{BetweenColumns: tw.On, BetweenRows: tw.Off, ShowHeader: tw.Off, ShowFooter: tw.Off},
			},
		})),
		tablewriter.WithPadding(tw.PaddingNone),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithTrimTab(tw.Off),
		tablewriter.WithTrimLine(tw.Off),
	}
}

// writeMore writes the note for what a table left out.
func writeMore(o Options, b *bytes.Buffer, n int, what string) {
	if n <= 0 {
		return
	}
	b.WriteString(o.style(styleDim, fmt.Sprintf("… %d more %s (-o json has them all)", n, what)) + "\n")
}

// writeFields writes "Key:  value" lines with the values aligned; values are
// shortened to the width.
func writeFields(o Options, b *bytes.Buffer, fields []field) {
	kw := 0
	for _, f := range fields {
		kw = max(kw, textWidth(f.key)+1)
	}
	if o.Width > 0 {
		kw = min(kw, max(8, o.Width/3))
	}
	for _, f := range fields {
		key := shorten(f.key+":", kw, kindText)
		b.WriteString(o.style(styleBold, key))
		b.WriteString(strings.Repeat(" ", kw-textWidth(key)+2))
		text, style := f.val.text, f.val.style
		if text == "" {
			text, style = emptyCell, styleDim
		}
		if o.Width <= 0 {
			b.WriteString(o.style(style, o.link(f.val.link, text)) + "\n")
			continue
		}
		for i, line := range wrapValue(text, max(1, o.Width-kw-2), f.val.kind) {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", kw+2))
			}
			b.WriteString(o.style(style, o.link(f.val.link, line)) + "\n")
		}
	}
}

// maxValueLines is how many lines a value may take in a record view: a
// SHA-512 or a sentence shows whole at 80 columns; anything longer is
// shortened on its last line.
const maxValueLines = 3

// wrapValue splits s into lines of at most w columns, at a space when the
// text has one, at most maxValueLines of them.
func wrapValue(s string, w int, kind cellKind) []string {
	if textWidth(s) <= w {
		return []string{s}
	}
	var lines []string
	for s != "" {
		if len(lines) == maxValueLines-1 || textWidth(s) <= w {
			if len(lines) == 0 {
				return []string{shorten(s, w, kind)}
			}
			return append(lines, shorten(s, w, kindText))
		}
		line := head(s, w)
		if i := strings.LastIndexByte(line, ' '); i > 0 && i < len(line)-1 {
			line = line[:i+1]
		}
		if line == "" { // a character wider than w
			_, size := utf8.DecodeRuneInString(s)
			line = s[:size]
		}
		lines = append(lines, strings.TrimRight(line, " "))
		s = s[len(line):]
	}
	return lines
}

// field is one "key: value" line.
type field struct {
	key string
	val cell
}

// writeTableOrRecords writes g as a table when it fits the width, else as a
// record view: each row as "key: value" lines, like psql's expanded mode.
func writeTableOrRecords(o Options, b *bytes.Buffer, g *grid) {
	if g.writeTable(o, b) {
		return
	}
	for r, row := range g.rows {
		if r > 0 {
			b.WriteByte('\n')
		}
		title := fmt.Sprintf("-[ RECORD %d ]", r+1)
		if o.Width > 0 {
			title += strings.Repeat("-", max(0, min(o.Width, 40)-textWidth(title)))
		}
		b.WriteString(o.style(styleDim, title) + "\n")
		fields := make([]field, 0, len(row))
		for i, c := range row {
			if c.absent {
				continue
			}
			fields = append(fields, field{g.cols[i].title, c})
		}
		writeFields(o, b, fields)
	}
}

// writeTable writes g as a table and tells whether it did: not when it
// does not fit o.Width readably.
func (g *grid) writeTable(o Options, b *bytes.Buffer) bool {
	natural := g.naturalWidths()
	widths, ok := fitWidths(g.cols, natural, o.Width)
	if !ok || !g.readable(natural, widths) {
		return false
	}
	writeGrid(o, b, g, widths)
	return true
}

// fits tells whether every column shows whole within width.
func (g *grid) fits(width int) bool {
	total := colGap * max(0, len(g.cols)-1)
	for _, w := range g.naturalWidths() {
		total += w
	}
	return total <= width
}

// withoutLast is g without its last column.
func (g *grid) withoutLast() *grid {
	n := len(g.cols) - 1
	slim := &grid{cols: g.cols[:n], keep: g.keep}
	for _, row := range g.rows {
		slim.rows = append(slim.rows, row[:n])
	}
	return slim
}
