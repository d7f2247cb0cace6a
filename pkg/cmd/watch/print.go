package watch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/watch"
)

// writer prints the changes of one run in one format: the formats that
// pkg/output/format lists for watch, each built by newWriter.
type writer interface {
	Add(Change) error
	Flush() error
	// Close ends the output; interrupted says the run did not finish.
	Close(at time.Time, interrupted bool) error
}

// doc are the flags of the output: defang for every format, --tlp and
// --to-ids for a document's.
func newWriter(f output.Format, out *bufio.Writer, name string, tty, csvRaw bool, width int, doc export.Options) (writer, error) {
	if err := output.CheckFormat("watch", f); err != nil {
		return nil, err
	}
	o := output.Options{Format: f, Out: out, TTY: tty, CSVRaw: csvRaw}
	def := func(s, typ string) string { return s }
	if doc.Defang {
		def = func(s, typ string) string { return ioc.Defang(s, ioc.Type(typ)) }
	}
	switch f {
	case output.JSON, output.NDJSON:
		return &listWriter{out: out, l: cmdutil.NewListWriter(o, nil)}, nil
	case output.CSV:
		return &csvWriter{c: output.NewCSVWriter(o, csvColumns), defang: def}, nil
	case output.Table:
		return &tableWriter{out: out, defang: def, width: width}, nil
	}
	if cmdutil.IsDocument(f) {
		return &documentWriter{out: out, format: f, tty: tty, opts: doc, doc: changes{name: name, defang: def}}, nil
	}
	return nil, fmt.Errorf("watch has no printer for -o %s", f)
}

// listWriter is json (one array, written as the changes come) and
// ndjson, through cmdutil.ListWriter: on a terminal every character a
// terminal could act on (a bidi override from a label) is a \u escape.
type listWriter struct {
	out *bufio.Writer
	l   *cmdutil.ListWriter
}

func (w *listWriter) Add(c Change) error {
	if c.Resources == nil {
		c.Resources = []watch.Delta{}
	}
	return w.l.Write(c, nil)
}

func (w *listWriter) Flush() error { return failure.WriteError(w.out.Flush()) }

func (w *listWriter) Close(time.Time, bool) error {
	if err := w.l.Close(); err != nil {
		return err
	}
	return w.Flush()
}

// csvWriter: one row per change and resource; a failed value is one row
// with its error. Cells go through output.CSVWriter (the terminal
// sanitizer, the formula guard unless --csv-raw).
type csvWriter struct {
	c      *output.CSVWriter
	defang func(s, typ string) string
}

var csvColumns = []string{"value", "type", "change", "resource", "label", "before", "after", "checked_at", "previous_checked_at", "error"}

func (w *csvWriter) Add(c Change) error {
	prev := ""
	if c.PreviousCheckedAt != nil {
		prev = *c.PreviousCheckedAt
	}
	value := w.defang(c.Value, c.Type)
	if c.Error != nil {
		return w.c.Write([]string{value, c.Type, c.Change, "", "", "", "", c.CheckedAt, prev, c.Error.Message})
	}
	for _, d := range c.Resources {
		if err := w.c.Write([]string{value, c.Type, c.Change, d.Resource, d.Label, csvCount(d.Before), csvCount(d.After), c.CheckedAt, prev, ""}); err != nil {
			return err
		}
	}
	return nil
}

func (w *csvWriter) Flush() error                { return w.c.Flush() }
func (w *csvWriter) Close(time.Time, bool) error { return w.c.Close() }

// tableWriter: one row per change and resource, laid out at the end by
// output.WriteTable (search's layout: aligned, sanitized, fitted to the
// terminal's width), so that a change's resources, the news, each get a
// line rather than one line cut at the terminal's edge. A failed value is
// one row with its error.
type tableWriter struct {
	out    *bufio.Writer
	defang func(s, typ string) string
	// width is the terminal's (0 when stdout is not one: nothing is cut).
	width int
	rows  [][]string
}

