package browse

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea/v2"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/output"
)

// Options are what the browser needs from its command.
type Options struct {
	// Color allows colour (NO_COLOR, --color never turn it off).
	Color bool
	// Open opens a detail URL in the browser and says what it did. It
	// is only given an http(s) URL (output.WebURL's rule, as --web's).
	Open func(url string) string
	// Export writes items to the file name; the format follows the
	// name. It says what it wrote. An existing file is overwritten only
	// when overwrite is set; otherwise the error is fs.ErrExist.
	Export func(name string, items []Item, overwrite bool) (string, error)
	// Pivot looks value up live with its neighbours, one hop, and
	// returns them as pivot -o json writes them, with what the lookups
	// had to say on the way (a notice for the status line, which would
	// otherwise have gone to stderr, behind the screen); nil: no lookups
	// here.
	Pivot func(value, typ string) (doc []byte, notice string, err error)
}

type mode int

const (
	listMode mode = iota
	detailMode
	helpMode
)

// editing is what the bottom line's input is for.
type editing int

const (
	notEditing editing = iota
	editFilter
	editExport
	confirmOverwrite // input: the export's file name, which exists
)

// defaultExport is the name the export prompt offers.
const defaultExport = "tilookup-marked.md"

// Model is the browser's state. Its zero size is 80x24 until the
// terminal says otherwise.
type Model struct {
	doc  *Document
	opts Options

	width, height int
	mode, back    mode // back: where help returns

	visible []int // indexes of doc.Items that pass the filter
	cursor  int   // in visible
	top     int   // first visible row on screen
	filter  string

	editing editing
	input   string

	marked  []bool
	nmarked int

	res    int // detail: the selected resource
	scroll int // detail: the first line of the preview shown

	status string // the last action's message, on the bottom line
	// Interrupted says the browser was left with Ctrl-C.
	Interrupted bool
}

// New is the browser over doc.
func New(doc *Document, opts Options) *Model {
	m := &Model{doc: doc, opts: opts, width: 80, height: 24, marked: make([]bool, len(doc.Items))}
	m.refilter()
	return m
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// statusMsg is an action's outcome, shown on the bottom line.
type statusMsg string

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.follow()
	case statusMsg:
		m.status = string(msg)
	case pivotMsg:
		m.addPivot(msg)
	case tea.PasteMsg:
		m.paste(string(msg))
	case tea.KeyPressMsg:
		cmd := m.key(msg)
		m.follow() // the status may have grown or shrunk the list
		return m, cmd
	}
	m.follow()
	return m, nil
}

// keyName is how the keys are matched: k.String(), except that a
// printable shifted key is its text ("G", not the "shift+g" a terminal's
// upper-case letter is reported as).
func keyName(k tea.KeyPressMsg) string {
	s := k.String()
	if strings.HasPrefix(s, "shift+") && utf8.RuneCountInString(k.Text) == 1 && k.Text != " " {
		return k.Text
	}
	return s
}

// paste is a bracketed paste: typed into the input being edited, or, in
// the list, the start of a filter. A paste is one line: its line breaks
// and other control characters are left out.
func (m *Model) paste(text string) {
	text = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, text)
	switch {
	case m.editing == editFilter || m.editing == editExport:
		m.input += text
	case m.editing == notEditing && m.mode == listMode:
		m.editing, m.input = editFilter, m.filter+text
	default:
		return
	}
	if m.editing == editFilter {
		m.setFilter(m.input)
	}
}

func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := keyName(k)
	if s == "ctrl+c" {
		m.Interrupted = true
		return tea.Quit
	}
	if m.editing == confirmOverwrite {
		m.confirm(s)
		return nil
	}
	if m.editing != notEditing {
		m.edit(k)
		return nil
	}
	m.status = ""
	if m.mode == helpMode {
		if s == "q" {
			return tea.Quit
		}
		m.mode = m.back
		return nil
	}
	switch s {
	case "q":
		return tea.Quit
	case "?":
		m.back, m.mode = m.mode, helpMode
	case "space":
		m.toggleMark()
	case "y":
		if it := m.selected(); it != nil {
			m.status = "copied " + clean(it.Value)
			return tea.SetClipboard(it.Value)
		}
	case "o":
		return m.open()
	case "e":
		m.editing, m.input = editExport, defaultExport
	case "p":
		return m.pivot()
	default:
		if m.mode == detailMode {
			m.detailKey(s)
		} else {
			m.listKey(s)
		}
	}
	return nil
}

