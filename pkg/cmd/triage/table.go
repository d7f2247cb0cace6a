package triage

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// tableWriter keeps each indicator's status and the labels and counts of
// its resources (not the answer's bytes) and prints at the end: a summary
// line, the matched indicators with their resources, the others in short,
// and the skipped ones with --show-skipped.
type tableWriter struct {
	o    output.Options
	opts *Options
	rep  report.Report
}

func (w *tableWriter) Add(ind report.Indicator) error {
	ind.Resp = trimmed(ind.Resp)
	w.rep.Indicators = append(w.rep.Indicators, ind)
	return nil
}

// Flush does nothing: the table is printed whole at the end.
func (w *tableWriter) Flush() error { return nil }

func (w *tableWriter) Close(sum report.Summary, skipped *skipList) error {
	if w.opts.ShowSkipped {
		// Only the list needs them; the count is in sum.
		w.rep.Skipped = skipped.Slice()
	}
	width := 0
	if w.o.TTY {
		width = w.opts.IO.TerminalWidth()
	}
	t := &tableText{o: w.o, defang: w.opts.Defang, width: width}
	t.render(&w.rep, sum, w.opts.ShowSkipped)
	out := w.o.Out
	if w.o.TTY && w.opts.StartPager != nil {
		// A report's table is often longer than the screen; paged, its
		// summary line does not scroll away. The pager starts only now,
		// with the whole table, so that the lookups' progress and errors
		// are never hidden behind it.
		stop := w.opts.StartPager()
		defer stop()
		out = w.opts.IO.Out
	}
	_, err := out.Write(t.b.Bytes())
	if err == nil {
		err = flushOut(out)
	}
	if errors.Is(err, iostreams.ErrClosedPager) {
		return nil // the reader quit the pager: they have seen enough
	}
	return failure.WriteError(err)
}

