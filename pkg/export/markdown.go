package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/report"
)

// MarkdownOptions say how to write Markdown.
type MarkdownOptions struct {
	// Defang writes indicators defanged (198[.]51[.]100[.]7, hxxps[:]//…)
	// so that nobody clicks them from the ticket. The service's own links
	// (detail_url) are never defanged. Callers default it to true.
	Defang bool
}

// Markdown writes r as GitHub Flavoured Markdown for a ticket: a heading
// (the title), a summary line, a table of the matches (indicator, type,
// resource linked to its detail_url, group, count), then short lists of
// the values with no match, unsupported, failed and skipped, each with its
// reason.
func Markdown(w io.Writer, r *report.Report, opts MarkdownOptions) error {
	m := &mdWriter{w: bufio.NewWriter(w), opts: opts}
	m.heading(r)
	m.summary(r)
	m.matches(r)
	m.list(r, "No match", report.NoMatch, func(report.Indicator) string { return "" })
	m.list(r, "Unsupported", report.Unsupported, func(in report.Indicator) string { return in.Resp.UnsupportedReason })
	m.list(r, "Failed", report.Failed, func(in report.Indicator) string { return in.Err.Error() })
	m.skipped(r)
	return m.w.Flush()
}

// mdWriter writes one document; bufio.Writer keeps the first write error,
// which Flush returns.
type mdWriter struct {
	w    *bufio.Writer
	opts MarkdownOptions
}

func (m *mdWriter) printf(format string, args ...any) { fmt.Fprintf(m.w, format, args...) }

// indicator is a value as the document shows it: defanged when asked, in
// a code span.
func (m *mdWriter) indicator(value, typ string, cell bool) string {
	if strings.TrimSpace(value) == "" {
		return "(empty value)"
	}
	if m.opts.Defang {
		value = ioc.Defang(value, ioc.Type(typ))
	}
	return mdCode(value, cell)
}

// heading is the title; when the title is the one value searched, it is
// defanged like the value.
func (m *mdWriter) heading(r *report.Report) {
	title := r.Title
	if title == "" {
		title = "tilookup report"
	}
	text := mdText(title, false)
	for _, in := range r.Indicators {
		if in.Value == title {
			text = m.indicator(title, typeOf(in), false)
			break
		}
	}
	m.printf("# %s\n\n", text)
}

func (m *mdWriter) summary(r *report.Report) {
	s := r.Summarize()
	// The count takes in the skipped values, as triage's table and JSON do.
	line := fmt.Sprintf("**%s**: %d matched, %d no match", plural(s.Total+s.Skipped, "indicator", "indicators"), s.Matched, s.NoMatch)
	if s.Unsupported > 0 {
		line += fmt.Sprintf(", %d unsupported", s.Unsupported)
	}
	if s.Failed > 0 {
		line += fmt.Sprintf(", %d failed", s.Failed)
	}
	if s.Skipped > 0 {
		line += fmt.Sprintf("; %d skipped", s.Skipped)
	}
	m.printf("%s. Looked up with tilookup on %s.\n", line, lookupTime(r).Format("2006-01-02 15:04 UTC"))
	if r.Interrupted {
		m.printf("\n> **Incomplete:** the run was interrupted; only the values looked up before it stopped are here.\n")
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// matches is the table: one row per matching resource, the indicator and
// its type on each row so that a row copied alone still says what matched.
func (m *mdWriter) matches(r *report.Report) {
	header := false
	for _, in := range r.Indicators {
		if in.Status() != report.Matched {
			continue
		}
		if !header {
			m.printf("\n## Matches\n\n| Indicator | Type | Resource | Group | Count |\n| --- | --- | --- | --- | ---: |\n")
			header = true
		}
		value := m.indicator(in.Value, typeOf(in), true)
		for _, res := range in.Resp.Results {
			label := res.Name()
			m.printf("| %s | %s | %s | %s | %s |\n", value, mdText(matchType(in), true),
				mdLink(mdText(label, true), res.DetailURL), mdText(res.Group, true), mdText(res.Count.String(), true))
		}
		if more := moreResults(in); more > 0 {
			m.printf("| %s | %s | … %d more resources (-o json has them all) | | |\n", value, mdText(typeOf(in), true), more)
		}
	}
}

// matchType is the Type cell of a match: the type, with the mark of the
// CIDR warning lists that hold the value.
func matchType(in report.Indicator) string {
	t := report.TypeLabel(typeOf(in), in.FromURL)
	if mark := report.WarnMark(in.Warninglists); mark != "" {
		t += " (" + mark + ")"
	}
	return t
}

// list is one section of values with the same status, each with an
// optional reason.
func (m *mdWriter) list(r *report.Report, title string, status report.Status, reason func(report.Indicator) string) {
	header := false
	for _, in := range r.Indicators {
		if in.Status() != status {
			continue
		}
		if !header {
			m.printf("\n## %s\n\n", title)
			header = true
		}
		why := reason(in)
		if mark := report.WarnMark(in.Warninglists); mark != "" && why != "" {
			why += "; " + mark
		} else if mark != "" {
			why = mark
		}
		m.item(m.indicator(in.Value, typeOf(in), false), m.typeText(typeOf(in), in.FromURL), why)
	}
}

func (m *mdWriter) skipped(r *report.Report) {
	if len(r.Skipped) == 0 && r.SkippedOmitted == 0 {
		return
	}
	m.printf("\n## Skipped\n\n")
	for _, s := range r.Skipped {
		m.item(m.indicator(s.Value, s.Type, false), m.typeText(s.Type, s.FromURL), s.Reason)
	}
	if r.SkippedOmitted > 0 {
		m.printf("- … %s more skipped, not listed here\n", mdText(fmt.Sprint(r.SkippedOmitted), false))
	}
}

// typeText is a list item's type, as Markdown: "domain", or for a host
// taken from a URL "domain, host of `hxxps[:]//…`" (the URL defanged like
// the values).
func (m *mdWriter) typeText(typ, fromURL string) string {
	t := mdText(typ, false)
	if fromURL != "" {
		t += ", host of " + m.indicator(fromURL, "url", false)
	}
	return t
}

// item is one line of a list; typ is Markdown already (typeText).
func (m *mdWriter) item(value, typ, reason string) {
	m.printf("- %s", value)
	if typ != "" {
		m.printf(" (%s)", typ)
	}
	if reason != "" {
		m.printf(": %s", mdText(reason, false))
	}
	m.printf("\n")
}
