package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

func (o Options) defang(s string) string {
	if o.Defang == nil {
		return s
	}
	return o.Defang(s)
}

// tablePrinter is the single-value table: a block per record.
type tablePrinter struct {
	opts Options
	n    int
	buf  bytes.Buffer
}

func (p *tablePrinter) Add(r Record) error {
	o := p.opts
	b := &p.buf
	b.Reset()
	if p.n > 0 {
		b.WriteByte('\n')
	}
	p.n++
	query := r.query()
	fields := []field{{"Query", textCell(o.defang(query), kindToken)}}
	if r.Err != nil {
		errCell := textCell(r.Err.Error(), kindText)
		errCell.style = styleRed
		writeFields(o, b, append(fields, field{"Error", errCell}))
		return p.write()
	}
	resp := r.Resp
	if resp == nil {
		resp = &api.SearchResponse{}
	}
	for _, f := range [][2]string{
		{"Detected type", resp.DetectedType},
		{"Strategy", resp.Strategy},
		{"Unsupported reason", resp.UnsupportedReason},
		{"Cached", cachedAgo(resp)},
	} {
		if f[1] != "" {
			fields = append(fields, field{f[0], textCell(f[1], kindText)})
		}
	}
	writeFields(o, b, fields)
	b.WriteByte('\n')
	if resp.ResultCount() == 0 {
		b.WriteString(o.style(styleDim, "No matches.") + "\n")
		return p.write()
	}
	writeResults(o, b, resultsGrid(o, query, resp.Results))
	writeMore(o, b, resp.ResultCount()-min(len(resp.Results), maxRows), "results")
	if o.Preview {
		if err := writePreviews(o, b, query, resp); err != nil {
			return err
		}
	}
	return p.write()
}

func (p *tablePrinter) write() error {
	_, err := p.opts.Out.Write(p.buf.Bytes())
	return failure.WriteError(err)
}

func (p *tablePrinter) Flush() error { return failure.WriteError(flush(p.opts.Out)) }
func (p *tablePrinter) Close() error { return p.Flush() }

// resultsGrid is one row per result, at most maxRows. When the terminal is
// narrow, LABEL, GROUP, MATCHED COLUMN and COUNT stay; DETAIL URL goes
// before MATCHED VALUE, and MATCHED VALUE is left out altogether when it only
// repeats the query shown above. Indicators are defanged; the service's own
// link never is, so that it still opens.
func resultsGrid(o Options, query string, results []api.Result) *grid {
	results = results[:min(len(results), maxRows)]
	showValue := false
	for _, res := range results {
		if res.MatchedValue != query {
			showValue = true
		}
	}
	g := &grid{cols: []column{
		{title: "LABEL", min: 10},
		{title: "GROUP", min: 6},
		{title: "MATCHED COLUMN", min: 8},
	}}
	if showValue {
		g.cols = append(g.cols, column{title: "MATCHED VALUE", min: 12, drop: 1})
	}
	g.cols = append(g.cols, column{title: "COUNT", min: 5}, column{title: "DETAIL URL", min: 16, drop: 2, squeeze: true})
	for _, res := range results {
		label := res.Name()
		row := []cell{textCell(label, kindText), textCell(res.Group, kindText), textCell(res.MatchedColumn, kindToken)}
		if showValue {
			row = append(row, textCell(o.defang(res.MatchedValue), kindToken))
		}
		url := textCell(res.DetailURL, kindToken)
		if url.text == res.DetailURL {
			url.link = url.text // only a URL that needed no cleaning or cut is a link target
		}
		row = append(row, textCell(string(res.Count), kindToken), url)
		g.rows = append(g.rows, row)
	}
	return g
}

