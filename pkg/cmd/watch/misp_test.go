package watch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/internal/misptest"
	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/watch"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// mispChanges is one run of every kind: a first sight, a change of count,
// a change of preview only, a gone value, a failed one, and a value with
// quotes, a newline and <script> in it and its label.
func mispChanges() []Change {
	n := func(s string) *json.Number { v := json.Number(s); return &v }
	prev := "2026-11-23T07:00:00Z"
	now := "2026-11-24T07:00:00Z"
	return []Change{
		{Value: "44d88612fea8a8f36de82e1278abb02f", Type: "md5", Change: "new", CheckedAt: now,
			Resources: []watch.Delta{{Resource: "malware_samples", Label: "Malware samples", After: n("1")}, {Resource: "ioc_feed", After: n("2")}},
			Pages:     []api.Result{{Resource: "malware_samples", Label: "Malware samples", DetailURL: "https://ti.example/samples/44d8"}, {Resource: "ioc_feed", DetailURL: "javascript:alert(1)"}}},
		{Value: "203.0.113.66", Type: "ipv4", Change: "changed", CheckedAt: now, PreviousCheckedAt: &prev,
			Resources: []watch.Delta{{Resource: "passive_dns", Label: "Passive DNS", Before: n("5"), After: n("6")}, {Resource: "c2", Label: "C2", Before: n("1")}, {Resource: "pdns", Label: "Sandbox detonations", Before: n("7"), After: n("7")}}},
		{Value: "gone.example.net", Type: "domain", Change: "gone", CheckedAt: now, PreviousCheckedAt: &prev,
			Resources: []watch.Delta{{Resource: "passive_dns", Label: "Passive DNS", Before: n("1")}}},
		{Value: "failed.example.net", Type: "domain", Change: "error", CheckedAt: now, PreviousCheckedAt: &prev,
			Error: &watch.ErrorInfo{Kind: "server", Message: "503 Service Unavailable"}},
		{Value: "https://evil.example/\"q\"\n<script>alert(1)</script>", Type: "url", Change: "new", CheckedAt: now,
			Resources: []watch.Delta{{Resource: "r\"1", Label: "Feed \"x\"\n<script>alert('l')</script>", After: n("3")}}},
	}
}

func writeMISPEvent(t *testing.T, name string, changes []Change, opts export.Options, interrupted bool) []byte {
	t.Helper()
	var b bytes.Buffer
	out := bufio.NewWriter(&b)
	w, err := newWriter(output.MISP, out, name, false, false, 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if err := w.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC), interrupted); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type mispAttribute struct {
	UUID, Type, Value, Comment string
	ToIDS                      bool `json:"to_ids"`
}

func decodeEvent(t *testing.T, raw []byte) (info string, tags []string, attrs map[string]mispAttribute) {
	t.Helper()
	var ev struct {
		Event struct {
			Info      string                  `json:"info"`
			Tag       []struct{ Name string } `json:"Tag"`
			Attribute []mispAttribute         `json:"Attribute"`
		} `json:"Event"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	attrs = map[string]mispAttribute{}
	for _, a := range ev.Event.Attribute {
		attrs[a.Value] = a
	}
	for _, tag := range ev.Event.Tag {
		tags = append(tags, tag.Name)
	}
	return ev.Event.Info, tags, attrs
}

func TestMISPEventGolden(t *testing.T) {
	got := writeMISPEvent(t, "case-42", mispChanges(), export.Options{TLP: "amber", Rand: rand.NewChaCha8([32]byte{4})}, false)
	misptest.Valid(t, "watch", got)
	path := filepath.Join("testdata", "watch.misp.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./pkg/cmd/watch -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the event differs from %s (go test ./pkg/cmd/watch -update):\n%s", path, got)
	}
	// An empty run is a valid event too: a cron job imports it as is.
	misptest.Valid(t, "nothing changed", writeMISPEvent(t, "case-42", nil, export.Options{}, true))
}

// TestMISPEventChangedOnly: new and changed values are attributes with
// their counts before and after; gone and failed ones are not.
func TestMISPEventChangedOnly(t *testing.T) {
	info, tags, attrs := decodeEvent(t, writeMISPEvent(t, "case-42", mispChanges(), export.Options{TLP: "red"}, true))
	if want := "tilookup: Watch case-42, 3 new or changed values, 2026-11-24 07:00:00 UTC (interrupted: not every value was looked up)"; info != want {
		t.Errorf("info %q, want %q", info, want)
	}
	if len(tags) != 1 || tags[0] != "tlp:red" {
		t.Errorf("tags %v", tags)
	}
	for value, want := range map[string]string{
		"44d88612fea8a8f36de82e1278abb02f": "New (first check in watch case-42): Malware samples: none → 1; ioc_feed: none → 2",
		"203.0.113.66":                     "Changed (since the check of 2026-11-23T07:00:00Z in watch case-42): Passive DNS: 5 → 6; C2: 1 → none; Sandbox detonations: 7 → 7 (preview records changed)",
	} {
		if a, ok := attrs[value]; !ok || a.Comment != want {
			t.Errorf("%s: comment %q, want %q", value, a.Comment, want)
		}
	}
	for _, value := range []string{"gone.example.net", "failed.example.net"} {
		if _, ok := attrs[value]; ok {
			t.Errorf("%s is an attribute", value)
		}
	}
	// A detail page is a link attribute, as in search's events; a
	// javascript: one is none.
	if a := attrs["https://ti.example/samples/44d8"]; a.Type != "link" || a.Comment != "tilookup detail page of Malware samples: 44d88612fea8a8f36de82e1278abb02f" {
		t.Errorf("link attribute %+v", a)
	}
	if len(attrs) != 4 {
		t.Errorf("%d attributes, want 4: %v", len(attrs), attrs)
	}
	for _, a := range attrs {
		if a.ToIDS {
			t.Errorf("%s: to_ids without --to-ids", a.Value)
		}
	}
}

func TestMISPEventUUIDsStable(t *testing.T) {
	_, _, a := decodeEvent(t, writeMISPEvent(t, "one", mispChanges(), export.Options{}, false))
	// Another run, another list name, the value now changed: the same
	// attribute, so that importing it updates the one already in MISP.
	later := mispChanges()[:1]
	later[0].Change = "changed"
	_, _, b := decodeEvent(t, writeMISPEvent(t, "two", later, export.Options{ToIDS: true}, false))
	before, after := a["44d88612fea8a8f36de82e1278abb02f"], b["44d88612fea8a8f36de82e1278abb02f"]
	if before.UUID == "" || before.UUID != after.UUID {
		t.Errorf("uuid %q then %q", before.UUID, after.UUID)
	}
	if !after.ToIDS || !strings.HasPrefix(after.Comment, "Changed") {
		t.Errorf("--to-ids and the change: %+v", after)
	}
}
