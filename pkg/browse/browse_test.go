package browse

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea/v2"

	"github.com/tilookup/tilookup/pkg/browse/browsetest"
)

var update = flag.Bool("update", false, "rewrite the golden screens")

func load(t testing.TB, name string) *Document {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := Load(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// rawObjects reads a fixture as generic JSON objects, to count what Load
// should have found without Load's own types.
func rawObjects(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	var out []map[string]any
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				out = append(out, e.(map[string]any))
			}
		case map[string]any:
			out = append(out, v)
		}
	}
	return out
}

func TestLoadEachDocument(t *testing.T) {
	for _, tc := range []struct {
		file string
		// items lists the values the document holds, in order.
		items func(objs []map[string]any) []string
	}{
		{"search.ndjson", func(objs []map[string]any) (v []string) {
			for _, o := range objs {
				v = append(v, o["query"].(string))
			}
			return v
		}},
		{"triage.json", func(objs []map[string]any) (v []string) {
			for _, key := range []string{"indicators", "skipped"} {
				for _, in := range objs[0][key].([]any) {
					v = append(v, in.(map[string]any)["value"].(string))
				}
			}
			return v
		}},
		{"pivot.json", func(objs []map[string]any) (v []string) {
			for _, n := range objs[0]["nodes"].([]any) {
				v = append(v, n.(map[string]any)["value"].(string))
			}
			return v
		}},
		{"watch.json", func(objs []map[string]any) (v []string) {
			for _, o := range objs {
				v = append(v, o["value"].(string))
			}
			return v
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc := load(t, tc.file)
			want := tc.items(rawObjects(t, tc.file))
			var got []string
			for _, it := range doc.Items {
				got = append(got, it.Value)
				if _, ok := it.indicator(); !ok && it.skip == nil {
					t.Errorf("%s: nothing to export", it.Value)
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("values:\n%v\nwant\n%v", got, want)
			}
		})
	}
}

// TestLoadRefusesOtherJSON: what is not a document of the four gets one
// line that says so, whatever is wrong with it and wherever.
func TestLoadRefusesOtherJSON(t *testing.T) {
	for _, in := range []string{`{"name":"x"}`, `[1,2]`, `not json`, ``, `null`, `{"nodes":5}`,
		`{"query":"a"`, `[{"query":"a"}] x`, `{"query":"a"}{"name":"x"}`, `{"indicators":[5]}`} {
		_, err := Load(strings.NewReader(in), "x.json")
		if err == nil {
			t.Errorf("%s: loaded", in)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "x.json is not a JSON document of search, triage, pivot or watch: ") &&
			msg != "x.json: an object that is none of search, triage, pivot or watch's" || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q", in, msg)
		}
	}
}

// TestLoadAnyFieldOrder: Load reads the long arrays as they come, so a
// pivot's edges before its nodes, or a triage's skipped before its
// indicators, give the same items as the order the commands write.
func TestLoadAnyFieldOrder(t *testing.T) {
	for _, file := range []string{"triage.json", "pivot.json"} {
		want := load(t, file).Items
		raw, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			t.Fatal(err)
		}
		keys := slices.Sorted(maps.Keys(fields))
		backward := slices.Clone(keys)
		slices.Reverse(backward)
		for _, order := range [][]string{keys, backward} {
			b := strings.Builder{}
			b.WriteByte('{')
			for i, k := range order {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%q:%s", k, fields[k])
			}
			b.WriteString("}")
			doc, err := Load(strings.NewReader(b.String()), file)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(doc.Items, want) {
				t.Errorf("%s with its fields in the order %v: other items", file, order)
			}
		}
	}
}

// A read error is said as one, not as a document cut short.
func TestLoadReadError(t *testing.T) {
	broken := io.MultiReader(strings.NewReader(`{"indicators":[`), iotest.ErrReader(errors.New("disk on fire")))
	_, err := Load(broken, "x.json")
	if err == nil || !strings.Contains(err.Error(), "disk on fire") || strings.Contains(err.Error(), "not a JSON document") {
		t.Errorf("error %v", err)
	}
}