// tableColumns: RESOURCE is the news; the value gives up its width first
// (a hash cut in the middle still reads), then TYPE is left out.
var tableColumns = []output.Column{
	{Title: "CHANGE"},
	{Title: "VALUE", Min: 14, Token: true},
	{Title: "TYPE", Drop: 1},
	{Title: "RESOURCE", Min: 44},
}

func (w *tableWriter) Add(c Change) error {
	value := w.defang(c.Value, c.Type)
	if c.Error != nil || len(c.Resources) == 0 {
		what := ""
		if c.Error != nil {
			what = c.Error.Message
		}
		w.rows = append(w.rows, []string{c.Change, value, c.Type, what})
		return nil
	}
	for _, d := range c.Resources {
		w.rows = append(w.rows, []string{c.Change, value, c.Type, fmt.Sprintf("%s %s→%s", d.Name(), countText(d.Before), countText(d.After))})
	}
	return nil
}

func (w *tableWriter) Flush() error { return nil }

func (w *tableWriter) Close(_ time.Time, interrupted bool) error {
	if len(w.rows) > 0 {
		if err := output.WriteTable(output.Options{Out: w.out, TTY: w.width > 0, Width: w.width}, tableColumns, w.rows); err != nil {
			return err
		}
	}
	if interrupted {
		if _, err := fmt.Fprintln(w.out, "(interrupted: the values not reached were not compared)"); err != nil {
			return failure.WriteError(err)
		}
	}
	return failure.WriteError(w.out.Flush())
}

// documentWriter keeps the changes and writes them at the end as one
// document (pkg/export's printer layer): watch's own Markdown, or a
// printer of the layer's over the changes as a report or a MISP event.
type documentWriter struct {
	out    *bufio.Writer
	format output.Format
	tty    bool
	opts   export.Options
	doc    changes
}

func (w *documentWriter) Add(c Change) error { w.doc.rows = append(w.doc.rows, c); return nil }
func (w *documentWriter) Flush() error       { return nil }

func (w *documentWriter) Close(at time.Time, interrupted bool) error {
	w.doc.at, w.doc.interrupted = at, interrupted
	if err := export.WriteDocument(w.out, w.tty, w.format, &w.doc, w.opts); err != nil {
		return failure.WriteError(err)
	}
	return failure.WriteError(w.out.Flush())
}

// changes are a run's changes as a document.
type changes struct {
	name        string
	defang      func(s, typ string) string
	rows        []Change
	at          time.Time
	interrupted bool
}

// Report is the run as indicators, for the layer's printers: a value with
// the resources it matches now (a gone one with none), a failed one with
// its error.
func (d *changes) Report() *report.Report {
	r := &report.Report{Title: "Watch " + d.name, Time: d.at, Interrupted: d.interrupted}
	for _, c := range d.rows {
		in := report.Indicator{Value: c.Value, Type: c.Type}
		if c.Error != nil {
			in.Err = errors.New(c.Error.Message)
		} else {
			in.Resp = &api.SearchResponse{Query: c.Value}
			for _, dl := range c.Resources {
				if dl.After != nil {
					in.Resp.Results = append(in.Resp.Results, api.Result{Resource: dl.Resource, Label: dl.Label, Count: *dl.After})
				}
			}
		}
		r.Indicators = append(r.Indicators, in)
	}
	return r
}

// Printer is watch's own Markdown: the changes, not the values.
func (d *changes) Printer(f format.Name) (export.Printer, bool) {
	if f != format.MD {
		return export.Printer{}, false
	}
	return export.Printer{Name: f, Terminal: export.Itself, Write: func(w io.Writer, _ export.Document, _ export.Options) error { return d.markdown(w) }}, true
}