// tableText lays a report out as text for a person.
type tableText struct {
	o      output.Options
	defang bool
	width  int // 0: no limit (not a terminal)
	b      bytes.Buffer
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (t *tableText) render(rep *report.Report, sum report.Summary, showSkipped bool) {
	// The URL hosts are among the indicators counted (looked up or
	// skipped), so their note is on the total.
	total := plural(sum.Counted(), "indicator", "indicators")
	if sum.URLHosts > 0 {
		total += fmt.Sprintf(" (%d of them URL hosts)", sum.URLHosts)
	}
	counts := fmt.Sprintf("%d matched, %d no match, %d unsupported, %d failed, %d skipped",
		sum.Matched, sum.NoMatch, sum.Unsupported, sum.Failed, sum.Skipped)
	line := total + ": " + counts
	if sum.URLHosts > 0 && t.width > 0 && len(line) > t.width {
		line = total + ":\n" + counts // the terminal would wrap it anywhere
	}
	t.b.WriteString(line + "\n")
	if sum.Interrupted {
		// A report read later, or pasted on, must not pass for the whole.
		t.b.WriteString("Incomplete: the run was interrupted; only the values looked up before it stopped are here.\n")
	}
	groups := map[report.Status][]report.Indicator{}
	for _, ind := range rep.Indicators {
		groups[ind.Status()] = append(groups[ind.Status()], ind)
	}
	t.matched(groups[report.Matched])
	t.section("No match", rows(groups[report.NoMatch], func(report.Indicator) string { return "" }))
	t.section("Unsupported", rows(groups[report.Unsupported], func(i report.Indicator) string { return i.Resp.UnsupportedReason }))
	t.failed(groups[report.Failed])
	switch {
	case sum.Skipped == 0:
	case showSkipped:
		var rs []row
		for _, s := range rep.Skipped {
			rs = append(rs, row{s.Value, s.Type, s.Reason, s.FromURL})
		}
		t.section("Skipped", rs)
		if sum.SkippedOmitted > 0 {
			t.b.WriteString("  … " + omittedLine(sum.SkippedOmitted) + "\n")
		}
	default:
		fmt.Fprintf(&t.b, "\n%d skipped before any lookup (--show-skipped lists them with the reasons)\n", sum.Skipped)
	}
}

// failed lists the values that failed with their errors; when the run
// stopped sending (a refused token, a service that cannot be reached),
// the heading says so once and the values follow without the same long
// line each.
func (t *tableText) failed(inds []report.Indicator) {
	stopped, stopErr := "", error(nil)
	for _, ind := range inds {
		if line, ok := lookup.NothingMoreSent(ind.Err); ok {
			stopped, stopErr = line, ind.Err
			break
		}
	}
	if stopped == "" {
		t.section("Failed", rows(inds, func(i report.Indicator) string { return i.Err.Error() }))
		return
	}
	why := failure.ExitCode(stopErr)
	rs := rows(inds, func(i report.Indicator) string {
		switch {
		case failure.KindOf(i.Err) == failure.NotSent,
			why == failure.ExitAuth && failure.KindOf(i.Err) == failure.Auth,
			why == failure.ExitService && api.Unreachable(i.Err):
			return "" // the values that showed the run could not succeed
		}
		return i.Err.Error()
	})
	t.sectionNote("Failed", sanitize.String(stopped), rs)
}

// row is one line of a section; fromURL is the URL a host was taken from.
type row struct{ value, typ, detail, fromURL string }

func rows(inds []report.Indicator, detail func(report.Indicator) string) []row {
	out := make([]row, len(inds))
	for i, ind := range inds {
		out[i] = row{ind.Value, ind.Type, joinDetail(detail(ind), report.WarnMark(ind.Warninglists)), ind.FromURL}
	}
	return out
}

// joinDetail is two things said of a value, either of which may be "".
func joinDetail(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func (t *tableText) heading(title string, n int) {
	t.b.WriteString("\n")
	t.b.WriteString(t.style(fmt.Sprintf("%s (%d)", title, n)))
	t.b.WriteString("\n")
}

func (t *tableText) style(s string) string {
	if !t.o.Color {
		return s
	}
	return "\x1b[1m" + s + "\x1b[0m"
}

// value is an indicator as shown: defanged on request, sanitized.
func (t *tableText) value(v, typ string) string {
	if t.defang {
		v = ioc.Defang(v, ioc.Type(typ))
	}
	return sanitize.String(v)
}

// section prints rows as "value  type  detail", the value column as wide
// as the longest value up to maxValueColumn.
func (t *tableText) section(title string, rs []row) { t.sectionNote(title, "", rs) }

// sectionNote is section with a line under the heading that is about
// every row.
func (t *tableText) sectionNote(title, note string, rs []row) {
	if len(rs) == 0 {
		return
	}
	t.heading(title, len(rs))
	if note != "" {
		t.b.WriteString("  " + note + "\n")
	}
	cells := make([][]string, len(rs))
	details := false
	for i, r := range rs {
		detail := r.detail
		if r.fromURL != "" {
			// Where the host was taken from, defanged like the value.
			detail = joinDetail(detail, "host of "+t.value(r.fromURL, string(ioc.URL)))
		}
		details = details || detail != ""
		cells[i] = []string{t.value(r.value, r.typ), report.TypeLabel(r.typ, r.fromURL), detail}
	}
	cols := sectionColumns("DETAIL")
	if !details {
		cols = cols[:2]
	}
	t.table(cols, cells)
}

// sectionColumns are the columns of a section: the value, cut in the
// middle when the terminal is narrow; the type, never cut ("domain (URL
// host)"); and what is said of the value, which gives up its width first.
func sectionColumns(detail string) []output.Column {
	return []output.Column{
		{Title: "VALUE", Min: 16, Token: true},
		{Title: "TYPE", Min: len(report.TypeLabel("domain", "u"))},
		{Title: detail, Min: 16},
	}
}

// table writes a section's rows with the project's table layout, under
// the section's heading: aligned, fitted to the terminal, whole in a pipe.
func (t *tableText) table(cols []output.Column, cells [][]string) {
	o := t.o
	o.Out, o.Width = &t.b, t.width
	// Writes to a bytes.Buffer cannot fail.
	_ = output.WriteTableStyled(o, output.TableStyle{NoHeader: true, Indent: "  "}, cols, cells)
}

// matched prints each matched indicator on a line with its type and the
// resources that matched ("label count", comma-separated), cut at the end
// when the terminal is too narrow for them (-o json has them all).
func (t *tableText) matched(inds []report.Indicator) {
	if len(inds) == 0 {
		return
	}
	t.heading("Matched", len(inds))
	cells := make([][]string, len(inds))
	for i, ind := range inds {
		cells[i] = []string{t.value(ind.Value, ind.Type), report.TypeLabel(ind.Type, ind.FromURL), joinDetail(resources(ind), report.WarnMark(ind.Warninglists))}
	}
	t.table(sectionColumns("RESOURCES"), cells)
}

// resources is "Label count, Label count" for the results of a match.
func resources(ind report.Indicator) string {
	parts := make([]string, 0, len(ind.Resp.Results))
	for _, r := range ind.Resp.Results {
		label := sanitize.String(r.Name())
		if c := r.Count.String(); c != "" {
			label += " " + sanitize.String(c)
		}
		parts = append(parts, label)
	}
	if more := ind.Resp.ResultCount() - len(ind.Resp.Results); more > 0 {
		// An answer keeps its first api.KeptResults results.
		parts = append(parts, fmt.Sprintf("… %d more", more))
	}
	return strings.Join(parts, ", ")
}