// press sends keys to m as a person types them: a word is one key
// (enter, esc, space, up...), a single character is itself.
func press(m *Model, keys ...string) {
	named := map[string]rune{"enter": tea.KeyEnter, "esc": tea.KeyEscape, "space": tea.KeySpace,
		"up": tea.KeyUp, "down": tea.KeyDown, "backspace": tea.KeyBackspace, "pgdown": tea.KeyPgDown}
	for _, k := range keys {
		var msg tea.KeyPressMsg
		if code, ok := named[k]; ok {
			msg = tea.KeyPressMsg{Code: code}
			if code == tea.KeySpace {
				msg.Text = " "
			}
		} else {
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
			if unicode.IsUpper(r) {
				// As a terminal's bytes are read: the lower-case key
				// with shift (its String is "shift+g").
				msg = tea.KeyPressMsg{Code: unicode.ToLower(r), ShiftedCode: r, Mod: tea.ModShift, Text: k}
			}
		}
		m.Update(msg)
	}
}

func sized(doc *Document, w, h int, opts Options) *Model {
	m := New(doc, opts)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// TestScreens compares whole screens with testdata/screens at 80x24 and
// 200x50: the list, an opened match, a filter, the help.
func TestScreens(t *testing.T) {
	doc := load(t, "triage.json")
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for _, tc := range []struct {
			name string
			keys []string
		}{
			{"list", nil},
			{"open", []string{"enter", "down"}},
			{"filter", []string{"/", "d", "o", "m", "a", "i", "n"}},
			{"help", []string{"?"}},
		} {
			name := fmt.Sprintf("%s_%dx%d", tc.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				m := sized(doc, size[0], size[1], Options{})
				press(m, tc.keys...)
				screen := m.View()
				checkFits(t, screen, size[0], size[1])
				golden(t, name, screen)
			})
		}
	}
}

func checkFits(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			t.Errorf("line %d is %d columns: %q", i, n, l)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "screens", name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("screen %s:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestFilterKeepsWhatHoldsIt(t *testing.T) {
	doc := load(t, "triage.json")
	m := sized(doc, 80, 24, Options{})
	press(m, "/", "i", "p", "v")
	for _, i := range m.visible {
		if !strings.Contains(doc.Items[i].key, "ipv") {
			t.Errorf("%s passes filter ipv", doc.Items[i].Value)
		}
	}
	want := 0
	for _, it := range doc.Items {
		if it.Type == "ipv4" {
			want++
		}
	}
	if len(m.visible) != want {
		t.Errorf("%d shown, want the %d ipv4", len(m.visible), want)
	}
	press(m, "esc")
	if len(m.visible) != len(doc.Items) {
		t.Errorf("esc left %d of %d shown", len(m.visible), len(doc.Items))
	}
}

// TestResizeFollows: a smaller terminal keeps the cursor's row on screen.
func TestResizeFollows(t *testing.T) {
	doc := load(t, "pivot.json")
	m := sized(doc, 200, 50, Options{})
	press(m, "G")
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 8})
	screen := m.View()
	checkFits(t, screen, 40, 8)
	if !strings.Contains(screen, "> ") {
		t.Errorf("the cursor's row is off screen:\n%s", screen)
	}
}

