package export

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tilookup/tilookup/internal/misptest"
	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/report"
)

type mispOut struct {
	Event mispOutEvent `json:"Event"`
}

type mispOutEvent struct {
	UUID          string     `json:"uuid"`
	Info          string     `json:"info"`
	Date          string     `json:"date"`
	Timestamp     string     `json:"timestamp"`
	Distribution  string     `json:"distribution"`
	ThreatLevelID string     `json:"threat_level_id"`
	Analysis      string     `json:"analysis"`
	Published     bool       `json:"published"`
	Tag           []mispTag  `json:"Tag"`
	Attribute     []mispAttr `json:"Attribute"`
}

type mispAttr struct {
	UUID, Type, Category, Value, Distribution, Timestamp, Comment string
	ToIDS                                                         bool `json:"to_ids"`
}

func writeMISP(t *testing.T, r *report.Report, opts MISPOptions) ([]byte, mispOut) {
	t.Helper()
	var b bytes.Buffer
	if err := MISP(&b, r, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), decodeMISP(t, b.Bytes())
}

func decodeMISP(t *testing.T, raw []byte) mispOut {
	t.Helper()
	var ev mispOut
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&ev); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, raw)
	}
	return ev
}

func attrOf(ev mispOut, value string) *mispAttr {
	for i, a := range ev.Event.Attribute {
		if a.Value == value {
			return &ev.Event.Attribute[i]
		}
	}
	return nil
}

// checkTypes reports the attributes whose type MISP does not know or
// whose category does not allow it (misptest's check, on this package's
// decoding of an event).
func checkTypes(d misptest.DescribeTypes, ev mispOut) []string {
	attrs := make([]misptest.Attribute, len(ev.Event.Attribute))
	for i, a := range ev.Event.Attribute {
		attrs[i] = misptest.Attribute{Type: a.Type, Category: a.Category}
	}
	return d.CheckTypes(attrs)
}

// hostileFinding has quotes, a newline and <script> in its value, label
// and relation, as a pivot through a hostile server could give.
func hostileFinding() Finding {
	return Finding{
		Value: "https://evil.example/\"q\"\n<script>alert(1)</script>", Type: ioc.URL,
		Matches: []api.Result{{Resource: "r\"1", Label: "Feed \"x\"\n<script>alert('l')</script>", Count: "2", DetailURL: "https://ti.example/r?q=\"<script>"}},
		Related: []Relation{{Value: "evil.example\"<script>", Note: "in r\"1's preview,\nfield <b>"}},
	}
}

// pivotRun is a pivot-shaped run: findings with edges between them.
func pivotRun() MISPRun {
	return MISPRun{What: "Pivot from evil.example (depth 1)", Time: lookedUp, Findings: []Finding{
		{Value: "evil.example", Type: ioc.Domain,
			Matches: []api.Result{{Resource: "c2", Label: "Botnet C2 servers", Count: "3", DetailURL: "https://ti.example/r/c2?q=evil.example"}},
			Related: []Relation{{Value: "198.51.100.7", Note: "in c2's preview, field ip"}}},
		{Value: "198.51.100.7", Type: ioc.IPv4,
			Matches: []api.Result{{Resource: "scan", Label: "Mass scanners", Count: "12", DetailURL: "https://ti.example/r/scan?q=198.51.100.7"}},
			Related: []Relation{{Value: "evil.example", Note: "found from it"}}},
	}}
}

