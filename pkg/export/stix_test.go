package export

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tilookup/tilookup/pkg/report"
)

// allTypes matches one value of every type tilookup knows, with the URLs
// that need escaping in a pattern (' and \) or fixing for RFC 3986.
func allTypes(t *testing.T) *report.Report {
	values := []struct{ value, typ string }{
		{"198.51.100.7", "ipv4"},
		{"2001:db8::7", "ipv6"},
		{"evil.example", "domain"},
		{"https://evil.example/it's/a?b=c", "url"},
		{`https://evil.example/back\slash`, "url"},
		{"evil.example/path with space", "url"},
		{"http://[2001:db8::1]:8080/x", "url"},
		{"bücher.example", "domain"},
		{"user@evil.example", "email"},
		{"44d88612fea8a8f36de82e1278abb02f", "md5"},
		{"3395856ce81f2b7382dee72602f798b642f14140", "sha1"},
		{"275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f", "sha256"},
		{strings.Repeat("cc805d5fab1fd71a", 8), "sha512"},
		{"CVE-2021-44228", "cve"},
		{"something-else", "unknown"},
	}
	r := &report.Report{Title: "every type", Time: lookedUp}
	for _, v := range values {
		body := `{"query":` + jcsString(v.value) + `,"results":[{"resource":"r","label":"Feed","group":"g","count":1,"detail_url":"https://ti.example/r?q=1"}]}`
		r.Indicators = append(r.Indicators, report.Indicator{Value: v.value, Type: v.typ, Resp: decode(t, body)})
	}
	return r
}

type stixDoc struct {
	Type    string           `json:"type"`
	ID      string           `json:"id"`
	Objects []map[string]any `json:"objects"`
}

func writeSTIX(t *testing.T, r *report.Report, opts STIXOptions) ([]byte, stixDoc) {
	t.Helper()
	var b bytes.Buffer
	if err := STIX(&b, r, opts); err != nil {
		t.Fatal(err)
	}
	var doc stixDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.Bytes())
	}
	return b.Bytes(), doc
}

func byType(doc stixDoc, typ string) []map[string]any {
	var out []map[string]any
	for _, o := range doc.Objects {
		if o["type"] == typ {
			out = append(out, o)
		}
	}
	return out
}

func byID(doc stixDoc, id any) map[string]any {
	for _, o := range doc.Objects {
		if o["id"] == id {
			return o
		}
	}
	return nil
}

// schemaDir is ../shared/stix2-schemas/schemas beside the repository.
func schemaDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wd, "..", "..", "..", "shared", "stix2-schemas", "schemas")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the official STIX 2.1 schemas are missing at %s: CI must validate against them", dir)
		}
		t.Skipf("STIX 2.1 schemas not found at %s (../shared/stix2-schemas beside the repository): schema validation skipped", dir)
	}
	return dir
}

// bundleSchema compiles the official bundle schema, every file of the set
// registered under its $id so that the relative $refs resolve offline.
// Formats (uri, idn-hostname, email…) are asserted, not just annotations.
func bundleSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return stixSchema(t, "/common/bundle.json")
}

// stixSchema compiles the official schema whose $id ends with suffix.
func stixSchema(t *testing.T, suffix string) *jsonschema.Schema {
	t.Helper()
	dir := schemaDir(t)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	var bundleID string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			return err
		}
		id, _ := doc.(map[string]any)["$id"].(string)
		if strings.HasSuffix(id, suffix) {
			bundleID = id
		}
		return c.AddResource(id, doc)
	})
	if err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(bundleID)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestSTIXSchemaValid(t *testing.T) {
	sch := bundleSchema(t)
	noteSchema := stixSchema(t, "/sdos/note.json")
	reports := map[string]func(*testing.T) *report.Report{
		"one": oneValue, "several": severalValues, "triage": triageRun, "all types": allTypes,
		"interrupted": func(t *testing.T) *report.Report { r := severalValues(t); r.Interrupted = true; return r },
	}
	for name, mk := range reports {
		for _, tlp := range append([]string{""}, TLPLevels...) {
			raw, _ := writeSTIX(t, mk(t), STIXOptions{TLP: tlp})
			raw = validNotes(t, noteSchema, raw)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("%s, tlp %q: not a valid STIX 2.1 bundle: %v\n%s", name, tlp, err, raw)
			}
		}
	}
}