// writeResults writes the results table. A link's visible text may be
// short, but a URL to copy is no use cut: without links, when the table
// fits whole only without DETAIL URL (the last column), that column is
// left out with a line saying how to get the pages. A table that does not
// fit even then is left to writeTableOrRecords (a record view shows the
// URLs whole).
func writeResults(o Options, b *bytes.Buffer, g *grid) {
	if o.Width > 0 && !o.Hyperlinks && !g.fits(o.Width) {
		if slim := g.withoutLast(); slim.fits(o.Width) {
			writeTableOrRecords(o, b, slim)
			b.WriteString(o.style(styleDim, shorten("Detail pages do not fit this width: --web opens one, -o json lists them.", o.Width, kindText)) + "\n")
			return
		}
	}
	writeTableOrRecords(o, b, g)
}

// writePreviews writes each result's preview records under a title naming
// the resource: a table when they fit the width, else a record view. Keys
// keep the server's order and numbers print as sent, so the records come
// from the server's bytes, decoded again with order kept. A table leaves
// out a column that only repeats the query (shown above), as the results
// table does: at 80 columns it can be the difference between a table and a
// record view.
func writePreviews(o Options, b *bytes.Buffer, query string, resp *api.SearchResponse) error {
	previews, err := orderedPreviews(resp)
	if err != nil {
		return err
	}
	partial := false
	for i, res := range resp.Results[:min(len(resp.Results), maxRows)] {
		var recs *array
		if i < len(previews) {
			recs = previews[i]
		}
		if recs == nil || len(recs.elems) == 0 {
			continue
		}
		if writePreview(o, b, query, res, recs) {
			partial = true
		}
	}
	if partial {
		// Previews show fewer records than their resource counts: say
		// where the rest are, once, rather than leave "(10 of 14)" as a
		// dead end.
		hint := "Only some records shown: --limit N asks for more"
		if resp.Results[0].DetailURL != "" {
			hint += ", --web opens a detail page"
		}
		if o.Width > 0 {
			hint = shorten(hint, o.Width, kindText)
		}
		b.WriteString("\n" + o.style(styleDim, hint) + "\n")
	}
	return nil
}

// orderedPreviews returns each result's preview array, in results order.
func orderedPreviews(resp *api.SearchResponse) ([]*array, error) {
	if len(resp.Raw) == 0 {
		out := make([]*array, len(resp.Results))
		for i, res := range resp.Results {
			a := &array{}
			for _, rec := range res.Preview {
				a.elems = append(a.elems, fromMap(rec))
			}
			out[i] = a
		}
		return out, nil
	}
	v, err := decodeOrdered(resp.Raw, tableLimits)
	if err != nil {
		return nil, err
	}
	top, _ := v.(*object)
	if top == nil {
		return nil, nil
	}
	results, _ := top.get("results")
	arr, _ := results.(*array)
	if arr == nil {
		return nil, nil
	}
	out := make([]*array, len(arr.elems))
	for i, e := range arr.elems {
		if res, ok := e.(*object); ok {
			p, _ := res.get("preview")
			out[i], _ = p.(*array)
		}
	}
	return out, nil
}

// fromMap converts a decoded map, whose order is lost, to an object with
// sorted keys: used only for a response built in code, without Raw.
func fromMap(v any) any {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := &object{}
		for _, k := range keys {
			o.set(k, fromMap(v[k]))
		}
		return o
	case []any:
		a := &array{}
		for _, e := range v {
			a.elems = append(a.elems, fromMap(e))
		}
		return a
	case float64:
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return v
}

// writePreview writes one result's preview and tells whether the service
// counts more records than it sent.
func writePreview(o Options, b *bytes.Buffer, query string, res api.Result, recs *array) bool {
	name := res.Label
	if name == "" {
		name = res.Resource
	}
	title := "Preview: " + sanitize.String(capString(name, maxCellRunes))
	shown := len(recs.elems) + recs.more
	if res.Count != "" {
		title += fmt.Sprintf(" (%d of %s)", shown, shorten(sanitize.String(capString(string(res.Count), maxCellRunes)), 24, kindToken))
	} else {
		title += fmt.Sprintf(" (%d)", shown)
	}
	if o.Width > 0 {
		title = shorten(title, o.Width, kindText)
	}
	g, moreCols := recordsGrid(o, recs.elems, true)
	if len(g.cols) == 0 {
		return false // nothing to show, not even a column name
	}
	b.WriteString("\n" + o.style(styleBold, title) + "\n")
	// A table leaves out what only repeats the query, and when it still
	// does not fit, shows timestamps as dates; a record view, one record at
	// a time, shows each whole.
	slim := g.withoutQuery(query)
	if !slim.writeTable(o, b) {
		if dated := slim.withDates(); dated == nil || !dated.writeTable(o, b) {
			writeTableOrRecords(o, b, g)
		}
	}
	writeMore(o, b, recs.more, "records")
	writeMore(o, b, moreCols, "fields")
	total, err := strconv.ParseInt(string(res.Count), 10, 64)
	return err == nil && total > int64(shown)
}