func writeMISPRun(t *testing.T, run MISPRun, opts MISPOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := MISPEvent(&b, run, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// everyMISPEvent is every event the tests write, by name.
func everyMISPEvent(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	reports := map[string]func(*testing.T) *report.Report{
		"one": oneValue, "several": severalValues, "triage": triageRun, "all types": allTypes,
		"empty": func(*testing.T) *report.Report { return &report.Report{Title: "nothing", Time: lookedUp} },
	}
	for name, mk := range reports {
		for _, tlp := range append([]string{""}, TLPLevels...) {
			for _, ids := range []bool{false, true} {
				raw, _ := writeMISP(t, mk(t), MISPOptions{TLP: tlp, ToIDS: ids})
				out[name+" tlp "+tlp+" to_ids "+map[bool]string{false: "off", true: "on"}[ids]] = raw
			}
		}
	}
	out["pivot"] = writeMISPRun(t, pivotRun(), MISPOptions{TLP: "red"})
	out["hostile"] = writeMISPRun(t, MISPRun{What: "a \"quoted\"\n<script>", Time: lookedUp, Findings: []Finding{hostileFinding()}}, MISPOptions{})
	return out
}

func TestMISPSchemaValid(t *testing.T) {
	sch := misptest.Schema(t)
	for name, raw := range everyMISPEvent(t) {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: not a valid MISP event: %v\n%s", name, err, raw)
		}
	}
}

// TestMISPSchemaCatches makes sure the validation above can fail.
func TestMISPSchemaCatches(t *testing.T) {
	sch := misptest.Schema(t)
	raw, _ := writeMISP(t, allTypes(t), MISPOptions{TLP: "amber"})
	for _, c := range []struct{ from, to string }{
		{`"published": false`, `"published": "false"`},
		{`"distribution": "0"`, `"distribution": 0`},
		{`"to_ids": false`, `"to_ids": 0`},
		{`"Tag": [`, `"Object": [], "Tag": [`},
		{`"comment": `, `"object_relation": "x", "comment": `},
	} {
		broken := strings.Replace(string(raw), c.from, c.to, 1)
		if broken == string(raw) {
			t.Fatalf("%q is not in the event", c.from)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(broken))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("an event with %q replaced by %q passed the schema", c.from, c.to)
		}
	}
}

func TestMISPTypesAndCategories(t *testing.T) {
	d := misptest.LoadDescribeTypes(t)
	for name, raw := range everyMISPEvent(t) {
		if bad := checkTypes(d, decodeMISP(t, raw)); len(bad) > 0 {
			t.Errorf("%s: %v", name, bad)
		}
	}
	// The type table the event reads, against this copy of the file
	// (pkg/ioc checks it against its own): each type in its default
	// category, flagged for IDS exactly when MISP flags it by default.
	for _, info := range ioc.Types() {
		mt := info.MISP
		def, ok := d.Result.SaneDefaults[mt.Type]
		if !ok {
			t.Errorf("%s: MISP has no type %q", info.Type, mt.Type)
			continue
		}
		if def.DefaultCategory != mt.Category || (def.ToIDS == 1) != mt.ToIDs {
			t.Errorf("%s as %s: category %q, to_ids %v; describeTypes.json says %q, to_ids %d", info.Type, mt.Type, mt.Category, mt.ToIDs, def.DefaultCategory, def.ToIDS)
		}
	}
	if def := d.Result.SaneDefaults["link"]; def.DefaultCategory != mispLink.Category || def.ToIDS != 0 {
		t.Errorf("link in %q, MISP's default is %q", mispLink.Category, def.DefaultCategory)
	}
	// A check that cannot fail guards nothing.
	if bad := checkTypes(d, mispOut{Event: mispOutEvent{Attribute: []mispAttr{{Type: "ipv4", Category: "Network activity"}, {Type: "sha512", Category: "External analysis"}}}}); len(bad) != 2 {
		t.Errorf("checkTypes let an unknown type or a wrong category through: %v", bad)
	}
}

func TestMISPEventFields(t *testing.T) {
	_, ev := writeMISP(t, severalValues(t), MISPOptions{})
	e := ev.Event
	if e.Published || e.Distribution != "0" || e.ThreatLevelID != "4" || e.Analysis != "0" {
		t.Errorf("unpublished, distribution 0, threat level 4, analysis 0 expected: %+v", e)
	}
	if e.Date != "2026-11-22" || e.Timestamp != "1795367109" {
		t.Errorf("date %q, timestamp %q: the day and time of the lookup expected", e.Date, e.Timestamp)
	}
	if e.Info != "tilookup: Search of 4 values, 2026-11-22 17:05:09 UTC" {
		t.Errorf("info %q", e.Info)
	}
	if len(e.Tag) != 0 {
		t.Errorf("no TLP tag without --tlp: %v", e.Tag)
	}
	// The address, the URL and the CVE matched; the quiet domain did not.
	want := []struct{ typ, category, value string }{
		{"ip-dst", "Network activity", "198.51.100.7"},
		{"url", "Network activity", "https://login-update.example.net/verify?id=1"},
		{"vulnerability", "External analysis", "CVE-2021-44228"},
		{"link", "External analysis", "https://ti.example/r/c2?q=198.51.100.7"},
		{"link", "External analysis", "https://ti.example/r/scan?q=198.51.100.7"},
		{"link", "External analysis", "https://ti.example/r/phish?id=9"},
		{"link", "External analysis", "https://ti.example/r/kev/CVE-2021-44228"},
	}
	if len(e.Attribute) != len(want) {
		t.Fatalf("%d attributes, want %d: %+v", len(e.Attribute), len(want), e.Attribute)
	}
	for i, w := range want {
		a := e.Attribute[i]
		if a.Type != w.typ || a.Category != w.category || a.Value != w.value {
			t.Errorf("attribute %d: %s/%s %q, want %s/%s %q", i, a.Type, a.Category, a.Value, w.typ, w.category, w.value)
		}
		if a.ToIDS || a.Distribution != "5" || a.Timestamp != e.Timestamp {
			t.Errorf("attribute %d: to_ids false, distribution 5 (the event's), the lookup's timestamp expected: %+v", i, a)
		}
	}
	if c := e.Attribute[0].Comment; c != "Matched by tilookup in: Botnet C2 servers, 3 matching records; Mass scanners, 12 matching records" {
		t.Errorf("comment %q: each resource and its count expected", c)
	}
	if c := e.Attribute[3].Comment; c != "tilookup detail page of Botnet C2 servers, 3 matching records: 198.51.100.7" {
		t.Errorf("link comment %q", c)
	}
}