// markdown is one document for a mail or a ticket: a heading, then one
// table of the changes (a row per resource), then the failed values.
// Every string of data is escaped (pkg/export's rules).
func (d *changes) markdown(w io.Writer) error {
	var changes, failed []Change
	for _, c := range d.rows {
		if c.Error != nil {
			failed = append(failed, c)
		} else {
			changes = append(changes, c)
		}
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Watch %s: %d changed, %d failed\n\n", export.MarkdownCell(d.name), len(changes), len(failed))
	fmt.Fprintf(b, "Checked at %s.", d.at.UTC().Format(time.RFC3339))
	if d.interrupted {
		b.WriteString(" **Interrupted**: the values not reached were not compared.")
	}
	b.WriteString("\n\n")
	if len(changes) == 0 {
		b.WriteString("Nothing changed.\n")
	} else {
		b.WriteString("| Change | Indicator | Type | Resource | Before | After |\n|---|---|---|---|---|---|\n")
		for _, c := range changes {
			for _, dl := range c.Resources {
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", c.Change, export.MarkdownCodeCell(d.defang(c.Value, c.Type)),
					export.MarkdownCell(c.Type), export.MarkdownCell(dl.Name()), export.MarkdownCell(countText(dl.Before)), export.MarkdownCell(countText(dl.After)))
			}
		}
	}
	if len(failed) > 0 {
		b.WriteString("\n## Failed (last good answers kept)\n\n")
		for _, c := range failed {
			fmt.Fprintf(b, "- %s: %s\n", export.MarkdownCodeCell(d.defang(c.Value, c.Type)), export.MarkdownCell(c.Error.Message))
		}
	}
	return b.Flush()
}

// MISPRun is one MISP event of the run: an attribute per new or changed
// value, its comment saying what changed with each resource's count
// before and after, and a link attribute per detail page of this run's
// answer to it. A gone value is no attribute (an event holds what was
// found, and nothing is found about it now), nor is a failed one (an
// error is no fact about a value); the values are live, as an event is
// data for MISP. Values whose type MISP has no attribute type for are
// left out by the builder.
func (d *changes) MISPRun() export.MISPRun {
	var findings []export.Finding
	for _, c := range d.rows {
		if c.Error != nil || c.Change == string(watch.KindGone) {
			continue
		}
		findings = append(findings, export.Finding{Value: c.Value, Type: ioc.Type(c.Type), Change: mispChange(d.name, c), Pages: c.Pages})
	}
	return export.MISPRun{
		What: fmt.Sprintf("Watch %s, %d new or changed values", d.name, len(findings)),
		Time: d.at, Interrupted: d.interrupted, Findings: findings,
	}
}

// mispChange is a change as an attribute's comment: "Changed (since the
// check of 2026-11-23T07:00:00Z in watch NAME): C2 servers: 2 → 3; ...",
// the counts of the resources that differ, before and after.
func mispChange(name string, c Change) string {
	since := "first check in watch " + name
	if c.PreviousCheckedAt != nil {
		since = "since the check of " + *c.PreviousCheckedAt + " in watch " + name
	}
	parts := make([]string, len(c.Resources))
	for i, d := range c.Resources {
		label := d.Name()
		parts[i] = fmt.Sprintf("%s: %s → %s", label, mispCount(d.Before), mispCount(d.After))
		if d.Before != nil && d.After != nil && *d.Before == *d.After {
			parts[i] += " (preview records changed)"
		}
	}
	what := "Changed"
	if c.Change == string(watch.KindNew) {
		what = "New"
	}
	return fmt.Sprintf("%s (%s): %s", what, since, strings.Join(parts, "; "))
}

// mispCount is a count before or after: "none" where the resource did
// not match (a "-" would read as a typo in MISP's comment column).
func mispCount(n *json.Number) string {
	if n == nil {
		return "none"
	}
	return n.String()
}

func csvCount(n *json.Number) string {
	if n == nil {
		return ""
	}
	return n.String()
}

// Change is one line of the output: the contract's record, as the run's
// comparison (watch.Check) makes it.
type Change = watch.Change

// countText is a count for table, CSV and Markdown: "-" where the
// resource did not match.
func countText(n *json.Number) string {
	if n == nil {
		return "-"
	}
	return n.String()
}