func (m *Model) listKey(s string) {
	switch s {
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "pgup", "ctrl+b":
		m.move(-m.rows())
	case "pgdown", "ctrl+f":
		m.move(m.rows())
	case "home", "g":
		m.move(-len(m.visible))
	case "end", "G":
		m.move(len(m.visible))
	case "/":
		m.editing, m.input = editFilter, m.filter
	case "esc":
		m.setFilter("")
	case "enter":
		if m.selected() != nil {
			m.mode, m.res, m.scroll = detailMode, 0, 0
		}
	}
}

func (m *Model) detailKey(s string) {
	it := m.selected()
	switch s {
	case "esc", "backspace", "left", "h":
		m.mode = listMode
	case "up", "k":
		m.res, m.scroll = max(m.res-1, 0), 0
	case "down", "j":
		m.res, m.scroll = max(min(m.res+1, len(it.Resources)-1), 0), 0
	case "pgdown", "ctrl+f", "J":
		m.scroll++
	case "pgup", "ctrl+b", "K":
		m.scroll = max(m.scroll-1, 0)
	}
}

// edit is a key typed into the bottom line's input.
func (m *Model) edit(k tea.KeyPressMsg) {
	switch k.String() {
	case "enter":
		what := m.editing
		m.editing = notEditing
		if what == editExport {
			m.export(strings.TrimSpace(m.input), false)
		}
		return
	case "esc":
		if m.editing == editFilter {
			m.setFilter("")
		}
		m.editing = notEditing
		return
	case "backspace":
		r := []rune(m.input)
		if len(r) > 0 {
			m.input = string(r[:len(r)-1])
		}
	case "ctrl+u":
		m.input = ""
	default:
		if k.Text == "" {
			return
		}
		m.input += k.Text
	}
	if m.editing == editFilter {
		m.setFilter(m.input) // as typed
	}
}

func (m *Model) setFilter(f string) {
	if f == m.filter {
		return
	}
	m.filter = f
	m.refilter()
}

// refilter lists the items whose value, type, status or resources hold
// the filter, as typed or refanged (the values are the refanged ones
// looked up: cdn-sync[.]example[.]org finds cdn-sync.example.org),
// keeping the selected item under the cursor when it passes.
func (m *Model) refilter() {
	prev := -1
	if m.cursor < len(m.visible) {
		prev = m.visible[m.cursor]
	}
	f := strings.ToLower(m.filter)
	refanged := strings.ToLower(ioc.Refang(m.filter))
	m.visible = m.visible[:0]
	m.cursor = 0
	for i := range m.doc.Items {
		key := m.doc.Items[i].key
		if f == "" || strings.Contains(key, f) || refanged != f && strings.Contains(key, refanged) {
			if i == prev {
				m.cursor = len(m.visible)
			}
			m.visible = append(m.visible, i)
		}
	}
	m.follow()
}

func (m *Model) move(n int) {
	m.cursor = max(min(m.cursor+n, len(m.visible)-1), 0)
	m.follow()
}

// follow scrolls the list so that the cursor is on screen.
func (m *Model) follow() {
	rows := m.rows()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+rows {
		m.top = m.cursor - rows + 1
	}
	m.top = max(min(m.top, len(m.visible)-rows), 0)
}

// rows is how many list rows fit: the screen less the two header lines
// and the bottom area (one line, more for a long message).
func (m *Model) rows() int { return max(m.height-2-len(m.bottomLines()), 1) }

// selected is the item under the cursor, or nil when none passes.
func (m *Model) selected() *Item {
	if m.cursor >= len(m.visible) {
		return nil
	}
	return &m.doc.Items[m.visible[m.cursor]]
}

func (m *Model) toggleMark() {
	if m.cursor >= len(m.visible) {
		return
	}
	i := m.visible[m.cursor]
	m.marked[i] = !m.marked[i]
	if m.marked[i] {
		m.nmarked++
	} else {
		m.nmarked--
	}
	if m.mode == listMode {
		m.move(1)
	}
}

