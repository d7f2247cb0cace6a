package pivot

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/internal/misptest"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/output/format"
)

// mispEvent writes g's event with a fixed source for the event's UUID.
func mispEvent(t *testing.T, g *Graph, opts export.Options) []byte {
	t.Helper()
	opts.Rand = rand.NewChaCha8([32]byte{7})
	var b bytes.Buffer
	if err := writeDoc(&b, format.MISP, g, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type mispAttribute struct {
	UUID, Type, Category, Value, Comment string
	ToIDS                                bool `json:"to_ids"`
}

func mispAttributes(t *testing.T, raw []byte) (info string, attrs []mispAttribute) {
	t.Helper()
	var ev struct {
		Event struct {
			Info      string          `json:"info"`
			Attribute []mispAttribute `json:"Attribute"`
		} `json:"Event"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("%v\n%s", err, raw)
	}
	return ev.Event.Info, ev.Event.Attribute
}

func TestMISPGolden(t *testing.T) {
	for name, mk := range map[string]func(*testing.T) *Graph{"sample": sample, "hostile": hostile} {
		got := mispEvent(t, mk(t), export.Options{TLP: "amber"})
		misptest.Valid(t, name, got)
		path := filepath.Join("testdata", name+".misp.json")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./pkg/pivot -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (go test ./pkg/pivot -update):\n%s", name, path, got)
		}
	}
}

// TestMISPMatchedOnly: every matched node is an attribute, nothing else
// is, and every edge between two of them is named on both sides.
func TestMISPMatchedOnly(t *testing.T) {
	g := sample(t)
	info, attrs := mispAttributes(t, mispEvent(t, g, export.Options{}))
	if want := "tilookup: Pivot from root.example.com, depth 2, 2026-11-24 12:00:00 UTC"; info != want {
		t.Errorf("info %q, want %q", info, want)
	}
	g.Summary.Incomplete = true // as a walk stopped by Ctrl-C leaves it
	if info, _ := mispAttributes(t, mispEvent(t, g, export.Options{})); !strings.HasSuffix(info, " (interrupted: not every value was looked up)") {
		t.Errorf("an interrupted walk's event says so: %q", info)
	}
	g.Summary.Incomplete = false
	byValue := map[string]mispAttribute{}
	for _, a := range attrs {
		if a.Type != "link" {
			byValue[a.Value] = a
		}
	}
	statuses := map[Status]int{}
	byID := map[string]*Node{}
	for _, n := range g.Nodes {
		byID[n.ID] = n
		statuses[n.Status]++
		_, in := byValue[n.Value]
		if in != (n.Status == Matched) {
			t.Errorf("%s (%s): attribute %v", n.Value, n.Status, in)
		}
	}
	if statuses[Matched] == 0 || statuses[NoMatch]+statuses[NotLookedUp] == 0 {
		t.Fatalf("the sample must have matched and unmatched nodes: %v", statuses)
	}
	kept := 0
	for _, e := range g.Edges {
		from, to := byID[e.From], byID[e.To]
		label := resourceLabel(from, e.Resource)
		named := strings.Contains(byValue[from.Value].Comment, to.Value+" (in the preview of "+label+", field "+e.Field+")")
		back := strings.Contains(byValue[to.Value].Comment, from.Value+" (whose preview of "+label+" names this value")
		both := from.Status == Matched && to.Status == Matched
		if both {
			kept++
		}
		if named != both || back != both {
			t.Errorf("edge %s -> %s (%s, %s): named %v, back %v", from.Value, to.Value, from.Status, to.Status, named, back)
		}
	}
	if kept == 0 {
		t.Fatal("the sample has no edge between two matched nodes")
	}
}

func TestMISPStableUUIDs(t *testing.T) {
	_, a := mispAttributes(t, mispEvent(t, sample(t), export.Options{}))
	_, b := mispAttributes(t, mispEvent(t, sample(t), export.Options{ToIDS: true}))
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d attributes", len(a), len(b))
	}
	ids := false
	for i := range a {
		if a[i].UUID != b[i].UUID || a[i].Value != b[i].Value {
			t.Errorf("%s: %s then %s", a[i].Value, a[i].UUID, b[i].UUID)
		}
		if a[i].ToIDS {
			t.Errorf("%s: to_ids without --to-ids", a[i].Value)
		}
		ids = ids || b[i].ToIDS
	}
	if !ids {
		t.Error("--to-ids flagged nothing")
	}
}

// TestMISPCommentsNameResourcesByLabel: a comment names the resource as
// people read it (its label), with no possessive on an id.
func TestMISPCommentsNameResourcesByLabel(t *testing.T) {
	_, attrs := mispAttributes(t, mispEvent(t, sample(t), export.Options{}))
	named := 0
	for _, a := range attrs {
		if strings.Contains(a.Comment, "'s ") || strings.Contains(a.Comment, "rel preview") {
			t.Errorf("comment names the resource by id: %s", a.Comment)
		}
		if strings.Contains(a.Comment, "(in the preview of Relations, field seen)") {
			named++
		}
	}
	if named == 0 {
		t.Error("no comment names the resource by its label")
	}
}