// TestSTIXSchemaCatches makes sure the validation above can fail: the
// same bundle, broken in ways a writer could break it, is refused.
func TestSTIXSchemaCatches(t *testing.T) {
	sch := bundleSchema(t)
	raw, _ := writeSTIX(t, allTypes(t), STIXOptions{})
	for _, c := range []struct{ from, to string }{
		{`"pattern_type": "stix",`, ``},
		{`"MD5": "44d88612fea8a8f36de82e1278abb02f"`, `"MD5": "44d8"`},
		{`"created": "2026-11-22T17:05:09.123Z"`, `"created": "2026-11-22 17:05"`},
		{`"source_name": "cve"`, `"source_name": "cve", "url": "not a url"`},
	} {
		broken := strings.Replace(string(raw), c.from, c.to, 1)
		if broken == string(raw) {
			t.Fatalf("%q is not in the bundle", c.from)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(broken))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("a bundle with %q replaced by %q passed the schema", c.from, c.to)
		}
	}
}

// TestSTIXDeterministicIDs checks the ids against values computed by an
// independent UUIDv5 and JSON implementation (Python's uuid and json).
func TestSTIXDeterministicIDs(t *testing.T) {
	for _, c := range []struct{ typ, key, value, algo, want string }{
		{"ipv4-addr", "value", "198.51.100.3", "", "ipv4-addr--28bb3599-77cd-5a82-a950-b5bc3caf07c4"},
		{"ipv6-addr", "value", "2001:db8::1", "", "ipv6-addr--6469e3a9-b053-5e34-a025-9396ae051d26"},
		{"file", "hashes", "44d88612fea8a8f36de82e1278abb02f", "MD5", "file--5a0c55a1-48a3-5003-9776-42946d1054cb"},
		{"url", "value", "http://ex\u00e9mple.test/a\"b\\c\u2028<&>\x01", "", "url--3ace25d8-8753-58ef-b07a-7bd7565773f0"},
	} {
		if got := scoID(c.typ, c.key, c.value, c.algo); got != c.want {
			t.Errorf("scoID(%s %q) = %s, want %s", c.typ, c.value, got, c.want)
		}
	}
}

func scoIDs(doc stixDoc) map[string]string {
	ids := map[string]string{}
	for _, o := range doc.Objects {
		id := o["id"].(string)
		if v, ok := o["value"].(string); ok {
			ids[v] = id
		}
		if h, ok := o["hashes"].(map[string]any); ok {
			for _, v := range h {
				ids[v.(string)] = id
			}
		}
	}
	return ids
}

func TestSTIXIDsStableAcrossRuns(t *testing.T) {
	_, a := writeSTIX(t, allTypes(t), STIXOptions{})
	_, b := writeSTIX(t, allTypes(t), STIXOptions{})
	idsA, idsB := scoIDs(a), scoIDs(b)
	if len(idsA) != 13 {
		t.Fatalf("%d observables, want 13 (every type but cve and unknown): %v", len(idsA), idsA)
	}
	seen := map[string]string{}
	for v, id := range idsA {
		if idsB[v] != id {
			t.Errorf("%s: id %s in one run, %s in the next", v, id, idsB[v])
		}
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s share the id %s", v, other, id)
		}
		seen[id] = v
	}
	// Every object keeps its id in the next run (pushed again, it adds
	// nothing to a TAXII collection); only the bundle, which no platform
	// stores, is new.
	if len(a.Objects) != len(b.Objects) {
		t.Fatalf("%d objects in one run, %d in the next", len(a.Objects), len(b.Objects))
	}
	ids := map[string]bool{}
	for i, o := range a.Objects {
		id := o["id"].(string)
		if next := b.Objects[i]["id"]; next != id {
			t.Errorf("%s: %s in one run, %s in the next", o["type"], id, next)
		}
		if ids[id] {
			t.Errorf("%s twice in one bundle", id)
		}
		ids[id] = true
	}
	for _, typ := range []string{"indicator", "relationship", "vulnerability"} {
		if len(byType(a, typ)) == 0 {
			t.Errorf("no %s in the bundle: the test checks nothing of it", typ)
		}
	}
	if a.ID == b.ID {
		t.Error("bundle ids must differ between runs")
	}
}

