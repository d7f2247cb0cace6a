package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twcache"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/sanitize"
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

func (o Options) defang(s string) string {
	if o.Defang == nil {
		return s
	}
	return o.Defang(s)
}

// cell is a sanitized table cell; an empty one shows as a dim dash.
func (o Options) cell(s string) string {
	s = sanitize.String(s)
	if s == "" {
		return o.style(styleDim, emptyCell)
	}
	return s
}

// newTable returns a borderless, gh-like tablewriter table: columns two
// spaces apart, headers left-aligned and printed as given (tablewriter would
// otherwise title-case them and split names like matched_column), no
// wrapping or trimming, so cells come out exactly as sanitized.
func newTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			// Two spaces as the column separator rather than as right padding:
			// tablewriter repeats a padding string per missing column, overshoots
			// with a two-character one, then truncates and appends an SGR reset.
			Symbols: tw.NewSymbolCustom("gh").WithColumn("  "),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.On, ShowHeader: tw.Off, ShowFooter: tw.Off},
				Lines:      tw.Lines{ShowTop: tw.Off, ShowBottom: tw.Off, ShowHeaderLine: tw.Off, ShowFooterLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithPadding(tw.PaddingNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithTrimLine(tw.Off),
		// The stringer cache is unused (cells are strings); keep Reset from
		// reallocating a big one.
		tablewriter.WithStringerCacheCustom(twcache.NewLRU[reflect.Type, reflect.Value](1)),
	)
}

// tabler renders tables through one reused tablewriter.Table, because a new
// Table preallocates a 10k-entry cache (about 400 KB): per record, that was
// most of the cost of a table.
type tabler struct {
	t   *tablewriter.Table
	buf bytes.Buffer
}

// render appends a table to dst. header cells are used as given (nil for
// none); rows are ready cells.
func (tb *tabler) render(dst *bytes.Buffer, header []any, rows [][]string) error {
	if tb.t == nil {
		tb.t = newTable(&tb.buf)
	} else {
		tb.t.Reset()
	}
	tb.buf.Reset()
	if header != nil {
		tb.t.Header(header...)
	}
	for _, row := range rows {
		if err := tb.t.Append(row); err != nil {
			return err
		}
	}
	if err := tb.t.Render(); err != nil {
		return err
	}
	trimLines(dst, tb.buf.Bytes())
	return nil
}

// renderTable appends a table with a plain-text header, bold when colour is
// on.
func renderTable(o Options, tb *tabler, dst *bytes.Buffer, header []string, rows [][]string) error {
	var h []any
	if header != nil {
		h = make([]any, len(header))
		for i, s := range header {
			h[i] = o.style(styleBold, s)
		}
	}
	return tb.render(dst, h, rows)
}

// trimLines copies table text, dropping the spaces tablewriter pads the last
// column with, so lines do not end in whitespace.
func trimLines(w *bytes.Buffer, b []byte) {
	for len(b) > 0 {
		line := b
		rest := []byte(nil)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, rest = b[:i], b[i+1:]
		}
		w.Write(bytes.TrimRight(line, " "))
		w.WriteByte('\n')
		b = rest
	}
}

// tablePrinter is the single-value table: a block per record.
type tablePrinter struct {
	opts Options
	n    int
	buf  bytes.Buffer
	tb   tabler
}

var resultColumns = []string{"LABEL", "GROUP", "MATCHED COLUMN", "MATCHED VALUE", "COUNT", "DETAIL URL"}