func TestMarkAndExportMarkdown(t *testing.T) {
	doc := load(t, "triage.json")
	dir := t.TempDir()
	out := filepath.Join(dir, "ticket.md")
	m := sized(doc, 80, 24, Options{Export: func(name string, items []Item, overwrite bool) (string, error) {
		return Export(name, doc.Title, items, overwrite)
	}})
	press(m, "space", "down", "space") // the first and third
	press(m, "e")
	for range defaultExport {
		press(m, "backspace")
	}
	for _, r := range out {
		press(m, string(r))
	}
	press(m, "enter")
	if !strings.Contains(m.status, "wrote 2 indicators") {
		t.Fatalf("status %q", m.status)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	marked := []Item{doc.Items[m.visible[0]], doc.Items[m.visible[2]]}
	for _, it := range marked {
		if !strings.Contains(md, strings.ReplaceAll(it.Value, ".", "[.]")) {
			t.Errorf("the export lacks %s (defanged):\n%s", it.Value, md)
		}
	}
	if strings.Contains(md, strings.ReplaceAll(doc.Items[m.visible[1]].Value, ".", "[.]")) {
		t.Errorf("the export has the unmarked %s", doc.Items[m.visible[1]].Value)
	}
}

func TestExportNeedsAKnownExtension(t *testing.T) {
	if _, err := Export(filepath.Join(t.TempDir(), "x.txt"), "t", nil, false); err == nil {
		t.Error("wrote x.txt")
	}
}

// TestServiceTextIsSanitized: a label's escape sequences and bidi
// controls never reach the screen, and no colour without Color.
func TestServiceTextIsSanitized(t *testing.T) {
	doc := load(t, "watch.json")
	m := sized(doc, 200, 50, Options{})
	list := m.View()
	press(m, "enter")
	for name, screen := range map[string]string{"list": list, "open": m.View()} {
		if strings.ContainsAny(screen, "\x1b\u202e") {
			t.Errorf("%s: raw escape or bidi control on screen:\n%q", name, screen)
		}
	}
	colored := sized(doc, 80, 24, Options{Color: true}).View()
	if !strings.Contains(colored, "\x1b[") {
		t.Error("no SGR with Color on")
	}
}

func TestKeysOpenCopyQuit(t *testing.T) {
	doc := load(t, "triage.json")
	var opened string
	m := sized(doc, 80, 24, Options{Open: func(u string) string { opened = u; return "opened" }})
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
	if cmd == nil {
		t.Fatal("o gave no command")
	}
	cmd()
	if want := doc.Items[0].Resources[0].DetailURL; opened != want {
		t.Errorf("opened %q, want %q", opened, want)
	}
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'y', Text: "y"}); cmd == nil || !strings.Contains(m.status, doc.Items[0].Value) {
		t.Errorf("y: status %q", m.status)
	}
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"}); cmd == nil {
		t.Error("q does not quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not quit")
	}
	m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if !m.Interrupted {
		t.Error("ctrl+c is not an interruption")
	}
}

// BenchmarkOpen50k: a triage of 50,000 indicators is read and its first
// screen drawn.
func BenchmarkOpen50k(b *testing.B) {
	var sb strings.Builder
	if err := browsetest.Triage(&sb, 50000); err != nil {
		b.Fatal(err)
	}
	doc := sb.String()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		d, err := Load(strings.NewReader(doc), "bench.json")
		if err != nil {
			b.Fatal(err)
		}
		_ = sized(d, 200, 50, Options{}).View()
	}
}

// BenchmarkKey10k: a key's effect drawn, with 10,000 rows.
func BenchmarkKey10k(b *testing.B) {
	items := make([]Item, 10000)
	for i := range items {
		items[i] = newItem(Item{Value: fmt.Sprintf("198.51.%d.%d", i/256, i%256), Type: "ipv4", Status: "no_match"})
	}
	m := sized(&Document{Title: "bench", Items: items}, 200, 50, Options{})
	for b.Loop() {
		press(m, "down")
		_ = m.View()
	}
}

// TestPreviewNumbersExact: a preview's id beyond 2^53 shows as written.
func TestPreviewNumbersExact(t *testing.T) {
	doc := load(t, "search.ndjson")
	m := sized(doc, 200, 50, Options{})
	press(m, "enter")
	for range doc.Items[0].Resources {
		if strings.Contains(m.View(), "sighting_id: 9007199254740993") {
			return
		}
		press(m, "down")
	}
	t.Error("no match shows sighting_id 9007199254740993 exactly")
}

// p looks the selected indicator's neighbours up (here: the pivot
// fixture's walk) and adds those not listed yet, once each, after the
// others; the origin gets its links.
func TestPivotAddsTheNewNeighbours(t *testing.T) {
	doc := load(t, "triage.json")
	walk, err := os.ReadFile(filepath.Join("testdata", "pivot.json"))
	if err != nil {
		t.Fatal(err)
	}
	graph := load(t, "pivot.json")
	listed := map[string]bool{}
	for _, it := range doc.Items {
		listed[it.Type+" "+it.Value] = true
	}
	var want []string
	var originLinks []string
	for _, it := range graph.Items {
		if !listed[it.Type+" "+it.Value] {
			want = append(want, it.Value)
		}
		if it.Value == doc.Items[0].Value {
			originLinks = it.Links
		}
	}
	before := len(doc.Items)
	var asked string
	m := sized(doc, 80, 24, Options{Pivot: func(value, typ string) ([]byte, string, error) { asked = value; return walk, "", nil }})
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'p', Text: "p"})
	if cmd == nil {
		t.Fatal("p gave no command")
	}
	m.Update(cmd())
	m.Update(cmd()) // twice: nothing is added again
	if asked != doc.Items[0].Value {
		t.Errorf("pivoted from %q, want %q", asked, doc.Items[0].Value)
	}
	var got []string
	for _, it := range m.doc.Items[before:] {
		got = append(got, it.Value)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) == 0 {
		t.Errorf("added %q, want %q", got, want)
	}
	if len(m.visible) != len(m.doc.Items) || len(m.marked) != len(m.doc.Items) {
		t.Errorf("%d shown, %d markable, of %d", len(m.visible), len(m.marked), len(m.doc.Items))
	}
	if strings.Join(m.doc.Items[0].Links, "\n") != strings.Join(originLinks, "\n") || len(originLinks) == 0 {
		t.Errorf("origin links %q, want %q", m.doc.Items[0].Links, originLinks)
	}
	if !strings.Contains(m.status, "0 new") {
		t.Errorf("second pivot: status %q", m.status)
	}
}

