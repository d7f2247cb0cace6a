package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

func TestShorten(t *testing.T) {
	for _, tt := range []struct {
		in   string
		w    int
		kind cellKind
		want string
	}{
		{"44d88612fea8a8f36de82e1278abb02f", 13, kindToken, "44d886…abb02f"},
		{"44d88612fea8a8f36de82e1278abb02f", 32, kindToken, "44d88612fea8a8f36de82e1278abb02f"},
		{"Exploitation observed", 10, kindText, "Exploitat…"},
		{"Exploitation observed", 10, kindAuto, "Exploitat…"},
		{"no-spaces-here", 7, kindAuto, "no-…ere"},
		{"日本語テキスト", 7, kindText, "日本語…"},
		{"abc", 1, kindText, "…"},
		{"abc", 0, kindText, ""},
		// A URL keeps its scheme and host; the path is cut.
		{"https://billing-portal.example.net/secure/login/account/verify", 50, kindToken, "https://billing-portal.example.net/secure/…/verify"},
		{"hxxps[://]billing-portal[.]example[.]net/secure/login/account/verify", 50, kindToken, "hxxps[://]billing-portal[.]example[.]net/secu…rify"},
		{"https://billing-portal.example.net/secure/login/account/verify", 50, kindAuto, "https://billing-portal.example.net/secure/…/verify"},
		{"https://billing-portal.example.net/x", 36, kindToken, "https://billing-portal.example.net/x"},
		{"https://billing-portal.example.net/abcdef", 37, kindToken, "https://billing-portal.example.net/…f"},
		// A host too long to keep whole is cut as any token.
		{"https://billing-portal.example.net/secure", 20, kindToken, "https://bi…et/secure"},
	} {
		got := shorten(tt.in, tt.w, tt.kind)
		if got != tt.want || textWidth(got) > max(tt.w, 0) {
			t.Errorf("shorten(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
	}
}

func TestFitWidths(t *testing.T) {
	cols := []column{{title: "A", min: 4}, {title: "B", min: 4, drop: 1}, {title: "URL", min: 6, squeeze: true}}
	natural := []int{10, 10, 40}
	for _, tt := range []struct {
		width int
		want  []int
		ok    bool
	}{
		{0, []int{10, 10, 40}, true},
		{64, []int{10, 10, 40}, true},
		{40, []int{10, 10, 16}, true}, // the link gives way first
		{24, []int{7, 7, 6}, true},
		{14, []int{6, 0, 6}, true}, // B is left out
		{8, nil, false},
	} {
		got, ok := fitWidths(cols, append([]int(nil), natural...), tt.width)
		if ok != tt.ok || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("width %d: got %v %v, want %v %v", tt.width, got, ok, tt.want, tt.ok)
		}
	}
}

// TestPreviewOrderAndNumbers: preview keys keep the server's order (never
// sorted) and numbers print as sent, also past 2^53 and 2^64.
func TestPreviewOrderAndNumbers(t *testing.T) {
	raw := `{"query":"q","results":[{"label":"L","count":2,"preview":[` +
		`{"verdict":"malicious","sighting_id":9007199254740993,"big":12345678901234567891,"ratio":1.10,"zeta":"z"},` +
		`{"alpha":"a","verdict":"benign"}]}]}`
	r := Record{Query: "q", Resp: decode(t, []byte(raw))}
	for _, width := range []int{0, 80, 200} {
		out := string(printSearch(t, Options{Preview: true, Width: width}, false, r))
		for _, want := range []string{"9007199254740993", "12345678901234567891", "1.10"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: %s is not printed exactly:\n%s", width, want, out)
			}
		}
		order := []string{"verdict", "sighting_id", "big", "ratio", "zeta", "alpha"}
		last := -1
		for _, k := range order {
			i := strings.Index(out, k)
			if i < last {
				t.Errorf("width %d: %s out of the server's order:\n%s", width, k, out)
			}
			last = i
		}
	}
}

