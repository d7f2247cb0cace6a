package search

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/output"
)

func documentHarness(t *testing.T, format output.Format, args ...string) *harness {
	h := newHarness(t, args...)
	h.opts.Output = func(jq string) (output.Options, error) { return output.Options{Format: format, JQ: jq}, nil }
	return h
}

// A document lists every value in input order, asks each distinct value
// once, keeps failed values, and exits as any other format would.
func TestMarkdownDocumentOfSeveralValues(t *testing.T) {
	h := documentHarness(t, output.MD, "b.example", "a.example", "gone.example", "b.example")
	// The first value answers last: the document still follows the input.
	b := h.reg.Register("b", httpmock.Query("q", "b.example"), httpmock.Delay(20*time.Millisecond, httpmock.JSON(answer("b.example", 2))))
	h.reg.Register("a", httpmock.Query("q", "a.example"), httpmock.JSON(answer("a.example", 0)))
	h.reg.Register("gone", httpmock.Query("q", "gone.example"), httpmock.Status(503, nil, "down"))

	err := h.run(t)
	if got := exitCode(err); got != 6 {
		t.Fatalf("exit code %d (%v), want 6 for the failed value", got, err)
	}
	h.reg.Verify(t)
	if b.Calls() != 1 {
		t.Errorf("b.example asked %d times, want once", b.Calls())
	}
	doc := h.out.String()
	for _, want := range []string{
		"# Search of 4 values\n",
		"**4 indicators**: 2 matched, 1 no match, 1 failed.",
		"| `b[.]example` | domain | R0 |",
		"## No match\n\n- `a[.]example` (domain)\n",
		"## Failed\n\n- `gone[.]example` (domain): ",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q:\n%s", want, doc)
		}
	}
	if strings.Count(doc, "# Search") != 1 {
		t.Errorf("one document expected:\n%s", doc)
	}
	if !strings.Contains(h.errOut.String(), "4 values: 2 matched, 1 no match, 0 unsupported, 1 failed") {
		t.Errorf("closing line missing on stderr: %q", h.errOut.String())
	}
}

func TestMarkdownDefangFlag(t *testing.T) {
	for _, c := range []struct {
		defang, set bool
		want        string
	}{
		{false, false, "`b[.]example`"}, // default: defanged
		{true, true, "`b[.]example`"},
		{false, true, "`b.example`"}, // --defang=false
	} {
		h := documentHarness(t, output.MD, "b.example")
		h.reg.Register("b", httpmock.Any(), httpmock.JSON(answer("b.example", 1)))
		h.opts.Defang, h.opts.DefangSet = c.defang, c.set
		if err := h.run(t); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(h.out.String(), "# "+c.want+"\n") {
			t.Errorf("--defang=%v (given: %v): want heading %s, got:\n%s", c.defang, c.set, c.want, h.out.String())
		}
	}
}

func TestSTIXDocument(t *testing.T) {
	h := documentHarness(t, output.STIX, "b.example")
	h.reg.Register("b", httpmock.Any(), httpmock.JSON(answer("b.example", 1)))
	h.opts.TLP = "AMBER"
	if err := h.run(t); err != nil {
		t.Fatal(err)
	}
	var bundle struct {
		Type    string           `json:"type"`
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(h.out.Bytes(), &bundle); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, h.out.String())
	}
	types := []string{}
	for _, o := range bundle.Objects {
		types = append(types, o["type"].(string))
	}
	if got := strings.Join(types, " "); got != "identity marking-definition domain-name indicator relationship" {
		t.Errorf("objects %s", got)
	}
}

// Flags are checked before anything is sent.
func TestDocumentFlagsRefusedEarly(t *testing.T) {
	for format, tlp := range map[output.Format]string{output.MD: "red", output.STIX: "purple", output.JSON: "clear"} {
		h := documentHarness(t, format, "b.example")
		h.opts.TLP = tlp
		err := h.run(t)
		if exitCode(err) != 2 || h.reg.Requests() != 0 {
			t.Errorf("-o %s --tlp %s: exit %d after %d requests, want 2 before any (%v)", format, tlp, exitCode(err), h.reg.Requests(), err)
		}
	}
}
