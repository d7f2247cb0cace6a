package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/report"
)

func markdown(t *testing.T, r *report.Report, defang bool) string {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, r, MarkdownOptions{Defang: defang}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestMarkdownGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		r    func(*testing.T) *report.Report
	}{
		{"one.md", oneValue},
		{"several.md", severalValues},
		{"triage.md", triageRun},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := markdown(t, c.r(t), true)
			golden(t, c.name, []byte(doc))
			checkMarkdownSafe(t, doc)
		})
	}
}

// checkMarkdownSafe reads doc the way GFM would and fails on anything the
// data could have made: a table row with another number of cells, a line
// that does not start as tilookup writes lines, raw HTML, an image, or a
// link that does not go to the service.
func checkMarkdownSafe(t *testing.T, doc string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(doc, "\n"), "\n") {
		switch {
		case line == "", strings.HasPrefix(line, "# "), strings.HasPrefix(line, "## "),
			strings.HasPrefix(line, "- "), strings.HasPrefix(line, "**"):
		case strings.HasPrefix(line, "| "):
			if n := unescapedPipes(line); n != 6 {
				t.Errorf("%d cell separators, want 6 (5 cells): %s", n, line)
			}
		default:
			t.Errorf("a line tilookup does not write (data broke out?): %q", line)
		}
		checkInline(t, line)
	}
}

// unescapedPipes counts the '|' that split a GFM table row: those not
// preceded by a backslash.
func unescapedPipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// checkInline scans one line outside code spans and escapes: no '<'
// (HTML), no "![" (image), and every "](" is one of our links to the
// service over https.
func checkInline(t *testing.T, line string) {
	t.Helper()
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\':
			i++
		case c == '`':
			fence := 1
			for i+fence < len(line) && line[i+fence] == '`' {
				fence++
			}
			end := strings.Index(line[i+fence:], strings.Repeat("`", fence))
			if end < 0 {
				t.Errorf("unclosed code span: %s", line)
				return
			}
			i += fence + end + fence - 1
		case c == '<':
			t.Errorf("raw '<' (HTML) at %d: %s", i, line)
		case c == '!' && i+1 < len(line) && line[i+1] == '[':
			t.Errorf("image at %d: %s", i, line)
		case c == ']' && i+1 < len(line) && line[i+1] == '(':
			if !strings.HasPrefix(line[i+2:], "https://ti.example/") {
				t.Errorf("link to somewhere else at %d: %s", i, line)
			}
			end := strings.IndexByte(line[i:], ')')
			if end < 0 {
				t.Errorf("unclosed link destination: %s", line)
				return
			}
			if dest := line[i+2 : i+end]; strings.ContainsAny(dest, " <>|`") {
				t.Errorf("link destination %q holds a character that breaks it", dest)
			}
			i += end
		}
	}
}

func TestMarkdownDefang(t *testing.T) {
	defanged := markdown(t, severalValues(t), true)
	for _, want := range []string{"`198[.]51[.]100[.]7`", "`hxxps[:]//login-update[.]example[.]net/verify?id=1`", "`quiet[.]example[.]org`"} {
		if !strings.Contains(defanged, want) {
			t.Errorf("defanged document lacks %s:\n%s", want, defanged)
		}
	}
	if !strings.Contains(defanged, "(https://ti.example/r/phish?id=9)") {
		t.Errorf("the service's link must stay live:\n%s", defanged)
	}
	live := markdown(t, severalValues(t), false)
	for _, want := range []string{"`198.51.100.7`", "`https://login-update.example.net/verify?id=1`"} {
		if !strings.Contains(live, want) {
			t.Errorf("--defang=false document lacks %s:\n%s", want, live)
		}
	}
	if one := markdown(t, oneValue(t), true); !strings.HasPrefix(one, "# `198[.]51[.]100[.]7`\n") {
		t.Errorf("the heading of one value is the value, defanged:\n%s", one)
	}
}

func TestMarkdownHostileLinks(t *testing.T) {
	doc := markdown(t, triageRun(t), true)
	if strings.Contains(doc, "](javascript") {
		t.Errorf("a javascript: detail_url became a link:\n%s", doc)
	}
	// The second result's URL keeps its meaning, percent-encoded where
	// Markdown would cut it; the entity is not decoded.
	if !strings.Contains(doc, "(https://ti.example/d?q=a%7Cb%29&amp;lt;x&amp;gt;%60)") {
		t.Errorf("hostile detail_url not made safe:\n%s", doc)
	}
}

func TestMarkdownCode(t *testing.T) {
	for in, want := range map[string]string{
		"plain":     "`plain`",
		"a`b":       "``a`b``",
		"`edge":     "`` `edge ``",
		"a``b`c":    "```a``b`c```",
		"p|q":       "`p\\|q`",
		"line\nbrk": "`line brk`",
		"":          "",
	} {
		if got := mdCode(in, true); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
	// Outside a table a backslash in code shows as itself: no escape.
	if got := mdCode("http://evil.example/x|y", false); got != "`http://evil.example/x|y`" {
		t.Errorf("mdCode in a list = %q", got)
	}
}

func TestMarkdownText(t *testing.T) {
	for in, want := range map[string]string{
		"Botnet C2":         "Botnet C2",
		"a|b":               `a\|b`,
		"![x](y)":           `\!\[x\]\(y\)`,
		"<b>&amp;":          `\<b\>\&amp;`,
		"www.evil.example":  `www\.evil.example`,
		"see http://x.test": `see http\://x.test`,
		"a.b: c":            "a.b: c",
		"mail a@b.example":  "mail `a@b.example`",
		"@here | x":         "`@here` \\| x",
		"x\ny\r\nz":         "x y z",
		"\x1b[31mred":       "␛red",
		"$x^2$ ~~s~~ _i_":   `\$x^2\$ \~\~s\~\~ \_i\_`,
	} {
		if got := mdText(in, true); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}

// A report of an interrupted run says it is incomplete, so that a ticket
// pasted from it does not pass for the whole picture.
func TestMarkdownSaysInterrupted(t *testing.T) {
	var b strings.Builder
	r := &report.Report{Title: "Search of 2 values", Interrupted: true}
	if err := Markdown(&b, r, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "**Incomplete:**") {
		t.Fatalf("no incomplete marker:\n%s", b.String())
	}
	b.Reset()
	r.Interrupted = false
	_ = Markdown(&b, r, MarkdownOptions{})
	if strings.Contains(b.String(), "Incomplete") {
		t.Fatalf("a complete run is marked incomplete:\n%s", b.String())
	}
}