func (p *tablePrinter) Add(r Record) error {
	o := p.opts
	b := &p.buf
	b.Reset()
	if p.n > 0 {
		b.WriteByte('\n')
	}
	p.n++
	fields := [][2]string{{"Query", o.cell(o.defang(r.query()))}}
	if r.Err != nil {
		fields = append(fields, [2]string{"Error", o.style(styleRed, sanitize.String(r.Err.Error()))})
		writeFields(o, b, fields)
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
			fields = append(fields, [2]string{f[0], sanitize.String(f[1])})
		}
	}
	writeFields(o, b, fields)
	b.WriteByte('\n')
	if len(resp.Results) == 0 {
		b.WriteString(o.style(styleDim, "No matches.") + "\n")
		return p.write()
	}
	rows := make([][]string, 0, len(resp.Results))
	for _, res := range resp.Results {
		rows = append(rows, []string{
			o.cell(res.Label), o.cell(res.Group), o.cell(res.MatchedColumn),
			o.cell(o.defang(res.MatchedValue)), o.cell(string(res.Count)), o.cell(o.defang(res.DetailURL)),
		})
	}
	if err := renderTable(o, &p.tb, b, resultColumns, rows); err != nil {
		return err
	}
	if o.Preview {
		for _, res := range resp.Results {
			if len(unionKeys(res.Preview)) == 0 {
				continue // nothing to show, not even a column name
			}
			b.WriteByte('\n')
			if err := writePreview(o, &p.tb, b, res); err != nil {
				return err
			}
		}
	}
	return p.write()
}

func (p *tablePrinter) write() error {
	_, err := p.opts.Out.Write(p.buf.Bytes())
	return writeErr(err)
}

func (p *tablePrinter) Flush() error { return writeErr(flush(p.opts.Out)) }
func (p *tablePrinter) Close() error { return p.Flush() }

// writeFields writes "Key:  value" lines with the values aligned.
func writeFields(o Options, b *bytes.Buffer, fields [][2]string) {
	width := 0
	for _, f := range fields {
		width = max(width, twwidth.Width(f[0])+1)
	}
	for _, f := range fields {
		key := f[0] + ":"
		b.WriteString(o.style(styleBold, key))
		b.WriteString(strings.Repeat(" ", width-twwidth.Width(key)+2))
		b.WriteString(f[1])
		b.WriteByte('\n')
	}
}

// previewCellMax caps a preview cell, in runes: preview records are free-form
// and may hold whole payloads, which would make the table unreadable; json
// output has them in full.
const previewCellMax = 80

// writePreview writes a result's preview records under a title naming the
// resource. Columns are the union of the records' keys, sorted.
func writePreview(o Options, tb *tabler, b *bytes.Buffer, res api.Result) error {
	name := res.Label
	if name == "" {
		name = res.Resource
	}
	title := "Preview: " + sanitize.String(name)
	if res.Count != "" {
		title += fmt.Sprintf(" (%d of %s)", len(res.Preview), sanitize.String(string(res.Count)))
	} else {
		title += fmt.Sprintf(" (%d)", len(res.Preview))
	}
	b.WriteString(o.style(styleBold, title) + "\n")
	keys := unionKeys(res.Preview)
	header := make([]string, len(keys))
	for i, k := range keys {
		header[i] = o.cell(k)
	}
	rows := make([][]string, 0, len(res.Preview))
	for _, rec := range res.Preview {
		row := make([]string, len(keys))
		for i, k := range keys {
			v, ok := rec[k]
			if !ok {
				row[i] = o.cell("")
				continue
			}
			row[i] = o.cell(sanitize.Truncate(cellValue(v), previewCellMax))
		}
		rows = append(rows, row)
	}
	return renderTable(o, tb, b, header, rows)
}