// minFreeColumn is the narrowest a column of free-form records may get before
// the records print as a record view instead: a timestamp, an address or a
// CVE ID must show whole, since cut they are not worth reading.
const minFreeColumn = 22

// recordsGrid makes a grid of free-form records: the columns are the
// records' flattened keys in the order first seen, at most maxColumns;
// moreCols counts the keys left out. Elements that are not objects show in
// a "value" column. With defang, string values that are indicators are
// defanged.
func recordsGrid(o Options, recs []any, defang bool) (g *grid, moreCols int) {
	index := map[string]int{}
	var keys []string
	flat := make([][]flatField, len(recs))
	for r, rec := range recs {
		obj, ok := rec.(*object)
		if !ok {
			obj = &object{keys: []string{"value"}, vals: []any{rec}}
		}
		fields, _ := flatten(obj, maxFields)
		flat[r] = fields
		for _, f := range fields {
			if _, seen := index[f.key]; seen {
				continue
			}
			if len(keys) >= maxColumns {
				index[f.key] = -1
				moreCols++
				continue
			}
			index[f.key] = len(keys)
			keys = append(keys, f.key)
		}
	}
	g = &grid{cols: make([]column, len(keys)), keep: 0.75}
	for i, k := range keys {
		g.cols[i] = column{title: sanitize.String(k), min: minFreeColumn}
	}
	for _, fields := range flat {
		row := make([]cell, len(keys))
		for i := range row {
			row[i].absent = true
		}
		for _, f := range fields {
			if i := index[f.key]; i >= 0 {
				row[i] = valueCell(o, f.val, defang)
			}
		}
		g.rows = append(g.rows, row)
	}
	return g, moreCols
}

