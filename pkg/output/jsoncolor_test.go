package output

import (
	"bytes"
	"regexp"
	"testing"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestColorJSONKeepsEveryByte(t *testing.T) {
	src := []byte(`{
  "query": "a\"b: c",
  "n": 18446744073709551617,
  "ok": true,
  "none": null,
  "list": ["x", {"k": "null"}]
}`)
	got := colorJSON(src)
	if plain := ansi.ReplaceAll(got, nil); !bytes.Equal(plain, src) {
		t.Fatalf("without colour:\n%s\nwant\n%s", plain, src)
	}
	for _, want := range []string{
		colorKey + `"query"` + colorReset,
		colorString + `"a\"b: c"` + colorReset,
		colorKey + `"k"` + colorReset + `: ` + colorString + `"null"` + colorReset,
		colorNull + "null" + colorReset,
		"18446744073709551617",
	} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("%q not in %q", want, got)
		}
	}
}

// -o json is coloured at a terminal with colour on, and only there.
func TestJSONColourOnlyAtAColourTerminal(t *testing.T) {
	for _, tt := range []struct {
		tty, color, want bool
	}{{true, true, true}, {true, false, false}, {false, true, false}} {
		var out bytes.Buffer
		p, err := NewSearchPrinter(Options{Out: &out, Format: JSON, TTY: tt.tty, Color: tt.color}, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Add(rec(t, "192.0.2.1", "basic")); err != nil {
			t.Fatal(err)
		}
		if got := ansi.Match(out.Bytes()); got != tt.want {
			t.Errorf("tty %v color %v: coloured %v\n%s", tt.tty, tt.color, got, out.String())
		}
	}
}

// Colour never lets data reach the terminal as a control sequence: the
// sanitizer runs first, and our sequences wrap whole tokens.
func TestJSONColourIsTerminalSafe(t *testing.T) {
	var out bytes.Buffer
	p, _ := NewSearchPrinter(Options{Out: &out, Format: JSON, TTY: true, Color: true}, false)
	if err := p.Add(evilRec(t)); err != nil {
		t.Fatal(err)
	}
	assertTerminalSafe(t, ansi.ReplaceAll(out.Bytes(), nil))
}