// TestRecordView: a record too wide for the terminal prints as key: value
// lines, none wider than the terminal, values whole when they fit.
func TestRecordView(t *testing.T) {
	r := rec(t, "44d88612fea8a8f36de82e1278abb02f", "eicar")
	out := printSearch(t, Options{Preview: true, Width: 80}, false, r)
	assertFits(t, out, 80)
	for _, want := range []string{"-[ RECORD 1 ]", "\nverdict:     test-file\n", "\nsha256:      275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f\n", "\nsighting_id:  9007199254740993\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("record view lacks %q:\n%s", want, out)
		}
	}
	// Wide enough, the same records are a table.
	wide := printSearch(t, Options{Preview: true, Width: 400}, false, r)
	if bytes.Contains(wide, []byte("RECORD")) {
		t.Errorf("record view at 400 columns:\n%s", wide)
	}
}

// TestDefangIndicatorsOnly: --defang changes the query, matched values and
// preview values, never the detail_url.
func TestDefangIndicatorsOnly(t *testing.T) {
	r := rec(t, "44d88612fea8a8f36de82e1278abb02f", "eicar")
	r.Resp.Results[0].MatchedValue = "evil.example.com"
	for _, opts := range []Options{{Defang: defang, Preview: true}, {Defang: defang, Width: 200}, {Format: CSV, Defang: defang}} {
		out := string(printSearch(t, opts, false, r))
		if !strings.Contains(out, "https://ti.example/resources/malware_samples?q=44d88612fea8a8f36de82e1278abb02f") {
			t.Errorf("%s: detail_url defanged or cut:\n%s", opts.Format, out)
		}
		if !strings.Contains(out, "evil[.]example[.]com") {
			t.Errorf("%s: matched value not defanged:\n%s", opts.Format, out)
		}
	}
	out := string(printSearch(t, Options{Defang: defang, Preview: true}, false, rec(t, "x", "basic")))
	if !strings.Contains(out, "192[.]0[.]2[.]1") || strings.Contains(out, "hxxps://ti") {
		t.Errorf("preview values not defanged, or a link was:\n%s", out)
	}
}

// TestHyperlinks: with Hyperlinks, a detail_url cell links to the whole URL
// whatever part shows; without, no OSC 8 at all.
func TestHyperlinks(t *testing.T) {
	r := rec(t, "44d88612fea8a8f36de82e1278abb02f", "eicar")
	full := "https://ti.example/resources/malware_samples?q=44d88612fea8a8f36de82e1278abb02f"
	out := string(printSearch(t, Options{Width: 80, Hyperlinks: true}, false, r))
	if !strings.Contains(out, "\x1b]8;;"+full+"\x1b\\https://ti") {
		t.Errorf("no hyperlink to the full URL:\n%q", out)
	}
	visible := strings.NewReplacer("\x1b]8;;"+full+"\x1b\\", "", "\x1b]8;;\x1b\\", "").Replace(out)
	for _, line := range strings.Split(visible, "\n") {
		if twwidth.Width(line) > 80 {
			t.Errorf("visible line wider than 80: %q", line)
		}
	}
	for _, opts := range []Options{{Width: 80}, {}} {
		if out := printSearch(t, opts, false, r); bytes.Contains(out, []byte("\x1b]8")) {
			t.Errorf("hyperlink without Hyperlinks: %q", out)
		}
	}
	evil := &api.SearchResponse{Results: []api.Result{{Label: "x", DetailURL: "javascript:alert(1)"}}}
	if out := printSearch(t, Options{Hyperlinks: true}, false, Record{Query: "q", Resp: evil}); bytes.Contains(out, []byte("\x1b]8")) {
		t.Errorf("non-http link made clickable: %q", out)
	}
}