// withoutQuery is g without the columns whose every cell (one at least)
// is the query itself: a domain column in the records found by that
// domain. A grid made only of such columns is kept whole.
func (g *grid) withoutQuery(query string) *grid {
	if query == "" {
		return g
	}
	repeats := g.columnsWhere(func(raw string) bool { return raw == query || strings.EqualFold(raw, query) })
	var keep []int
	for i := range g.cols {
		if !slices.Contains(repeats, i) {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(g.cols) || len(keep) == 0 {
		return g
	}
	slim := &grid{keep: g.keep, cols: make([]column, len(keep)), rows: make([][]cell, len(g.rows))}
	for j, i := range keep {
		slim.cols[j] = g.cols[i]
	}
	for r, row := range g.rows {
		slim.rows[r] = make([]cell, len(keep))
		for j, i := range keep {
			slim.rows[r][j] = row[i]
		}
	}
	return slim
}

// columnsWhere lists the columns whose every value (one at least) is
// such that is(raw), raw being the value as the server sent it.
func (g *grid) columnsWhere(is func(raw string) bool) []int {
	var cols []int
	for i := range g.cols {
		all := false
		for _, row := range g.rows {
			if row[i].absent {
				continue
			}
			if all = is(row[i].raw); !all {
				break
			}
		}
		if all {
			cols = append(cols, i)
		}
	}
	return cols
}

// withDates is g with each column of timestamps (every cell, one at
// least, an RFC 3339 date and time, as a record's first_seen) showing only
// the date, "2025-04-20…": a preview's records are compared by the day,
// and the "…" says the time was cut (the record view and -o json have it).
// Passive DNS records have two such columns: at 80 columns they are the
// difference between a table and a record view. The times are given up
// only for a table that then reads nearly whole (datedKeep): not for one
// whose addresses and IDs would still be cut to a few characters, which
// the record view shows whole. nil when g has no such column.
func (g *grid) withDates() *grid {
	dated := g.columnsWhere(isTimestamp)
	if len(dated) == 0 {
		return nil
	}
	d := &grid{cols: g.cols, keep: max(g.keep, datedKeep), noHeader: g.noHeader, rows: make([][]cell, len(g.rows))}
	for r, row := range g.rows {
		d.rows[r] = slices.Clone(row)
		for _, i := range dated {
			if c := &d.rows[r][i]; !c.absent {
				c.text = c.raw[:len("2006-01-02")] + "…"
			}
		}
	}
	return d
}

// datedKeep is the share of its natural width a table of dates must get.
const datedKeep = 0.9

// isTimestamp tells whether s is an RFC 3339 date and time.
func isTimestamp(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || s[10] != 'T' {
		return false
	}
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}

// valueCell shows a decoded value in a cell.
func valueCell(o Options, v any, defang bool) cell {
	s := compactText(v, maxCellRunes)
	if str, ok := v.(string); ok && defang {
		s = o.defang(str)
	}
	c := textCell(s, kindAuto)
	if str, ok := v.(string); ok {
		c.raw = str
	}
	return c
}

var summaryColumns = []string{"QUERY", "TYPE", "RESOURCES", "COUNT", "STATUS"}

// summaryPrinter is the multi-value table: one row per value, written as it
// comes. The column widths are decided once, before the first row, from the
// terminal's width and what each column holds, so that a table streamed over
// minutes stays aligned; a cell wider than its column is shortened. Piped,
// nothing is cut and the cells are tab-separated (see writeRow).
type summaryPrinter struct {
	opts    Options
	widths  []int
	started bool
	buf     bytes.Buffer
}

func newSummaryPrinter(o Options) *summaryPrinter {
	return &summaryPrinter{opts: o, widths: summaryWidths(o.Width)}
}

// summaryWidths: TYPE, RESOURCES and COUNT hold short values; QUERY gets up
// to 64 (a SHA-256; a SHA-512 is shortened in the middle) but leaves STATUS
// at least 16, and STATUS gets the rest, so that an error stays readable.
// On a very narrow terminal RESOURCES, then COUNT, then TYPE are left out
// (width -1). width 0: widths for the common values (up to a SHA-1), and
// STATUS unbounded (0).
func summaryWidths(width int) []int {
	widths := []int{40, 7, 9, 7, 0}
	if width <= 0 {
		return widths
	}
	const queryMin, statusMin = 12, 16
	fixed := func() (sum, n int) {
		for _, w := range widths[1:4] {
			if w > 0 {
				sum += w + colGap
				n++
			}
		}
		return sum, n
	}
	for _, drop := range []int{2, 3, 1} {
		if sum, _ := fixed(); width-sum-colGap >= queryMin+statusMin {
			break
		}
		widths[drop] = -1
	}
	sum, _ := fixed()
	rest := max(2, width-sum-colGap)
	query := min(64, rest-statusMin)
	if query < queryMin { // too narrow for both minimums: share evenly
		query = max(1, (rest+1)/2)
	}
	widths[0], widths[4] = query, max(1, rest-query)
	return widths
}

func (p *summaryPrinter) Add(r Record) error {
	o := p.opts
	p.buf.Reset()
	if !p.started {
		p.started = true
		header := make([]cell, len(summaryColumns))
		for i, h := range summaryColumns {
			header[i] = cell{text: h, style: styleBold}
		}
		p.writeRow(header)
	}
	p.writeRow(summaryRow(o, r))
	_, err := o.Out.Write(p.buf.Bytes())
	return failure.WriteError(err)
}

func summaryRow(o Options, r Record) []cell {
	row := []cell{textCell(o.defang(r.query()), kindToken)}
	if r.Err != nil {
		status := textCell("error: "+r.Err.Error(), kindText)
		status.style = styleRed
		return append(row, cell{}, cell{}, cell{}, status)
	}
	resp := r.Resp
	if resp == nil {
		resp = &api.SearchResponse{}
	}
	status := cell{text: "match"}
	switch {
	case resp.UnsupportedReason != "":
		status = textCell("unsupported: "+resp.UnsupportedReason, kindText)
		status.style = styleDim
	case resp.ResultCount() == 0:
		status = cell{text: "no match", style: styleDim}
	}
	status.text += cachedNote(resp)
	return append(row,
		textCell(resp.DetectedType, kindText),
		cell{text: strconv.Itoa(resp.ResultCount())},
		cell{text: totalCount(resp.Counts()), kind: kindToken},
		status)
}

// writeRow pads each cell to its fixed width on a terminal, where a wider
// cell is shortened. Piped, cells are whole and separated by a tab, as gh's
// tables are: a streamed table cannot know its widest value before its last
// row, and padding to a guess misaligns every row after a long URL, while
// tabs line up under column -t and split under cut -f and awk -F'\t'.
//
// This row stays by hand, not in tablewriter's streaming mode. Piped, a
// tab-separated row is no layout: tablewriter pads every cell to a fixed
// width before its separator. On a terminal, streaming mode (fixed
// widths, borderless, trailing padding trimmed) gives the same bytes but
// costs 124 allocations and ~12 µs a row against 8 and ~2.6 µs here, over
// the budget of TestRenderAllocsPerRecord (30): a bulk run streams this
// table for every value.
func (p *summaryPrinter) writeRow(row []cell) {
	o, b := p.opts, &p.buf
	for i, c := range row {
		w := p.widths[i]
		if w < 0 {
			continue // left out on a narrow terminal
		}
		if i > 0 {
			if o.Width == 0 {
				b.WriteByte('\t')
			} else {
				b.WriteString("  ")
			}
		}
		text, style := c.text, c.style
		if text == "" {
			text, style = emptyCell, styleDim
		}
		if o.Width > 0 {
			text = shorten(text, w, c.kind)
		}
		b.WriteString(o.style(style, text))
		if i < len(row)-1 && o.Width > 0 {
			b.WriteString(strings.Repeat(" ", max(0, w-textWidth(text))))
		}
	}
	b.WriteByte('\n')
}

func (p *summaryPrinter) Flush() error { return failure.WriteError(flush(p.opts.Out)) }
func (p *summaryPrinter) Close() error { return p.Flush() }

// maxCountDigits bounds the counts added exactly: big.Int parsing is
// quadratic in the number of digits, and a server may send a million.
const maxCountDigits = 200

// totalCount adds up the results' counts exactly; counts that are not
// integers (absent, null, or odd) are left out. Counts that fit an int64 are
// added without big.Int, which would allocate per result. A count too long to
// add makes the total "≥" the largest power of ten it shows.
func totalCount(counts iter.Seq[json.Number]) string {
	var sum, n big.Int
	var small int64
	huge := 0
	for count := range counts {
		c := string(count)
		if c == "" {
			continue
		}
		if v, err := strconv.ParseInt(c, 10, 64); err == nil && v > -1<<61 && v < 1<<61 {
			small += v
			if small > 1<<61 || small < -1<<61 {
				sum.Add(&sum, n.SetInt64(small))
				small = 0
			}
			continue
		}
		if len(c) > maxCountDigits && isDigits(c) {
			c = strings.TrimLeft(c, "0")
		}
		if len(c) > maxCountDigits {
			if isDigits(c) {
				huge = max(huge, len(c)-1)
			}
			continue
		}
		if _, ok := n.SetString(c, 10); ok {
			sum.Add(&sum, &n)
		}
	}
	if huge > 0 {
		return "≥1e" + strconv.Itoa(huge)
	}
	return sum.Add(&sum, n.SetInt64(small)).String()
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