func unionKeys(recs []map[string]any) []string {
	seen := map[string]bool{}
	var keys []string
	for _, rec := range recs {
		for k := range rec {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// scalarText shows a decoded JSON value in a cell: strings bare, numbers as
// written, null as "null", objects and arrays as compact JSON.
func scalarText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	}
	return compactJSON(v)
}

// cleanValue returns v with every string in it, object keys included,
// sanitized, so that nested values shown as JSON in a table cell carry
// no escape sequence even in \u-escaped form.
func cleanValue(v any) any {
	switch v := v.(type) {
	case string:
		return sanitize.String(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cleanValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[sanitize.String(k)] = cleanValue(e)
		}
		return out
	}
	return v
}

// cellValue is scalarText for a table cell: sanitized throughout.
func cellValue(v any) string {
	switch v.(type) {
	case []any, map[string]any:
		v = cleanValue(v)
	}
	return sanitize.String(scalarText(v))
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// summaryBatch is how many summary rows are held before they are written.
// The first batch sets the column widths; later batches can widen them but
// not the rows already written.
const summaryBatch = 100

var summaryColumns = []string{"QUERY", "TYPE", "RESOURCES", "COUNT", "STATUS"}

type styledCell struct{ text, style string }

// summaryPrinter is the multi-value table: one row per value, written in
// batches so memory stays bounded however long the stream.
type summaryPrinter struct {
	opts    Options
	pending [][]styledCell
	since   time.Time // when the oldest pending row came
	widths  []int
	started bool
	buf     bytes.Buffer
	tb      tabler
}

func (p *summaryPrinter) Add(r Record) error {
	o := p.opts
	row := []styledCell{{text: sanitize.String(o.defang(r.query()))}}
	switch {
	case r.Err != nil:
		row = append(row, styledCell{}, styledCell{}, styledCell{},
			styledCell{"error: " + sanitize.String(r.Err.Error()), styleRed})
	default:
		resp := r.Resp
		if resp == nil {
			resp = &api.SearchResponse{}
		}
		status := styledCell{"match", ""}
		switch {
		case resp.UnsupportedReason != "":
			status = styledCell{"unsupported: " + sanitize.String(resp.UnsupportedReason), styleDim}
		case len(resp.Results) == 0:
			status = styledCell{"no match", styleDim}
		}
		status.text += cachedNote(resp)
		row = append(row,
			styledCell{text: sanitize.String(resp.DetectedType)},
			styledCell{text: strconv.Itoa(len(resp.Results))},
			styledCell{text: totalCount(resp.Results)},
			status)
	}
	if len(p.pending) == 0 {
		p.since = time.Now()
	}
	p.pending = append(p.pending, row)
	if len(p.pending) >= summaryBatch {
		return p.writeBatch()
	}
	return nil
}

// Flush writes the rows held back once they have waited a second (a stream
// that stalls still shows what it has, and a quick run stays one table), then
// flushes Out.
func (p *summaryPrinter) Flush() error {
	if len(p.pending) > 0 && time.Since(p.since) >= time.Second {
		if err := p.writeBatch(); err != nil {
			return err
		}
	}
	return writeErr(flush(p.opts.Out))
}

func (p *summaryPrinter) Close() error {
	if len(p.pending) > 0 {
		if err := p.writeBatch(); err != nil {
			return err
		}
	}
	return writeErr(flush(p.opts.Out))
}

// writeBatch pads every cell to the widest seen so far, so that batches
// rendered as separate tables line up, and writes them.
func (p *summaryPrinter) writeBatch() error {
	o := p.opts
	if p.widths == nil {
		p.widths = make([]int, len(summaryColumns))
		for i, h := range summaryColumns {
			p.widths[i] = len(h)
		}
	}
	for _, row := range p.pending {
		for i, c := range row {
			p.widths[i] = max(p.widths[i], twwidth.Width(cellText(c)))
		}
	}
	pad := func(i int, text, style string) string {
		styled := o.style(style, text)
		if i == len(p.widths)-1 {
			return styled
		}
		return styled + strings.Repeat(" ", max(0, p.widths[i]-twwidth.Width(text)))
	}
	var header []any
	if !p.started {
		header = make([]any, len(summaryColumns))
		for i, h := range summaryColumns {
			header[i] = pad(i, h, styleBold)
		}
		p.started = true
	}
	rows := make([][]string, len(p.pending))
	for r, row := range p.pending {
		cells := make([]string, len(row))
		for i, c := range row {
			if c.text == "" {
				cells[i] = pad(i, emptyCell, styleDim)
			} else {
				cells[i] = pad(i, c.text, c.style)
			}
		}
		rows[r] = cells
	}
	clear(p.pending) // let the batch's strings go
	p.pending = p.pending[:0]
	p.buf.Reset()
	if err := p.tb.render(&p.buf, header, rows); err != nil {
		return err
	}
	_, err := o.Out.Write(p.buf.Bytes())
	return writeErr(err)
}

func cellText(c styledCell) string {
	if c.text == "" {
		return emptyCell
	}
	return c.text
}

// totalCount adds up the results' counts exactly; counts that are not
// integers (absent, null, or odd) are left out.
func totalCount(results []api.Result) string {
	var sum, n big.Int
	for _, r := range results {
		if _, ok := n.SetString(string(r.Count), 10); ok {
			sum.Add(&sum, &n)
		}
	}
	return sum.String()
}
