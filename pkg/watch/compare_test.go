package watch

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tilookup/tilookup/pkg/api"
)

func answer(results ...api.Result) *api.SearchResponse { return &api.SearchResponse{Results: results} }

func res(id string, count string, preview ...map[string]any) api.Result {
	return api.Result{Resource: id, Label: "L " + id, Count: json.Number(count), Preview: preview}
}

func num(s string) *json.Number { n := json.Number(s); return &n }

func TestCompare(t *testing.T) {
	rec := map[string]any{"ip": "203.0.113.7", "seen": json.Number("3")}
	rec2 := map[string]any{"ip": "203.0.113.8"}
	tests := []struct {
		name   string
		prev   *api.SearchResponse // nil: never answered
		cur    *api.SearchResponse
		kind   Kind
		deltas []Delta
	}{
		{"first run, no match", nil, answer(), KindNone, nil},
		{"first run, match is new", nil, answer(res("a", "2")), KindNew,
			[]Delta{{Resource: "a", Label: "L a", After: num("2")}}},
		{"no match, then a match is new", answer(), answer(res("a", "1"), res("b", "4")), KindNew,
			[]Delta{{Resource: "a", Label: "L a", After: num("1")}, {Resource: "b", Label: "L b", After: num("4")}}},
		{"match, then none is gone", answer(res("a", "1")), answer(), KindGone,
			[]Delta{{Resource: "a", Label: "L a", Before: num("1")}}},
		{"same answer", answer(res("a", "1", rec)), answer(res("a", "1", rec)), KindNone, nil},
		{"resource order does not matter", answer(res("a", "1"), res("b", "2")), answer(res("b", "2"), res("a", "1")), KindNone, nil},
		{"preview record order does not matter", answer(res("a", "2", rec, rec2)), answer(res("a", "2", rec2, rec)), KindNone, nil},
		{"count changed", answer(res("a", "1"), res("b", "2")), answer(res("a", "1"), res("b", "5")), KindChanged,
			[]Delta{{Resource: "b", Label: "L b", Before: num("2"), After: num("5")}}},
		{"same count written otherwise", answer(res("a", "3")), answer(res("a", "3.0")), KindNone, nil},
		{"a resource appeared", answer(res("a", "1")), answer(res("a", "1"), res("c", "9")), KindChanged,
			[]Delta{{Resource: "c", Label: "L c", After: num("9")}}},
		{"a resource went", answer(res("a", "1"), res("c", "9")), answer(res("a", "1")), KindChanged,
			[]Delta{{Resource: "c", Label: "L c", Before: num("9")}}},
		{"preview changed, count not", answer(res("a", "1", rec)), answer(res("a", "1", rec2)), KindChanged,
			[]Delta{{Resource: "a", Label: "L a", Before: num("1"), After: num("1")}}},
		{"count past 2^53 exactly", answer(res("a", "9007199254740993")), answer(res("a", "9007199254740992")), KindChanged,
			[]Delta{{Resource: "a", Label: "L a", Before: num("9007199254740993"), After: num("9007199254740992")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels := map[string]string{}
			var prev *Entry
			if tt.prev != nil {
				prev = EntryOf(tt.prev, 1, labels)
			}
			cur := EntryOf(tt.cur, 2, labels)
			kind, deltas := Compare(prev, cur, labels)
			if kind != tt.kind {
				t.Fatalf("kind = %q, want %q", kind, tt.kind)
			}
			got, _ := json.Marshal(deltas)
			want, _ := json.Marshal(tt.deltas)
			if string(got) != string(want) {
				t.Fatalf("deltas\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestStateRoundTripAndRefusals(t *testing.T) {
	st := New("case-42", "default", "https://ti.example")
	st.Values["evil.example"] = EntryOf(answer(res("a", "2", map[string]any{"k": "v"})), 100, st.Labels)
	st.Values["nothing.example"] = EntryOf(answer(), 100, st.Labels)
	var b bytes.Buffer
	if err := st.Encode(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b.Bytes(), "case-42")
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, b.Bytes())
	}
	if k, _ := Compare(st.Values["evil.example"], got.Values["evil.example"], got.Labels); k != KindNone || got.Labels["a"] != "L a" || len(got.Values) != 2 {
		t.Fatalf("round trip lost something: %+v", got)
	}
	bad := map[string]string{
		"not JSON":      "{",
		"truncated":     string(b.Bytes()[:b.Len()/2]),
		"foreign":       `{"base_url":"x"}`,
		"other version": `{"format":"tilookup-watch-state","version":2,"name":"case-42","values":{}}`,
		"other name":    `{"format":"tilookup-watch-state","version":1,"name":"other","values":{}}`,
		"no values":     `{"format":"tilookup-watch-state","version":1,"name":"case-42"}`,
		"null entry":    `{"format":"tilookup-watch-state","version":1,"name":"case-42","values":{"x":null}}`,
		"bad resource":  `{"format":"tilookup-watch-state","version":1,"name":"case-42","values":{"x":{"t":1,"r":[{"id":""}]}}}`,
		"trailing data": `{"format":"tilookup-watch-state","version":1,"name":"case-42","values":{}} {}`,
	}
	for name, doc := range bad {
		if _, err := Decode([]byte(doc), "case-42"); err == nil {
			t.Errorf("%s: decoded, want an error", name)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"case-42", "a", "ours.v2", "A_b"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".hidden", "../x", "a/b", "a b", "-x", string(make([]byte, 65))} {
		if CheckName(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The state's hand-written JSON is what encoding/json would write, for
// every kind of string a value or a resource id may hold.
func TestEntryJSONMatchesEncodingJSON(t *testing.T) {
	for _, e := range []*Entry{
		{At: 1},
		{At: 1795549773, Resources: []Resource{{ID: "a", Count: "3", Digest: "0123456789ab"}, {ID: `q"\\<&>\u202e\x01é`, Count: "9007199254740993"}}},
	} {
		want, _ := json.Marshal(e)
		if got := e.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON\n got %s\nwant %s", got, want)
		}
	}
	for _, s := range []string{"plain.example", `a"b`, `a\\b`, "<x>", "tab\t", "é", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
	if e := EntryOf(answer(res("a", "not a number"), res("b", "")), 1, nil); e.Resources[0].Count != "0" || e.Resources[1].Count != "0" {
		t.Errorf("a count that is not a number went into the state: %+v", e.Resources)
	}
}

// The fast reader of Encode's layout and encoding/json read the same
// state; a file in any other layout is read by encoding/json.
func TestDecodeLinesMatchesEncodingJSON(t *testing.T) {
	st := New("l", "default", "https://ti.example")
	st.Values["plain.example"] = EntryOf(answer(), 5, st.Labels)
	st.Values[`quote"d\\`] = EntryOf(answer(res("a", "2", map[string]any{"k": "v"})), 6, st.Labels)
	st.Values["203.0.113.7"] = EntryOf(answer(res("b", "9007199254740993"), res("a", "1")), 7, st.Labels)
	var b bytes.Buffer
	st.Encode(&b)
	if _, ok := decodeLines(b.Bytes()); ok {
		// the escaped key sends the whole file to the slow path
		t.Fatalf("an escaped key was read by the fast path")
	}
	delete(st.Values, `quote"d\\`)
	b.Reset()
	st.Encode(&b)
	fast, ok := decodeLines(b.Bytes())
	if !ok {
		t.Fatalf("Encode's own layout not read by the fast path:\n%s", b.Bytes())
	}
	var slow State
	dec := json.NewDecoder(bytes.NewReader(b.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(&slow); err != nil {
		t.Fatal(err)
	}
	f, _ := json.Marshal(fast)
	s, _ := json.Marshal(slow)
	if string(f) != string(s) {
		t.Fatalf("fast\n%s\nslow\n%s", f, s)
	}
	// jq's layout (indented) goes the slow way and reads the same
	var ind bytes.Buffer
	json.Indent(&ind, b.Bytes(), "", "  ")
	got, err := Decode(ind.Bytes(), "l")
	if err != nil || len(got.Values) != 2 {
		t.Fatalf("indented state: %v, %+v", err, got)
	}
}