func TestMISPInterrupted(t *testing.T) {
	r := severalValues(t)
	r.Interrupted = true
	_, ev := writeMISP(t, r, MISPOptions{})
	if !strings.HasSuffix(ev.Event.Info, "(interrupted: not every value was looked up)") {
		t.Errorf("an interrupted run must say so: %q", ev.Event.Info)
	}
}

func TestMISPToIDS(t *testing.T) {
	for _, on := range []bool{false, true} {
		_, ev := writeMISP(t, allTypes(t), MISPOptions{ToIDS: on})
		for _, a := range ev.Event.Attribute {
			want := on && a.Type != "vulnerability" && a.Type != "link"
			if a.ToIDS != want {
				t.Errorf("--to-ids %v: %s %q has to_ids %v", on, a.Type, a.Value, a.ToIDS)
			}
		}
	}
}

func TestMISPTLP(t *testing.T) {
	for _, level := range TLPLevels {
		_, ev := writeMISP(t, oneValue(t), MISPOptions{TLP: strings.ToUpper(level)})
		if len(ev.Event.Tag) != 1 || ev.Event.Tag[0].Name != "tlp:"+level {
			t.Errorf("--tlp %s: tags %v", level, ev.Event.Tag)
		}
	}
	if err := MISP(&bytes.Buffer{}, oneValue(t), MISPOptions{TLP: "white"}); err == nil || !strings.Contains(err.Error(), "--tlp clear") {
		t.Errorf("white must be refused with a pointer to clear: %v", err)
	}
}

// TestMISPTriage: only matched values are attributes; the skipped ones,
// the failed, the unmatched and the unsupported are not.
func TestMISPTriage(t *testing.T) {
	_, ev := writeMISP(t, triageRun(t), MISPOptions{})
	var values []string
	for _, a := range ev.Event.Attribute {
		values = append(values, a.Type+" "+a.Value)
	}
	want := []string{
		"domain evil.example", "md5 44d88612fea8a8f36de82e1278abb02f",
		// the javascript: detail_url is no link; the other is encoded.
		"link https://ti.example/d?q=a%7Cb)&lt;x&gt;%60", "link https://ti.example/r/mal?h=44d8",
	}
	if strings.Join(values, "\n") != strings.Join(want, "\n") {
		t.Errorf("attributes:\n%s\nwant:\n%s", strings.Join(values, "\n"), strings.Join(want, "\n"))
	}
}