// TestSDOIDs checks the ids of the objects tilookup makes against an
// independent UUIDv5 and JSON implementation (Python's uuid and
// json.dumps([type, *parts], ensure_ascii=False, separators=(",", ":"))
// under namespace 9a2f23f3-e723-4ce3-bc74-376346eec008).
func TestSDOIDs(t *testing.T) {
	for _, c := range []struct {
		typ   string
		parts []string
		want  string
	}{
		{"indicator", []string{"stix", "[ipv4-addr:value = '198.51.100.7']"}, "indicator--85b45096-c368-519e-a7ef-61ec76f0f1d2"},
		{"vulnerability", []string{"CVE-2024-3094"}, "vulnerability--c99d37b7-caee-565f-b3d8-3eb83e0c9ada"},
		{"relationship", []string{"based-on", "indicator--x", "ipv4-addr--y"}, "relationship--6d6ef6e0-821c-56a7-a61a-b76747373b63"},
		{"indicator", []string{"stix", "[url:value = 'http://ex\u00e9/\\'<&>\u2028']"}, "indicator--fc392099-9f71-5577-9916-96833527cdd6"},
	} {
		if got := sdoID(c.typ, c.parts...); got != c.want {
			t.Errorf("sdoID(%s %q) = %s, want %s", c.typ, c.parts, got, c.want)
		}
	}
}

// patternRE is the grammar of the one comparison tilookup writes: an
// object path and a string literal in which only \\ and \' are escapes.
var patternRE = regexp.MustCompile(`^\[([a-z0-9-]+):(value|hashes\.MD5|hashes\.'SHA-1'|hashes\.'SHA-256'|hashes\.'SHA-512') = '((?:\\\\|\\'|[^'\\])*)'\]$`)

