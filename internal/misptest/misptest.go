// Package misptest checks MISP events against MISP's own files, for the
// tests of every command that writes one (pkg/export, pkg/pivot,
// pkg/cmd/watch): one schema and one type check, so that a fix to either
// reaches them all. Only tests import it.
package misptest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// File is ../shared/misp/name beside the repository (the directory of
// go.mod, found from the test's working directory); under CI=true a
// missing file fails the test, as the STIX schemas do, elsewhere it skips.
func File(t testing.TB, name string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
	path := filepath.Join(dir, "..", "shared", "misp", name)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("MISP's %s is missing at %s: CI must check the events against it", name, path)
		}
		t.Skipf("%s not found at %s (../shared/misp beside the repository): not checked", name, path)
	}
	return path
}

// Schema compiles MISP's event schema (format 2.4, draft-04).
func Schema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(File(t, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	// MISP's schema has one slip: defs.sharing_group lists its
	// "required" array among its properties, which the draft-04
	// metaschema refuses. The array is moved out of the way (tilookup
	// writes no sharing group, so nothing checked is lost); any other
	// defect still fails the compilation.
	sg := doc.(map[string]any)["defs"].(map[string]any)["sharing_group"].(map[string]any)
	if props := sg["properties"].(map[string]any); props["required"] != nil {
		if _, isArray := props["required"].([]any); !isArray {
			t.Fatalf("schema.json changed: sharing_group's property \"required\" is no longer the misplaced array")
		}
		delete(props, "required")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	if err := c.AddResource("file:///misp/schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("file:///misp/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// DescribeTypes is PyMISP's describeTypes.json: the attribute types, each
// one's default category and to_ids, and which types each category allows.
type DescribeTypes struct {
	Result struct {
		Types        []string `json:"types"`
		SaneDefaults map[string]struct {
			DefaultCategory string `json:"default_category"`
			ToIDS           int    `json:"to_ids"`
		} `json:"sane_defaults"`
		CategoryTypeMappings map[string][]string `json:"category_type_mappings"`
	} `json:"result"`
}

// LoadDescribeTypes reads ../shared/misp/describeTypes.json.
func LoadDescribeTypes(t testing.TB) DescribeTypes {
	t.Helper()
	raw, err := os.ReadFile(File(t, "describeTypes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d DescribeTypes
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Result.Types) == 0 || len(d.Result.CategoryTypeMappings) == 0 {
		t.Fatal("describeTypes.json has no types or categories")
	}
	return d
}

// Attribute is what CheckTypes reads of an attribute.
type Attribute struct {
	Type     string `json:"type"`
	Category string `json:"category"`
}

// CheckTypes reports the attributes whose type MISP does not know or
// whose category does not allow it.
func (d DescribeTypes) CheckTypes(attrs []Attribute) []string {
	var bad []string
	for _, a := range attrs {
		if !slices.Contains(d.Result.Types, a.Type) {
			bad = append(bad, a.Type+" is not a MISP type")
		} else if !slices.Contains(d.Result.CategoryTypeMappings[a.Category], a.Type) {
			bad = append(bad, "category "+a.Category+" does not allow "+a.Type)
		}
	}
	return bad
}

// Valid fails t unless raw is one event that MISP's schema accepts, made
// only of types MISP knows, each in a category that allows it.
func Valid(t testing.TB, name string, raw []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	if err := Schema(t).Validate(inst); err != nil {
		t.Errorf("%s: not a valid MISP event: %v\n%s", name, err, raw)
	}
	var ev struct {
		Event struct {
			Attribute []Attribute `json:"Attribute"`
		} `json:"Event"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if bad := LoadDescribeTypes(t).CheckTypes(ev.Event.Attribute); len(bad) > 0 {
		t.Errorf("%s: %v", name, bad)
	}
}
