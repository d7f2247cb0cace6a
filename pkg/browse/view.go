package browse

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// clean is service text made safe for one line of the terminal.
func clean(s string) string { return sanitize.Line(s) }

// View implements tea.ViewModel: exactly one screen, every line cut to
// the width.
func (m *Model) View() string {
	var lines []string
	switch m.mode {
	case helpMode:
		lines = m.helpLines()
	case detailMode:
		lines = m.detailLines()
	default:
		lines = m.listLines()
	}
	bottom := m.bottomLines()
	body := m.height - len(bottom)
	if len(lines) > body {
		lines = lines[:body]
	}
	for len(lines) < body {
		lines = append(lines, "")
	}
	lines = append(lines, bottom...)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	return strings.Join(lines, "\n")
}

// style wraps s in an SGR style when colour is on.
func (m *Model) style(s string, st ansi.Style) string {
	if !m.opts.Color {
		return s
	}
	return st.String() + s + ansi.ResetStyle
}

var statusColors = map[string]ansi.BasicColor{
	"matched": ansi.Red, "new": ansi.Red, "changed": ansi.Yellow,
	"failed": ansi.Yellow, "no_match": ansi.Green, "gone": ansi.Green,
}

func (m *Model) statusText(s string, w int) string {
	text := fmt.Sprintf("%-*s", w, s)
	if c, ok := statusColors[s]; ok {
		return m.style(text, ansi.Style{}.ForegroundColor(c))
	}
	return m.style(text, ansi.Style{}.Faint())
}

func (m *Model) header(s string) string {
	return m.style(s, ansi.Style{}.Bold())
}

// listLines: the title, the column heads, and a screen of rows.
func (m *Model) listLines() []string {
	title := fmt.Sprintf("%s · %d shown", clean(m.doc.Title), len(m.visible))
	if m.nmarked > 0 {
		title += fmt.Sprintf(" · %d marked", m.nmarked)
	}
	valW := m.valueWidth()
	lines := []string{m.header(title), m.header(fmt.Sprintf("    %-11s %-7s %-*s  %s", "STATUS", "TYPE", valW, "VALUE", "RESOURCES"))}
	switch {
	case len(m.doc.Items) == 0:
		return append(lines, "    (no indicators)")
	case len(m.visible) == 0:
		return append(lines, "    (nothing matches the filter)")
	}
	end := min(m.top+m.rows(), len(m.visible))
	for row := m.top; row < end; row++ {
		i := m.visible[row]
		it := &m.doc.Items[i]
		cur, mark := "  ", " "
		if row == m.cursor {
			cur = "> "
		}
		if m.marked[i] {
			mark = "*"
		}
		value := cutMiddle(clean(it.Value), valW)
		line := fmt.Sprintf("%s%s %s %-7s %s  %s", cur, mark, m.statusText(it.Status, 11), clean(it.Type),
			value+strings.Repeat(" ", valW-ansi.StringWidth(value)), m.resourcesText(it))
		if row == m.cursor {
			line = m.style(ansi.Truncate(line, m.width, "…"), ansi.Style{}.Reverse())
		}
		lines = append(lines, line)
	}
	return lines
}

// maxValueWidth caps the VALUE column on a wide screen: a SHA-256 fits
// whole; a SHA-512 or a long URL is cut in its middle, and the room goes
// to the resources matched.
const maxValueWidth = 64

// valueWidth is the VALUE column's: the longest value on screen, within
// maxValueWidth and what leaves the resources some room.
func (m *Model) valueWidth() int {
	longest := len("VALUE")
	end := min(m.top+m.rows(), len(m.visible))
	for row := m.top; row < end; row++ {
		longest = max(longest, ansi.StringWidth(clean(m.doc.Items[m.visible[row]].Value)))
	}
	return max(min(longest, m.width-24-16, maxValueWidth), 12)
}

// cutMiddle fits s in w columns by cutting its middle, as the CLI's
// tables do: both ends of a hash or a URL are what tells it apart.
func cutMiddle(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	tail := (w - 1) / 2
	return ansi.Truncate(s, w-1-tail, "") + "…" + ansi.TruncateLeft(s, sw-tail, "")
}

// resourcesText is an item's resources and counts, or its note.
func (m *Model) resourcesText(it *Item) string {
	if len(it.Resources) == 0 {
		return clean(it.Note)
	}
	parts := make([]string, len(it.Resources))
	for i, r := range it.Resources {
		parts[i] = clean(r.Name())
		if c := r.Count.String(); c != "" {
			parts[i] += " " + c
		}
	}
	return strings.Join(parts, ", ")
}

