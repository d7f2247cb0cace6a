package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/sandbox"
	"github.com/tilookup/tilookup/pkg/triage"
)

// A cidr warning list marks an address and the tool looks it up all the
// same, as the CLI's triage does; a string list still skips.
func TestTriageMarksCIDRWarninglists(t *testing.T) {
	cfg := sandboxConfig(t, sandbox.DemoToken)
	warn, err := triage.LoadWarninglists("../../testdata/warninglists")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Skipper = func() (*triage.Skipper, error) { return &triage.Skipper{Noise: true, Warn: warn}, nil }
	s := connect(t, cfg)
	res, out := s.call(t, "triage", map[string]any{"text": "C2 8.8.8.8, sample 44d88612fea8a8f36de82e1278abb02f"})
	if res.IsError {
		t.Fatal(text(res))
	}
	inds, _ := json.Marshal(out["indicators"])
	if !strings.Contains(string(inds), `"value":"8.8.8.8"`) || !strings.Contains(string(inds), `"warninglists":["List of known IPv4 public DNS resolvers"]`) {
		t.Errorf("indicators %s", inds)
	}
	skipped, _ := json.Marshal(out["skipped"])
	if !strings.Contains(string(skipped), `"reason":"warninglist: EICAR test file hashes"`) || strings.Contains(string(skipped), "8.8.8.8") {
		t.Errorf("skipped %s", skipped)
	}
}