func TestSTIXPatterns(t *testing.T) {
	_, doc := writeSTIX(t, allTypes(t), STIXOptions{})
	inds := byType(doc, "indicator")
	if len(inds) != 13 {
		t.Fatalf("%d indicators, want 13 (every matched value but the CVE and the unknown)", len(inds))
	}
	for _, ind := range inds {
		pattern := ind["pattern"].(string)
		m := patternRE.FindStringSubmatch(pattern)
		if m == nil {
			t.Errorf("pattern %q is not a valid comparison", pattern)
			continue
		}
		literal := strings.NewReplacer(`\\`, `\`, `\'`, `'`).Replace(m[3])
		sco := basedOn(t, doc, ind)
		if sco["type"] != m[1] {
			t.Errorf("pattern %s on %s, its observable is a %s", pattern, m[1], sco["type"])
		}
		want, _ := sco["value"].(string)
		if m[1] == "file" {
			algo := strings.Trim(strings.TrimPrefix(m[2], "hashes."), "'")
			want, _ = sco["hashes"].(map[string]any)[algo].(string)
		} else if m[2] != "value" {
			t.Errorf("pattern %s: %s has no %s", pattern, m[1], m[2])
		}
		if literal != want {
			t.Errorf("pattern %s reads %q, the observable holds %q", pattern, literal, want)
		}
		if ind["pattern_type"] != "stix" || ind["valid_from"] != "2026-11-22T17:05:09.123Z" {
			t.Errorf("indicator %v: pattern_type stix and valid_from the lookup time expected", ind)
		}
	}
	for in, want := range map[string]string{
		`it's`:    `'it\'s'`,
		`a\b`:     `'a\\b'`,
		`\'`:      `'\\\''`,
		"plain":   `'plain'`,
		`x\\'y''`: `'x\\\\\'y\'\''`,
	} {
		if got := patternString(in); got != want {
			t.Errorf("patternString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestSTIXURLCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"https://evil.example/it's/a?b=c": "https://evil.example/it's/a?b=c",
		`https://evil.example/back\slash`: "https://evil.example/back%5Cslash",
		"evil.example/path with space":    "http://evil.example/path%20with%20space",
		"hxxp-not-a-scheme.example/x":     "http://hxxp-not-a-scheme.example/x",
		"ftp://files.example/\u00e9":      "ftp://files.example/%C3%A9",
	} {
		if got := (observable{stixType: "url"}).canonical(in); got != want {
			t.Errorf("canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

// basedOn follows the indicator's based-on relationship to its observable.
func basedOn(t *testing.T, doc stixDoc, ind map[string]any) map[string]any {
	t.Helper()
	for _, rel := range byType(doc, "relationship") {
		if rel["source_ref"] == ind["id"] && rel["relationship_type"] == "based-on" {
			if sco := byID(doc, rel["target_ref"]); sco != nil {
				return sco
			}
			t.Fatalf("relationship %v points to no object of the bundle", rel)
		}
	}
	t.Fatalf("indicator %v has no based-on relationship", ind["id"])
	return nil
}

func TestSTIXContent(t *testing.T) {
	_, doc := writeSTIX(t, triageRun(t), STIXOptions{TLP: "amber+strict"})
	if doc.Type != "bundle" || doc.Objects[0]["type"] != "identity" || doc.Objects[0]["name"] != "tilookup" {
		t.Fatalf("a bundle led by the tilookup identity expected: %v", doc.Objects[0])
	}
	mark := doc.Objects[1]
	if mark["id"] != "marking-definition--939a9414-2ddd-4d32-a0cd-375ea402b003" || mark["name"] != "TLP:AMBER+STRICT" {
		t.Errorf("TLP:AMBER+STRICT marking definition expected, got %v", mark)
	}
	for _, o := range doc.Objects[2:] {
		refs, _ := o["object_marking_refs"].([]any)
		if len(refs) != 1 || refs[0] != mark["id"] {
			t.Errorf("%s lacks the TLP marking: %v", o["id"], refs)
		}
		if _, sdo := o["created"]; sdo && o["created_by_ref"] != doc.Objects[0]["id"] {
			t.Errorf("%s is not created by tilookup", o["id"])
		}
	}
	// evil.example and the MD5 matched; the e-mail did not, the unknown
	// has no STIX type, the failed address is not a finding: no object,
	// as in MISP (a bundle with it would pass it for a value that did not
	// match).
	inds := byType(doc, "indicator")
	if len(inds) != 2 || inds[0]["name"] != "evil.example" || inds[1]["name"] != "44d88612fea8a8f36de82e1278abb02f" {
		t.Fatalf("indicators for the two matched values expected, got %v", inds)
	}
	refs := inds[0]["external_references"].([]any)
	if len(refs) != 2 || refs[0].(map[string]any)["url"] != nil {
		t.Errorf("the javascript: detail_url must not become a reference url: %v", refs)
	}
	if u := refs[1].(map[string]any)["url"]; u != "https://ti.example/d?q=a%7Cb)&lt;x&gt;%60" {
		t.Errorf("detail_url reference: %v", u)
	}
	if ids := scoIDs(doc); len(ids) != 3 || ids["user@phish.example"] == "" || ids["203.0.113.9"] != "" || ids["10.0.0.1"] != "" {
		t.Errorf("observables for every value of a STIX type that was looked up and answered, none for failed or skipped ones: %v", ids)
	}
}

func TestSTIXVulnerability(t *testing.T) {
	_, doc := writeSTIX(t, severalValues(t), STIXOptions{})
	vulns := byType(doc, "vulnerability")
	if len(vulns) != 1 || vulns[0]["name"] != "CVE-2021-44228" {
		t.Fatalf("one vulnerability for the CVE expected: %v", vulns)
	}
	refs := vulns[0]["external_references"].([]any)
	cve := refs[0].(map[string]any)
	if cve["source_name"] != "cve" || cve["external_id"] != "CVE-2021-44228" {
		t.Errorf("first reference must be the CVE's: %v", cve)
	}
	if len(refs) != 2 || refs[1].(map[string]any)["url"] != "https://ti.example/r/kev/CVE-2021-44228" {
		t.Errorf("the matching resource must be referenced: %v", refs)
	}
	if len(byType(doc, "indicator")) != 2 {
		t.Errorf("indicators for the address and the URL only: %v", byType(doc, "indicator"))
	}
}

func TestSTIXDuplicatesOnce(t *testing.T) {
	r := oneValue(t)
	r.Indicators = append(r.Indicators, r.Indicators[0])
	_, doc := writeSTIX(t, r, STIXOptions{})
	if n, m := len(byType(doc, "ipv4-addr")), len(byType(doc, "indicator")); n != 1 || m != 1 {
		t.Errorf("a value given twice: %d observables and %d indicators, want 1 and 1", n, m)
	}
}

func TestSTIXGolden(t *testing.T) {
	raw, _ := writeSTIX(t, severalValues(t), STIXOptions{TLP: "green", Rand: rand.NewChaCha8([32]byte{1})})
	golden(t, "several.stix.json", raw)
}

func TestParseTLP(t *testing.T) {
	for in, want := range map[string]string{"clear": "clear", "AMBER+STRICT": "amber+strict", " TLP:Red ": "red", "tlp:green": "green"} {
		if got, err := ParseTLP(in); err != nil || got != want {
			t.Errorf("ParseTLP(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseTLP("White"); err == nil || !strings.Contains(err.Error(), "--tlp clear") {
		t.Errorf("white must point to clear, got %v", err)
	}
	for _, bad := range []string{"amber-strict", "", "TLP:"} {
		if _, err := ParseTLP(bad); err == nil || !strings.Contains(err.Error(), "clear, green, amber, amber+strict, red") {
			t.Errorf("ParseTLP(%q): want an error naming the levels, got %v", bad, err)
		}
	}
}

// An interrupted run's bundle says so in a note about every object; a
// complete one has no note.
func TestSTIXInterruptedNote(t *testing.T) {
	for _, interrupted := range []bool{false, true} {
		r := severalValues(t)
		r.Interrupted = interrupted
		raw, _ := writeSTIX(t, r, STIXOptions{TLP: "amber"})
		var b struct {
			Objects []struct {
				Type, ID, Abstract string
				ObjectRefs         []string `json:"object_refs"`
			}
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		var notes, others int
		for _, o := range b.Objects {
			switch o.Type {
			case "note":
				notes++
				if !strings.HasPrefix(o.Abstract, "Incomplete") || len(o.ObjectRefs) != len(b.Objects)-2 { // not the marking, not itself
					t.Errorf("note %q refers to %d of %d objects", o.Abstract, len(o.ObjectRefs), len(b.Objects))
				}
			default:
				others++
			}
		}
		if want := map[bool]int{false: 0, true: 1}[interrupted]; notes != want {
			t.Errorf("interrupted=%v: %d notes, want %d", interrupted, notes, want)
		}
	}
}

// validNotes validates each note of a bundle against the official note
// schema and returns the bundle without them. The official bundle schema
// cannot take a note (nor an opinion, grouping or location): it is not in
// its list of types, and its branch for other objects wants exactly one
// of the SDO and SCO cores, which every note matches both of.
func validNotes(t *testing.T, noteSchema *jsonschema.Schema, raw []byte) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(raw, &b); err != nil {
		t.Fatal(err)
	}
	var rest []any
	for _, o := range b["objects"].([]any) {
		if o.(map[string]any)["type"] != "note" {
			rest = append(rest, o)
			continue
		}
		one, _ := json.Marshal(o)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(one))
		if err != nil {
			t.Fatal(err)
		}
		if err := noteSchema.Validate(inst); err != nil {
			t.Errorf("not a valid STIX 2.1 note: %v\n%s", err, one)
		}
	}
	b["objects"] = rest
	out, _ := json.Marshal(b)
	return out
}