// Without lookups (no Pivot), p says so and does nothing.
func TestPivotWithoutLookups(t *testing.T) {
	doc := load(t, "triage.json")
	m := sized(doc, 80, 24, Options{})
	if _, cmd := m.Update(tea.KeyPressMsg{Code: 'p', Text: "p"}); cmd != nil || !strings.Contains(m.status, "no lookups") {
		t.Errorf("status %q", m.status)
	}
}

// BenchmarkKeyLatency10k reports the 99th percentile of a key's effect
// drawn (Update and View) over 10,000 rows: moves, page jumps and a
// filter typed and cleared, as a person browses. The target is
// 16 ms.
func BenchmarkKeyLatency10k(b *testing.B) {
	items := make([]Item, 10000)
	for i := range items {
		items[i] = newItem(Item{Value: fmt.Sprintf("198.51.%d.%d", i/256, i%256), Type: "ipv4", Status: "no_match"})
	}
	m := sized(&Document{Title: "bench", Items: items}, 200, 50, Options{})
	keys := []string{"down", "down", "pgdown", "up", "/", "1", "9", "8", "enter", "esc", "end", "home"}
	var took []time.Duration
	for b.Loop() {
		for _, k := range keys {
			start := time.Now()
			press(m, k)
			_ = m.View()
			took = append(took, time.Since(start))
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkPeakHeap100k reports the heap a document of 100,000 pivot
// nodes holds once open and drawn (the bound: under 100 MB).
func BenchmarkPeakHeap100k(b *testing.B) {
	var sb strings.Builder
	if err := browsetest.Pivot(&sb, 100000); err != nil {
		b.Fatal(err)
	}
	doc := sb.String()
	var most uint64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		d, err := Load(strings.NewReader(doc), "pivot.json")
		if err != nil {
			b.Fatal(err)
		}
		m := sized(d, 200, 50, Options{})
		_ = m.View()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(m)
		most = max(most, after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))
	}
	b.ReportMetric(float64(most)/(1<<20), "heap-MB")
}

// An answer keeps its own query, detected type and unsupported reason
// for the exporters, whether they are the item's value and type or not.
func TestAnswerHeadKept(t *testing.T) {
	for _, a := range []struct{ query, detected, unsupported string }{
		{"example.com", "domain", ""},
		{"http://example.com/", "url", ""},
		{"example.com", "domain", "not searched by this service"},
	} {
		in := fmt.Sprintf(`{"indicators":[{"value":"example.com","type":"domain","result":{"query":%q,"detected_type":%q,"unsupported_reason":%q,"results":[]}}]}`,
			a.query, a.detected, a.unsupported)
		doc, err := Load(strings.NewReader(in), "x.json")
		if err != nil {
			t.Fatal(err)
		}
		ind, ok := doc.Items[0].indicator()
		if !ok || ind.Resp == nil {
			t.Fatalf("%+v: no answer", a)
		}
		got := struct{ query, detected, unsupported string }{ind.Resp.Query, ind.Resp.DetectedType, ind.Resp.UnsupportedReason}
		if got != a || ind.Value != "example.com" || ind.Type != "domain" {
			t.Errorf("answer %+v, indicator %s %s: want %+v", got, ind.Value, ind.Type, a)
		}
	}
}