// open opens the detail URL of the selected resource (in the list, the
// item's first).
func (m *Model) open() tea.Cmd {
	it := m.selected()
	if it == nil || len(it.Resources) == 0 {
		m.status = "no detail URL here"
		return nil
	}
	r := it.Resources[0]
	if m.mode == detailMode {
		r = it.Resources[min(m.res, len(it.Resources)-1)]
	}
	if r.DetailURL == "" || m.opts.Open == nil {
		m.status = "no detail URL here"
		return nil
	}
	// Only an http(s) URL goes to the browser launcher, by --web's rule:
	// a service's javascript: or file: link is refused, and said so.
	u, err := output.WebURL(&api.SearchResponse{Query: it.Value, Results: []api.Result{r.Result}}, "")
	if err != nil {
		m.status = err.Error()
		return nil
	}
	m.status = "opening " + u + "..."
	open := m.opts.Open
	return func() tea.Msg { return statusMsg(open(u)) }
}

// export writes the marked items, or all of them when none is marked.
// A file that exists is overwritten only once the user says y.
func (m *Model) export(name string, overwrite bool) {
	if name == "" || m.opts.Export == nil {
		return
	}
	var items []Item
	for i, it := range m.doc.Items {
		if m.marked[i] || m.nmarked == 0 {
			items = append(items, it)
		}
	}
	msg, err := m.opts.Export(name, items, overwrite)
	switch {
	case errors.Is(err, fs.ErrExist) && !overwrite:
		m.editing, m.input = confirmOverwrite, name
	case err != nil:
		m.status = "export: " + err.Error()
	default:
		m.status = msg
	}
}

// confirm is the answer to "overwrite?": y writes, anything else keeps
// the file as it is.
func (m *Model) confirm(key string) {
	name := m.input
	m.editing, m.input = notEditing, ""
	if key == "y" || key == "Y" {
		m.export(name, true)
		return
	}
	m.status = "not written: " + name + " exists"
}

// pivotMsg is a pivot's outcome: the origin and its neighbours.
type pivotMsg struct {
	from   string
	items  []Item
	notice string
	err    error
}

// pivot looks the selected indicator's neighbours up, away from the
// screen's loop: the lookups take seconds, the keys keep working.
func (m *Model) pivot() tea.Cmd {
	it := m.selected()
	if it == nil || m.opts.Pivot == nil {
		m.status = "no lookups here: nothing to pivot from"
		return nil
	}
	m.status = "pivoting from " + clean(it.Value) + "..."
	value, typ, pivot := it.Value, it.Type, m.opts.Pivot
	return func() tea.Msg {
		b, notice, err := pivot(value, typ)
		msg := pivotMsg{from: value, notice: notice, err: err}
		if len(b) > 0 {
			doc, lerr := Load(bytes.NewReader(b), "pivot")
			if lerr != nil && err == nil {
				msg.err = lerr
			}
			if doc != nil {
				msg.items = doc.Items
			}
		}
		return msg
	}
}

// addPivot adds the neighbours not listed yet, after the others, and
// gives the origin its links; the filter applies to them as to the rest.
func (m *Model) addPivot(msg pivotMsg) {
	listed := make(map[string]int, len(m.doc.Items))
	for i, it := range m.doc.Items {
		listed[it.Type+"\x00"+it.Value] = i
	}
	added := 0
	for _, it := range msg.items {
		if i, ok := listed[it.Type+"\x00"+it.Value]; ok {
			if it.Value == msg.from {
				m.doc.Items[i].Links = it.Links
			}
			continue
		}
		listed[it.Type+"\x00"+it.Value] = len(m.doc.Items)
		m.doc.Items = append(m.doc.Items, it)
		m.marked = append(m.marked, false)
		added++
	}
	m.refilter()
	m.status = fmt.Sprintf("pivot from %s: %d new", clean(msg.from), added)
	if msg.err != nil {
		m.status += "; " + clean(msg.err.Error())
	}
	if notice := strings.TrimSpace(msg.notice); notice != "" {
		m.status += "\n" + notice
	}
}
