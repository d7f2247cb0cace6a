package watch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/watch"
)

func hostile() Change {
	one := json.Number("1")
	prev := "2026-11-23T07:00:00Z"
	return Change{Value: "evil.example", Type: "domain", Change: "new", CheckedAt: "2026-11-24T07:00:00Z", PreviousCheckedAt: &prev,
		Resources: []watch.Delta{{Resource: "r", Label: "=HYPERLINK(\"x\") |a| [l](http://x) \u202e\x1b[2J", After: &one}}}
}

// Every format keeps what the service sends from acting: no escape
// sequence or bidi override on a terminal, no formula in a spreadsheet,
// no table break, link or HTML in Markdown; indicators defanged where asked.
func TestPrintersNeutraliseHostileLabels(t *testing.T) {
	tests := []struct {
		format  output.Format
		tty     bool
		defang  bool
		want    []string
		notWant []string
	}{
		{output.JSON, true, false, []string{`"label":"=HYPERLINK(\"x\") |a| [l](http://x) \u202e\u001b[2J"`, "[\n{", "}\n]\n"}, []string{"\u202e", "\x1b"}},
		{output.JSON, false, false, []string{"\u202e"}, nil},
		{output.NDJSON, true, false, []string{`"before":null,"after":1`, `"previous_checked_at":"2026-11-23T07:00:00Z"`}, []string{"\u202e", "\x1b", "[" + "\n"}},
		{output.CSV, false, false, []string{"value,type,change,resource,label,before,after,checked_at,previous_checked_at,error\n", `evil.example,domain,new,r,"'=HYPERLINK(""x"")`}, nil},
		{output.CSV, false, true, []string{"evil[.]example,domain,new"}, nil},
		{output.MD, false, true, []string{"# Watch n: 1 changed, 0 failed", "| new | `evil[.]example` | domain |", `\|a\|`, "| - | 1 |"}, []string{"\x1b", "\u202e", "[l](http"}},
		{output.Table, true, false, []string{"new      evil.example  domain  "}, []string{"\x1b", "\u202e"}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		out := bufio.NewWriter(&b)
		w, err := newWriter(tt.format, out, "n", tt.tty, false, tt.defang)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(hostile()); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(time.Unix(0, 0), false); err != nil {
			t.Fatal(err)
		}
		out.Flush()
		got := b.String()
		for _, s := range tt.want {
			if !strings.Contains(got, s) {
				t.Errorf("%s tty=%v: no %q in\n%s", tt.format, tt.tty, s, got)
			}
		}
		for _, s := range tt.notWant {
			if strings.Contains(got, s) {
				t.Errorf("%s tty=%v: %q in\n%s", tt.format, tt.tty, s, got)
			}
		}
	}
}

func TestNoPrinterForAFormatWatchDoesNotWrite(t *testing.T) {
	if _, err := newWriter(output.STIX, bufio.NewWriter(&bytes.Buffer{}), "n", false, false, false); err == nil {
		t.Fatal("a writer for -o stix")
	}
}
