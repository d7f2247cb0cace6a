package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The repository's server.json, what the MCP registry publishes, validates
// against the registry's schema (testdata/server.schema.json, vendored
// from modelcontextprotocol/registry, docs/reference/server-json, the
// 2025-09-29 version that server.json names in $schema).
func TestServerJSONValidates(t *testing.T) {
	schemaFile := filepath.Join("testdata", "server.schema.json")
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	id := doc.(map[string]any)["$id"].(string)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "..", "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	server, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(server); err != nil {
		t.Fatalf("server.json: %v", err)
	}
	if got := server.(map[string]any)["$schema"]; got != id {
		t.Errorf("server.json names the schema %v, validated against %s", got, id)
	}
	// A document the schema refuses is refused: the test can fail.
	var bad map[string]any
	json.Unmarshal([]byte(`{"name": "no-slash", "description": "", "version": "1"}`), &bad)
	if schema.Validate(bad) == nil {
		t.Fatal("the schema accepts a server.json with no namespace and no description")
	}
}
