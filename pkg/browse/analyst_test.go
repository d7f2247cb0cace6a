package browse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea/v2"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/pivot"
)

// loadString reads a document given inline.
func loadString(t *testing.T, doc string) *Document {
	t.Helper()
	d, err := Load(strings.NewReader(doc), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// screenText is the screen with its line breaks taken out, to find a
// message that was wrapped.
func screenText(m *Model) string {
	return strings.Join(strings.Fields(m.View()), " ")
}

// o hands the browser launcher only an http(s) URL, by --web's rule; any
// other scheme the service sends is refused on the status line.
func TestOpenOnlyHTTP(t *testing.T) {
	for _, tc := range []struct {
		url  string
		open bool
	}{
		{"javascript:alert(3)", false},
		{"file:///etc/passwd", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"https://ti.example/ip?q=192.0.2.55", true},
		{"http://127.0.0.1:8080/ti/x", true},
	} {
		doc := loadString(t, `{"nodes":[{"id":"n","value":"evil.example.com","type":"domain","depth":0,"status":"matched",`+
			`"resources":[{"resource":"passive_dns","label":"Passive DNS","count":2,"detail_url":"`+tc.url+`"}]}],"edges":[]}`)
		var opened []string
		m := sized(doc, 80, 24, Options{Open: func(u string) string { opened = append(opened, u); return "opened " + u }})
		press(m, "enter")
		_, cmd := m.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
		if cmd != nil {
			m.Update(cmd())
		}
		if got := len(opened) == 1; got != tc.open {
			t.Errorf("%s: opened %q", tc.url, opened)
		}
		if !tc.open && (!strings.Contains(m.status, "not an http(s) address") || strings.Contains(m.status, "\n")) {
			t.Errorf("%s: status %q, want one line that refuses it", tc.url, m.status)
		}
	}
}

// A browser command that fails is reported as a failure, never "opened".
func TestOpenReportsAFailingBrowser(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	for browser, want := range map[string]string{"false": "cannot open https://ti.example/x: false: exit status 1", "true": "opened https://ti.example/x"} {
		t.Setenv("BROWSER", browser)
		if got := OptionsFor(ios, "t").Open("https://ti.example/x"); got != want {
			t.Errorf("BROWSER=%s: %q, want %q", browser, got, want)
		}
	}
}

// G and g go to the last and the first row as a terminal sends them (G is
// shift+g).
func TestGoToLastAndFirst(t *testing.T) {
	doc := load(t, "pivot.json")
	m := sized(doc, 80, 8, Options{})
	press(m, "G")
	if m.cursor != len(m.visible)-1 {
		t.Errorf("G: cursor %d, want %d", m.cursor, len(m.visible)-1)
	}
	press(m, "g")
	if m.cursor != 0 {
		t.Errorf("g: cursor %d", m.cursor)
	}
}

// The filter takes a bracketed paste, and finds a value by its defanged
// form too.
func TestFilterPasteAndDefanged(t *testing.T) {
	doc := load(t, "triage.json")
	want := doc.Items[0].Value // a hash: defanged as itself; take a dotted one
	for _, it := range doc.Items {
		if strings.Count(it.Value, ".") >= 2 && !strings.Contains(it.Value, "/") {
			want = it.Value
			break
		}
	}
	defanged := strings.ReplaceAll(want, ".", "[.]")
	for name, enter := range map[string]func(m *Model){
		"typed": func(m *Model) {
			press(m, "/")
			for _, r := range defanged {
				press(m, string(r))
			}
		},
		"pasted after /": func(m *Model) { press(m, "/"); m.Update(tea.PasteMsg(defanged + "\n")) },
		"pasted":         func(m *Model) { m.Update(tea.PasteMsg(defanged)) },
	} {
		m := sized(doc, 80, 24, Options{})
		enter(m)
		if len(m.visible) != 1 || doc.Items[m.visible[0]].Value != want {
			t.Errorf("%s %q: %d shown, want %s", name, defanged, len(m.visible), want)
		}
	}
}

// e never overwrites a file silently: it asks, n keeps the file, y
// writes it.
func TestExportAsksBeforeOverwriting(t *testing.T) {
	doc := load(t, "triage.json")
	name := filepath.Join(t.TempDir(), "ticket.md")
	if err := os.WriteFile(name, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := sized(doc, 80, 24, Options{Export: func(n string, items []Item, overwrite bool) (string, error) {
		return Export(n, doc.Title, items, overwrite)
	}})
	export := func(answer string) {
		press(m, "e")
		m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
		m.Update(tea.PasteMsg(name))
		press(m, "enter")
		if !strings.Contains(m.View(), "? it exists. y/N") {
			t.Fatalf("no question:\n%s", m.View())
		}
		press(m, answer)
	}
	export("n")
	if b, _ := os.ReadFile(name); string(b) != "mine" || !strings.Contains(m.status, "not written") {
		t.Errorf("n: file %q, status %q", b, m.status)
	}
	export("y")
	if b, _ := os.ReadFile(name); string(b) == "mine" || !strings.Contains(m.status, "wrote") {
		t.Errorf("y: file %q, status %q", b, m.status)
	}
}

func TestEmptyDocumentSaysSo(t *testing.T) {
	m := sized(loadString(t, `[]`), 80, 24, Options{})
	if s := m.View(); !strings.Contains(s, "(no indicators)") || strings.Contains(s, "filter") && strings.Contains(s, "nothing matches") {
		t.Errorf("screen:\n%s", s)
	}
}

// At 200 columns a SHA-512 does not take the row: the value is cut in its
// middle and the resources are shown whole.
func TestWideValueLeavesRoomForResources(t *testing.T) {
	sha512 := strings.Repeat("cc805d5fab1fd71a", 8)
	var res []string
	for _, r := range []string{"malware_samples", "sandbox_reports", "yara_hits", "hash_reputation"} {
		res = append(res, `{"resource":"`+r+`","label":"`+r+` label","count":3,"detail_url":"https://ti.example/`+r+`"}`)
	}
	doc := loadString(t, `{"nodes":[{"id":"n","value":"`+sha512+`","type":"sha512","depth":0,"status":"matched","resources":[`+strings.Join(res, ",")+`]}],"edges":[]}`)
	m := sized(doc, 200, 50, Options{})
	screen := m.View()
	checkFits(t, screen, 200, 50)
	row := strings.Split(screen, "\n")[2]
	if !strings.Contains(row, sha512[:20]) || !strings.Contains(row, sha512[len(sha512)-20:]) || strings.Contains(row, sha512) {
		t.Errorf("the value is not cut in its middle: %q", row)
	}
	if !strings.Contains(row, "hash_reputation label 3") {
		t.Errorf("the resources are cut: %q", row)
	}
}

// A long message (a failed pivot's fix is at its end) is shown whole,
// wrapped, and the list keeps the cursor's row above it.
func TestLongStatusShownWhole(t *testing.T) {
	doc := load(t, "triage.json")
	msg := "no base URL is configured; set one with tilookup config set base_url https://ti.example.com, or try the demo data with --sandbox"
	m := sized(doc, 80, 24, Options{Pivot: func(string, string) ([]byte, string, error) {
		return nil, "Using the built-in sandbox: demo data, not real intelligence.", errors.New(msg)
	}})
	press(m, "G")
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'p', Text: "p"})
	m.Update(cmd())
	screen := m.View()
	checkFits(t, screen, 80, 24)
	if text := screenText(m); !strings.Contains(text, msg) || !strings.Contains(text, "not real intelligence.") {
		t.Errorf("the message is not whole:\n%s", screen)
	}
	if !strings.Contains(screen, "> ") {
		t.Errorf("the cursor's row is under the message:\n%s", screen)
	}
}

// An opened row shows its whole error, wrapped.
func TestOpenedRowShowsWholeError(t *testing.T) {
	note := "search: 401 Unauthorized: the token is not valid for this service, please log in again; the token was not accepted; run `tilookup auth login` or set TILOOKUP_TOKEN"
	doc := loadString(t, `{"indicators":[{"value":"198.51.100.7","type":"ipv4","status":"failed","error":{"status":401,"kind":"auth","message":"`+strings.ReplaceAll(note, "`", "\\u0060")+`"}}],"skipped":[]}`)
	m := sized(doc, 80, 24, Options{})
	press(m, "enter")
	checkFits(t, m.View(), 80, 24)
	if !strings.Contains(screenText(m), note) {
		t.Errorf("the error is cut:\n%s", m.View())
	}
}

// A pivot whose lookup failed (a refused token) is read as pivot -o json
// writes it, its error an object: the node is a failed row with the
// whole message.
func TestLoadPivotFailedNode(t *testing.T) {
	const msg = "search: 401 Unauthorized; run `tilookup auth login` or set TILOOKUP_TOKEN"
	g := &pivot.Graph{Nodes: []*pivot.Node{{ID: "n1", Value: "198.51.100.7", Type: ioc.Type("ipv4"), Status: pivot.Error,
		Error: &pivot.ErrorInfo{Kind: failure.Auth, Message: msg}, Resources: []pivot.Resource{}}}}
	var b strings.Builder
	if err := pivot.JSON(&b, g, pivot.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := loadString(t, b.String())
	if len(doc.Items) != 1 || doc.Items[0].Status != "failed" || doc.Items[0].Note != msg {
		t.Errorf("items %+v", doc.Items)
	}
}

// An opened value no resource holds says so under its empty Matches,
// rather than leaving the pane blank.
func TestOpenedNoMatchSaysSo(t *testing.T) {
	doc := loadString(t, `{"indicators":[{"value":"198.51.100.7","type":"ipv4","status":"no_match","result":{"query":"198.51.100.7","detected_type":"ipv4","results":[]}}],"skipped":[]}`)
	m := sized(doc, 80, 24, Options{})
	press(m, "enter")
	checkFits(t, m.View(), 80, 24)
	if !strings.Contains(m.View(), "none: no resource of the service holds this value") {
		t.Errorf("an opened no match is blank:\n%s", m.View())
	}
}
