package watch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/report"
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
		{output.Table, true, false, []string{"new     evil.example  domain  =HYPERLINK"}, []string{"\x1b", "\u202e"}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		out := bufio.NewWriter(&b)
		w, err := newWriter(tt.format, out, "n", tt.tty, false, 0, export.Options{Defang: tt.defang})
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
	if _, err := newWriter(output.STIX, bufio.NewWriter(&bytes.Buffer{}), "n", false, false, 0, export.Options{}); err == nil {
		t.Fatal("a writer for -o stix")
	}
}

// At 80 columns the table fits and stays aligned, and the resources, the
// news, show whole, one line each: the value gives up its width instead.
func TestTableFitsTheTerminal(t *testing.T) {
	var b bytes.Buffer
	out := bufio.NewWriter(&b)
	w, _ := newWriter(output.Table, out, "n", true, false, 80, export.Options{})
	before, after := json.Number("5"), json.Number("14")
	changes := []Change{
		{Value: "login-update.example.net", Type: "domain", Change: "new", Resources: []watch.Delta{
			{Resource: "a", Label: "Passive DNS", After: &after}, {Resource: "b", Label: "Domain intelligence", After: &after},
			{Resource: "c", Label: "Phishing URLs", After: &after}, {Resource: "d", Label: "Exploitation observed (demo sensors)", After: &after}}},
		{Value: strings.Repeat("ab", 32), Type: "sha256", Change: "changed", Resources: []watch.Delta{
			{Resource: "e", Label: "Sandbox detonations", Before: &before, After: &after}}},
	}
	for _, c := range changes {
		if err := w.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(time.Unix(0, 0), false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	col := strings.Index(lines[0], "RESOURCE")
	n := 0
	for _, c := range changes {
		for _, d := range c.Resources {
			n++
			want := d.Label + " " + countText(d.Before) + "→" + countText(d.After)
			if n >= len(lines) || !strings.HasSuffix(lines[n], want) || utf8.RuneCountInString(lines[n])-utf8.RuneCountInString(want) != col {
				t.Errorf("line %d: want %q whole, at column %d:\n%s", n, want, col, b.String())
			}
		}
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("%d runes: %q", utf8.RuneCountInString(l), l)
		}
	}
	if len(lines) != n+1 {
		t.Errorf("%d lines for a header and %d resources:\n%s", len(lines), n, b.String())
	}
}

// TestEveryWatchFormatIsWritten: each format the registry lists for
// watch has a writer, the documents' through pkg/export's printer layer.
func TestEveryWatchFormatIsWritten(t *testing.T) {
	for _, f := range format.For("watch") {
		var b bytes.Buffer
		out := bufio.NewWriter(&b)
		w, err := newWriter(f, out, "n", false, false, 0, export.Options{})
		if err == nil {
			err = w.Add(hostile())
		}
		if err == nil {
			err = w.Close(time.Unix(0, 0), false)
		}
		if err != nil || b.Len() == 0 {
			t.Errorf("-o %s: %d bytes, %v", f, b.Len(), err)
		}
	}
}

// TestChangesAsAReport: the layer's printers read a run's changes as a
// report: a value with the resources it matches now, a failed one with
// its error, a gone one matching nothing.
func TestChangesAsAReport(t *testing.T) {
	two := json.Number("2")
	d := &changes{name: "n", at: time.Unix(0, 0), interrupted: true, rows: []Change{
		hostile(),
		{Value: "gone.example", Type: "domain", Change: string(watch.KindGone), Resources: []watch.Delta{{Resource: "r", Before: &two}}},
		{Value: "203.0.113.9", Type: "ipv4", Change: watch.ErrorChange, Error: &watch.ErrorInfo{Kind: "server", Message: "503"}},
	}}
	r := d.Report()
	if r.Title != "Watch n" || !r.Interrupted || len(r.Indicators) != len(d.rows) {
		t.Fatalf("report %+v", r)
	}
	want := []report.Status{report.Matched, report.NoMatch, report.Failed}
	for i, in := range r.Indicators {
		if in.Value != d.rows[i].Value || in.Status() != want[i] {
			t.Errorf("%s: %s, want %s", in.Value, in.Status(), want[i])
		}
	}
	if got := r.Indicators[0].Resp.Results[0].Count; got != "1" {
		t.Errorf("count now %q, want the one after the change", got)
	}
}