// TestNarrowSingleTable: at 80 columns LABEL, GROUP, MATCHED COLUMN and
// COUNT stay, and MATCHED VALUE shows only when it differs from the query.
func TestNarrowSingleTable(t *testing.T) {
	r := rec(t, "44d88612fea8a8f36de82e1278abb02f", "eicar")
	out := string(printSearch(t, Options{Width: 80}, false, r))
	// Without links, a URL that would be cut is left out, with a pointer.
	if !strings.Contains(out, "LABEL                      GROUP     MATCHED COLUMN  COUNT\n") || strings.Contains(out, "MATCHED VALUE") ||
		!strings.Contains(out, "Detail pages do not fit this width") {
		t.Errorf("header:\n%s", out)
	}
	// With links, the visible text may be short: the column stays.
	linked := string(printSearch(t, Options{Width: 80, Hyperlinks: true}, false, r))
	if !strings.Contains(linked, "COUNT  DETAIL URL") || strings.Contains(linked, "do not fit") {
		t.Errorf("with links:\n%s", linked)
	}
	if wide := string(printSearch(t, Options{Width: 200}, false, r)); !strings.Contains(wide, "https://ti.example/resources/malware_samples?q=44d88612fea8a8f36de82e1278abb02f") {
		t.Errorf("at 200 columns the URL is not whole:\n%s", wide)
	}
	r.Resp.Results[1].MatchedValue = "44D88612FEA8A8F36DE82E1278ABB02F"
	out = string(printSearch(t, Options{Width: 80}, false, r))
	if !strings.Contains(out, "MATCHED VALUE") {
		t.Errorf("a differing matched value is hidden:\n%s", out)
	}
	assertFits(t, []byte(out), 80)
	for _, w := range []int{20, 30, 40} {
		assertFits(t, printSearch(t, Options{Width: w, Preview: true}, false, r), w)
		assertFits(t, printSearch(t, Options{Width: w}, true, multiRecs(t)...), w)
	}
}

func TestDecodeOrderedLimits(t *testing.T) {
	v, err := decodeOrdered([]byte(`{"b":1,"a":[1,2,3,4],"b":2,"c":"long string","d":{"x":1}}`), decodeLimits{elems: 2, fields: 3, runes: 4, nodes: 100})
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*object)
	if fmt.Sprint(o.keys) != "[b a c]" || o.more != 1 {
		t.Errorf("keys %v more %d", o.keys, o.more)
	}
	if b, _ := o.get("b"); b != json.Number("2") {
		t.Errorf("repeated key: %v, want the last value", b)
	}
	if a, _ := o.get("a"); len(a.(*array).elems) != 2 || a.(*array).more != 2 {
		t.Errorf("array %v", a)
	}
	if c, _ := o.get("c"); c != "lon…" {
		t.Errorf("string %q", c)
	}
	if _, err := decodeOrdered([]byte(`{"a":1} x`), tableLimits); err == nil {
		t.Error("trailing data accepted")
	}
}

// FuzzTableRender: any JSON answer renders as a table at any width without
// a panic, with nothing a terminal would interpret, and no line wider than
// the width.
func FuzzTableRender(f *testing.F) {
	f.Add([]byte(`{"query":"q","results":[{"label":"L","count":1,"preview":[{"a":1,"b":{"c":[1,2]}}],"detail_url":"https://x.test/a"}]}`), 40)
	f.Add([]byte(`{"results":[{},{"preview":[{"k1":1},{"k2":"\u001b]8;;x\u0007"}]}]}`), 80)
	f.Add([]byte(`{"results":[{"count":1e999,"label":"日本語テキスト","preview":[["x"],null,3]}]}`), 12)
	f.Fuzz(func(t *testing.T, body []byte, width int) {
		width = width % 300
		if width < 0 {
			width = -width
		}
		if !json.Valid(body) {
			return
		}
		var resp api.SearchResponse
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if dec.Decode(&resp) != nil {
			return
		}
		resp.Raw = body
		r := Record{Query: "q", Resp: &resp}
		for _, multi := range []bool{false, true} {
			out := printSearch(t, Options{Preview: true, Width: width}, multi, r)
			assertTerminalSafe(t, out)
			if width >= 20 {
				assertFits(t, out, width)
			}
		}
		var b bytes.Buffer
		if err := PrintEvents(Options{Out: &b, Width: width}, body); err != nil {
			t.Fatalf("events: %v", err)
		}
		assertTerminalSafe(t, b.Bytes())
		if width >= 20 {
			assertFits(t, b.Bytes(), width)
		}
	})
}