// detailLines: the item, its matches (the selected one marked), its
// pivot links, then the selected match's preview records, scrolled.
func (m *Model) detailLines() []string {
	it := m.selected()
	if it == nil {
		return nil
	}
	mark := ""
	if m.marked[m.visible[m.cursor]] {
		mark = " *marked*"
	}
	lines := []string{m.header(fmt.Sprintf("%s  %s  %s%s", clean(it.Value), clean(it.Type), it.Status, mark))}
	if it.Note != "" {
		// Whole, wrapped: an error's fix is at its end.
		for _, l := range strings.Split(ansi.Wrap(clean(it.Note), max(m.width-2, 10), ""), "\n") {
			lines = append(lines, "  "+l)
		}
	}
	lines = append(lines, "", m.header(fmt.Sprintf("Matches (%d)", len(it.Resources))))
	if len(it.Resources) == 0 && it.Status == "no_match" {
		lines = append(lines, "  none: no resource of the service holds this value")
	}
	for i, r := range it.Resources {
		cur := "  "
		if i == m.res {
			cur = "> "
		}
		line := fmt.Sprintf("%s%-28s %-16s %6s  %s", cur, clean(r.Name()), clean(r.MatchedColumn), r.Count.String(), clean(r.DetailURL))
		if i == m.res {
			line = m.style(ansi.Truncate(line, m.width, "…"), ansi.Style{}.Reverse())
		}
		lines = append(lines, line)
	}
	if len(it.Resources) > 0 {
		lines = append(lines, "  detail: "+clean(it.Resources[min(m.res, len(it.Resources)-1)].DetailURL))
	}
	if len(it.Links) > 0 {
		lines = append(lines, "", m.header(fmt.Sprintf("Links (%d)", len(it.Links))))
		for _, l := range it.Links {
			lines = append(lines, "  "+clean(l))
		}
	}
	if len(it.Resources) == 0 {
		return lines
	}
	r := it.Resources[min(m.res, len(it.Resources)-1)]
	preview := previewLines(r.Previews())
	m.scroll = min(m.scroll, max(len(preview)-1, 0))
	lines = append(lines, "", m.header(fmt.Sprintf("Preview records of %s (%d lines)", clean(r.Name()), len(preview))))
	return append(lines, preview[m.scroll:]...)
}

// previewLines shows each record as "key: value" lines, keys sorted, a
// blank line between records.
func previewLines(recs []map[string]any) []string {
	var lines []string
	for i, rec := range recs {
		if i > 0 {
			lines = append(lines, "")
		}
		keys := make([]string, 0, len(rec))
		for k := range rec {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			lines = append(lines, fmt.Sprintf("  %s: %s", clean(k), clean(fmt.Sprint(rec[k]))))
		}
	}
	return lines
}

// keys is the help screen's list, in the order a person uses them.
var keys = [][2]string{
	{"↑ ↓  k j", "move (in an opened indicator: its matches)"},
	{"pgup pgdn  g G", "page, first, last (opened: scroll the preview)"},
	{"/", "filter by value, type, status or resource; esc clears"},
	{"enter", "open the indicator: its matches and preview records"},
	{"esc", "back to the list"},
	{"o", "open the match's detail URL in the browser ($BROWSER)"},
	{"y", "copy the value (OSC 52)"},
	{"p", "pivot: look up the indicator's neighbours, add them"},
	{"space", "mark or unmark"},
	{"e", "export the marked (or all) to "}, // + export.FileEndings()
	{"?", "these keys"},
	{"q  ctrl+c", "quit"},
}

func (m *Model) helpLines() []string {
	lines := []string{m.header("Keys"), ""}
	for _, k := range keys {
		if k[0] == "e" {
			k[1] += export.FileEndings()
		}
		lines = append(lines, fmt.Sprintf("  %-16s %s", k[0], k[1]))
	}
	return append(lines, "", "  any key goes back")
}

// bottomLines is the bottom area: the last action's message, whole,
// wrapped to the width (at most a third of the screen, so that the list
// keeps its rows), or else the one line of bottom.
func (m *Model) bottomLines() []string {
	if m.editing != notEditing || m.status == "" {
		return []string{m.bottom()}
	}
	var lines []string
	for _, para := range strings.Split(m.status, "\n") {
		lines = append(lines, strings.Split(ansi.Wrap(clean(para), m.width, ""), "\n")...)
	}
	if most := max(m.height/3, 1); len(lines) > most {
		lines = lines[:most]
		lines[most-1] = ansi.Truncate(lines[most-1], m.width-1, "") + "…"
	}
	return lines
}

// bottom is the input being typed, or the keys that matter here.
func (m *Model) bottom() string {
	switch {
	case m.editing == editFilter:
		return "/" + clean(m.input) + "█"
	case m.editing == editExport:
		return "export to: " + clean(m.input) + "█  (enter writes, esc cancels)"
	case m.editing == confirmOverwrite:
		return "overwrite " + cutMiddle(clean(m.input), max(m.width-32, 8)) + "? it exists. y/N"
	case m.mode == detailMode:
		return m.style("↑↓ match  pgdn/pgup preview  o open  y copy  space mark  esc back  ? keys", ansi.Style{}.Faint())
	case m.filter != "":
		return m.style("filter: "+clean(m.filter)+"  (esc clears)  enter open  space mark  e export  ? keys  q quit", ansi.Style{}.Faint())
	}
	return m.style("↑↓ move  / filter  enter open  space mark  e export  o open URL  ? keys  q quit", ansi.Style{}.Faint())
}