func TestMISPUUIDsStable(t *testing.T) {
	rawA, a := writeMISP(t, allTypes(t), MISPOptions{})
	_, b := writeMISP(t, allTypes(t), MISPOptions{})
	if len(a.Event.Attribute) != 15 {
		// 14 values of a MISP type, and one shared link page.
		t.Fatalf("%d attributes, want 15:\n%s", len(a.Event.Attribute), rawA)
	}
	seen := map[string]string{}
	for i, x := range a.Event.Attribute {
		if y := b.Event.Attribute[i]; y.UUID != x.UUID || y.Value != x.Value {
			t.Errorf("%s: uuid %s in one run, %s in the next", x.Value, x.UUID, y.UUID)
		}
		if other, dup := seen[x.UUID]; dup {
			t.Errorf("%s and %s share the uuid %s", x.Value, other, x.UUID)
		}
		seen[x.UUID] = x.Value
		if x.UUID[14] != '5' {
			t.Errorf("%s: %s is not a UUIDv5", x.Value, x.UUID)
		}
	}
	if a.Event.UUID == b.Event.UUID {
		t.Error("each run is a new event: its UUID must differ")
	}
	// The same value in another run, among other values, keeps its UUID.
	_, one := writeMISP(t, oneValue(t), MISPOptions{})
	if x := attrOf(a, "198.51.100.7"); x == nil || x.UUID != one.Event.Attribute[0].UUID {
		t.Errorf("198.51.100.7: not the same uuid in two different runs: %v, %v", x, one.Event.Attribute[0])
	}
	// Python: uuid.uuid5(UUID("2210c9e4-32c8-4a56-9bd0-cc1927940195"), "ip-dst|198.51.100.7").
	if got := one.Event.Attribute[0].UUID; got != "15655f6a-151b-5fe9-baf4-947249979cd6" {
		t.Errorf("uuid of 198.51.100.7: %s", got)
	}
}

func TestMISPDuplicatesOnce(t *testing.T) {
	r := oneValue(t)
	r.Indicators = append(r.Indicators, r.Indicators[0])
	_, ev := writeMISP(t, r, MISPOptions{})
	if n := len(ev.Event.Attribute); n != 3 {
		t.Errorf("a value given twice: %d attributes, want 3 (the value and its two pages)", n)
	}
}

// TestMISPEscaping: quotes, newlines and <script> in a value, a label, a
// relation and the title come back exactly, and no raw newline or tag is
// in the file.
func TestMISPEscaping(t *testing.T) {
	f := hostileFinding()
	run := MISPRun{What: "a \"quoted\"\n<script>", Time: lookedUp, Findings: []Finding{f}}
	raw := writeMISPRun(t, run, MISPOptions{})
	if bytes.Contains(raw, []byte("<script")) || bytes.Contains(raw, []byte("<b>")) {
		t.Errorf("a raw tag made it into the file:\n%s", raw)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		if strings.Count(line, `"`)-strings.Count(line, `\"`) > 4 {
			t.Errorf("a line with more than a key and a value: %s", line)
		}
	}
	ev := decodeMISP(t, raw)
	if !strings.HasPrefix(ev.Event.Info, "tilookup: a \"quoted\"\n<script>, ") {
		t.Errorf("info %q", ev.Event.Info)
	}
	a := attrOf(ev, f.Value)
	if a == nil {
		t.Fatalf("the hostile value is not an attribute:\n%s", raw)
	}
	wantComment := "Matched by tilookup in: Feed \"x\"\n<script>alert('l')</script>, 2 matching records. Related to: evil.example\"<script> (in r\"1's preview,\nfield <b>)"
	if a.Comment != wantComment {
		t.Errorf("comment %q, want %q", a.Comment, wantComment)
	}
	if link := attrOf(ev, "https://ti.example/r?q=%22%3Cscript%3E"); link == nil {
		t.Errorf("the detail_url must be a link, percent-encoded:\n%s", raw)
	}
}

func TestMISPPivotRelations(t *testing.T) {
	ev := decodeMISP(t, writeMISPRun(t, pivotRun(), MISPOptions{}))
	a := attrOf(ev, "evil.example")
	if a == nil || !strings.HasSuffix(a.Comment, ". Related to: 198.51.100.7 (in c2's preview, field ip)") {
		t.Errorf("the edge must name the neighbour in the comment: %+v", a)
	}
}

func TestMISPGolden(t *testing.T) {
	raw, _ := writeMISP(t, severalValues(t), MISPOptions{TLP: "green", Rand: rand.NewChaCha8([32]byte{1})})
	golden(t, "several.misp.json", raw)
	raw, _ = writeMISP(t, triageRun(t), MISPOptions{TLP: "amber+strict", ToIDS: true, Rand: rand.NewChaCha8([32]byte{2})})
	golden(t, "triage.misp.json", raw)
	golden(t, "pivot.misp.json", writeMISPRun(t, pivotRun(), MISPOptions{Rand: rand.NewChaCha8([32]byte{3})}))
}