// TestWriteGrid pins what writeGrid hands tablewriter and takes back: a
// column left out (width 0) leaves no gap, cells are cut by tilookup, only
// the last column's padding is trimmed (a cell's own trailing space stays),
// and styling does not count towards widths.
func TestWriteGrid(t *testing.T) {
	g := &grid{
		cols: []column{{title: "A"}, {title: "DROPPED"}, {title: "B"}, {title: "C"}},
		rows: [][]cell{
			{{text: "one"}, {text: "x"}, {text: "44d88612fea8a8f36de82e1278abb02f", kind: kindToken}, {text: "end "}},
			{{text: "sixsix"}, {text: "y"}, {text: ""}, {text: "z"}},
		},
	}
	tests := []struct {
		name   string
		o      Options
		widths []int
		want   string
	}{
		{"drop middle", Options{}, []int{6, 0, 10, 4},
			"A       B           C\n" +
				"one     44d88…b02f  end \n" +
				"sixsix  —           z\n"},
		{"all shown", Options{}, []int{6, 7, 32, 4},
			"A       DROPPED  B                                 C\n" +
				"one     x        44d88612fea8a8f36de82e1278abb02f  end \n" +
				"sixsix  y        —                                 z\n"},
		{"color", Options{Color: true}, []int{6, 0, 0, 4},
			"\x1b[1mA\x1b[0m       \x1b[1mC\x1b[0m\n" +
				"one     end \n" +
				"sixsix  z\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeGrid(tt.o, &b, g, tt.widths)
			if got := b.String(); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestPreviewLeavesOutTheQuery: a preview column that only repeats the
// query (the domain of passive DNS records found by that domain) is left
// out, as MATCHED VALUE is in the results table, so that the records are a
// table at the width the other columns need (issue 38).
func TestPreviewLeavesOutTheQuery(t *testing.T) {
	const q = "login-update.example.net"
	raw := `{"query":"` + q + `","results":[{"label":"Passive DNS","count":2,"preview":[` +
		`{"domain":"` + q + `","rrtype":"A","ip":"203.0.113.66"},` +
		`{"domain":"LOGIN-UPDATE.example.net","rrtype":"A","ip":"198.51.100.109"}]}]}`
	r := Record{Query: q, Resp: decode(t, []byte(raw))}
	header := "rrtype  ip"
	width := len("rrtype") + colGap + len("198.51.100.109") // the table without the domain
	for _, w := range []int{0, width} {
		out := string(printSearch(t, Options{Preview: true, Width: w}, false, r))
		preview := out[strings.Index(out, "Preview:"):]
		if !strings.Contains(preview, "\n"+header+"\n") || strings.Contains(preview, "domain") {
			t.Errorf("width %d: want a table without the query's column:\n%s", w, preview)
		}
	}
	// Too narrow for the table, the record view shows each record whole.
	if out := string(printSearch(t, Options{Preview: true, Width: width - 1}, false, r)); !strings.Contains(out, "\ndomain:  login-update") {
		t.Errorf("record view without the domain:\n%s", out)
	}
	// A column that also holds other values stays.
	other := strings.Replace(raw, `"domain":"LOGIN-UPDATE.example.net"`, `"domain":"cdn.example.net"`, 1)
	out := string(printSearch(t, Options{Preview: true}, false, Record{Query: q, Resp: decode(t, []byte(other))}))
	if !strings.Contains(out, "domain  ") || !strings.Contains(out, "cdn.example.net") {
		t.Errorf("a column with other values was left out:\n%s", out)
	}
}

// sandboxAnswer is the built-in sandbox's answer to q, as search gets it.
func sandboxAnswer(t *testing.T, q string) Record {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/api/ti/resources/search?q="+url.QueryEscape(q), nil)
	req.Header.Set("Authorization", "Bearer "+sandbox.DemoToken)
	rec := httptest.NewRecorder()
	sandbox.NewSearchHandler(sandbox.Options{}).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("the sandbox answered %q with %d: %s", q, rec.Code, rec.Body)
	}
	return Record{Query: q, Resp: decode(t, rec.Body.Bytes())}
}

// previewOf is the block of out under "Preview: <label>", up to the next
// blank line.
func previewOf(t *testing.T, out, label string) string {
	t.Helper()
	_, block, ok := strings.Cut(out, "Preview: "+label)
	if !ok {
		t.Fatalf("no %s preview in\n%s", label, out)
	}
	block, _, _ = strings.Cut(block, "\n\n")
	return block
}

// TestPreviewShowsDatesToFit: the sandbox's Passive DNS records, found by
// a domain (the domain column left out) or by an address (the domain
// column kept), need 89 and 97 columns with their timestamps whole; at 80
// columns they are still a table, each timestamp shown as its date and a
// "…" (issue 38), and at 200 they show whole.
func TestPreviewShowsDatesToFit(t *testing.T) {
	for _, q := range []string{"login-update.example.net", "203.0.113.66"} {
		r := sandboxAnswer(t, q)
		var stamps []string // every first_seen and last_seen the preview holds
		for _, res := range r.Resp.Results {
			if res.Label != "Passive DNS" {
				continue
			}
			for _, p := range res.Preview {
				stamps = append(stamps, p["first_seen"].(string), p["last_seen"].(string))
			}
		}
		if len(stamps) == 0 {
			t.Fatalf("%s: the sandbox has no passive DNS records for it", q)
		}
		narrow := previewOf(t, string(printSearch(t, Options{Preview: true, Width: 80}, false, r)), "Passive DNS")
		if strings.Contains(narrow, "RECORD") {
			t.Errorf("%s at 80 columns: a record view, want a table:\n%s", q, narrow)
		}
		for line := range strings.Lines(narrow) {
			if w := textWidth(strings.TrimRight(line, "\n")); w > 80 {
				t.Errorf("%s: a line of %d columns at 80: %q", q, w, line)
			}
		}
		wide := previewOf(t, string(printSearch(t, Options{Preview: true, Width: 200}, false, r)), "Passive DNS")
		for _, ts := range stamps {
			if !strings.Contains(narrow, ts[:10]+"…") {
				t.Errorf("%s at 80 columns: no %s… (from %s):\n%s", q, ts[:10], ts, narrow)
			}
			if !strings.Contains(wide, ts) {
				t.Errorf("%s at 200 columns: no %s whole:\n%s", q, ts, wide)
			}
		}
	}
}

// TestWithDates: only a column whose every value is a date and time is
// shown as dates; a column that mixes them with other values, or a date
// alone, is left as it is.
func TestWithDates(t *testing.T) {
	raw := `{"query":"x","results":[{"label":"R","count":2,"preview":[` +
		`{"seen":"2025-04-20T22:10:27Z","mixed":"2025-04-20T22:10:27Z","day":"2025-04-20"},` +
		`{"seen":"2024-06-10T09:41:46.5+02:00","mixed":"soon","day":"2024-06-10"},` +
		`{"mixed":"2024-06-10T09:41:46Z"}]}]}`
	recs, err := orderedPreviews(decode(t, []byte(raw)))
	if err != nil {
		t.Fatal(err)
	}
	g, _ := recordsGrid(Options{}, recs[0].elems, false)
	d := g.withDates()
	if d == nil {
		t.Fatal("no dated grid for a column of timestamps")
	}
	want := [][]string{{"2025-04-20…", "2025-04-20T22:10:27Z", "2025-04-20"}, {"2024-06-10…", "soon", "2024-06-10"}, {"", "2024-06-10T09:41:46Z", ""}}
	for r, row := range d.rows {
		for i, c := range row {
			if c.text != want[r][i] {
				t.Errorf("row %d, %s: %q, want %q", r, d.cols[i].title, c.text, want[r][i])
			}
		}
	}
	if g.rows[0][0].text != "2025-04-20T22:10:27Z" {
		t.Errorf("withDates changed the grid it was made from: %q", g.rows[0][0].text)
	}
	if lone, _ := recordsGrid(Options{}, recs[0].elems[2:], false); lone.withDates() == nil {
		t.Error("a lone timestamp column is a column of timestamps")
	}
}
