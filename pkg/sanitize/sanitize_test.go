package sanitize

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"plain", "192.0.2.1", "192.0.2.1"},
		{"unicode kept", "café 中文 \ufffd", "café 中文 \ufffd"},
		{"tab and lf", "a\tb\nc", "a b c"},
		{"crlf is one space", "a\r\nb", "a b"},
		{"lone cr", "a\rb", "a b"},
		{"vt ff", "a\vb\fc", "a b c"},
		{"bel", "a\x07b", "a␇b"},
		{"bs", "a\bb", "a␈b"},
		{"nul", "\x00", "␀"},
		{"del", "a\x7fb", "a␡b"},
		{"clear screen", "x\x1b[2Jy", "x␛y"},
		{"sgr", "\x1b[1;31mred\x1b[0m", "␛red␛"},
		{"csi private and intermediate", "\x1b[?25l\x1b[0 q.", "␛␛."},
		{"osc 8 hyperlink bel", "\x1b]8;;https://evil.test/\x07click\x1b]8;;\x07", "␛click␛"},
		{"osc 8 hyperlink st", "\x1b]8;;https://evil.test/\x1b\\click\x1b]8;;\x1b\\", "␛click␛"},
		{"osc 52 clipboard", "a\x1b]52;c;cm0gLXJmIC8K\x07b", "a␛b"},
		{"osc unterminated swallows rest", "a\x1b]0;title", "a␛"},
		{"osc ended by another esc", "a\x1b]0;t\x1b[2Jb", "a␛␛b"},
		{"osc aborted by can", "a\x1b]0;t\x18b", "a␛b"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", "a␛b"},
		{"apc", "a\x1b_Gf=100;AAAA\x1b\\b", "a␛b"},
		{"single char escape", "a\x1bcb", "a␛b"},
		{"charset designation", "a\x1b(Bb", "a␛b"},
		{"decaln", "a\x1b#8b", "a␛b"},
		{"lone esc at end", "a\x1b", "a␛"},
		{"esc before utf8", "a\x1bé", "a␛é"},
		{"c1 csi", "a\u009b2Jb", "a␛b"},
		{"c1 osc", "a\u009d52;c;AAAA\u009cb", "a␛b"},
		{"c1 osc bel", "a\u009d8;;x\x07b", "a␛b"},
		{"c1 dcs", "a\u0090q\u009cb", "a␛b"},
		{"other c1", "a\u0085b\u0080", "a\ufffdb\ufffd"},
		{"raw 0x9b byte", "a\x9b2Jb", "a\ufffd2Jb"},
		{"rlo", "evil\u202egpj.exe", "evil\ufffdgpj.exe"},
		{"isolates", "\u2066a\u2069", "\ufffda\ufffd"},
		{"marks", "a\u200eb\u200fc\u061cd", "a\ufffdb\ufffdc\ufffdd"},
		{"line separator", "a\u2028b\u2029c", "a b c"},
		{"invalid utf8", "a\xffb\xc3", "a\ufffdb\ufffd"},
		{"overlong", "\xc0\xaf", "\ufffd\ufffd"},
		{"surrogate", "\xed\xa0\x80", "\ufffd\ufffd\ufffd"},
		{"zero-width space", "evil\u200b.com", "evil<U+200B>.com"},
		{"zero-width joiners", "a\u200cb\u200dc", "a<U+200C>b<U+200D>c"},
		{"word joiner and bom", "\ufeffa\u2060b", "<U+FEFF>a<U+2060>b"},
		{"invisible operator", "a\u2062b", "a<U+2062>b"},
		{"soft hyphen", "pay\u00adpal.example", "pay<U+00AD>pal.example"},
		{"tag characters", "ok\U000E0041\U000E007F", "ok<U+E0041><U+E007F>"},
		{"visible neighbours kept", "\u200a\u200e\u2065\ufefe", "\u200a\ufffd\u2065\ufefe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMultiline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\nb", "a\nb"},
		{"a\tb", "a\tb"},
		{"a\r\nb\r\n", "a\nb\n"},
		{"a\rb", "a b"},
		{"a\x1b[2Jb\n", "a␛b\n"},
		{"x\u202ey", "x\ufffdy"},
	}
	for _, tt := range tests {
		if got := Multiline(tt.in); got != tt.want {
			t.Errorf("Multiline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCleanDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"192.0.2.1", "https://example.com/a?b=c#d", "café 中文 \ufffd ✓"} {
		if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
			t.Errorf("String(%q) allocates %v times", s, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Multiline("a\nb\tc") }); n != 0 {
		t.Errorf("Multiline allocates %v times on clean input", n)
	}
	b := []byte(`{"a":"café","n":1}`)
	if n := testing.AllocsPerRun(100, func() { _ = JSON(b) }); n != 0 {
		t.Errorf("JSON allocates %v times on clean input", n)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"abc", 1, "…"},
		{"中文字符", 4, "中文字符"},
		{"中文字符", 3, "中文…"},
		{"ééé", 2, "é…"},
		{"", 5, ""},
	}
	for _, tt := range tests {
		got := Truncate(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) is not valid UTF-8", tt.in, tt.n)
		}
	}
}

// TestJSONInvisible: invisible characters become \u escapes that decode to
// the same string, a surrogate pair beyond the BMP.
func TestJSONInvisible(t *testing.T) {
	in := []byte("{\"d\":\"evil\u200b.com\U000E0041\"}")
	got := JSON(in)
	if want := `{"d":"evil\u200b.com\udb40\udc41"}`; string(got) != want {
		t.Fatalf("JSON = %s, want %s", got, want)
	}
	var a, b map[string]string
	if json.Unmarshal(in, &a) != nil || json.Unmarshal(got, &b) != nil || a["d"] != b["d"] {
		t.Errorf("value changed: %q vs %q", a["d"], b["d"])
	}
}

func TestJSON(t *testing.T) {
	in := []byte("{\"a\":\"x\u009by\u202ez\x7f\xff\",\"b\":[1, 2]}\n")
	got := JSON(in)
	want := `{"a":"x\u009by\u202ez\u007f\ufffd","b":[1, 2]}` + "\n"
	if string(got) != want {
		t.Fatalf("JSON = %s, want %s", got, want)
	}
	var a, b map[string]any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatal(err)
	}
	if a["a"] != b["a"] {
		t.Errorf("value changed: %q vs %q", a["a"], b["a"])
	}
}

// checkSafe fails when out contains anything a terminal could interpret.
func checkSafe(t *testing.T, in, out string, multi bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output of %q is not valid UTF-8: %q", in, out)
	}
	for i := 0; i < len(out); i++ {
		c := out[i]
		if (c < 0x20 && !(multi && (c == '\n' || c == '\t'))) || c == 0x7f {
			t.Fatalf("output of %q has byte %#x: %q", in, c, out)
		}
	}
	for _, r := range out {
		if r >= 0x80 && r <= 0x9f || isBidi(r) || r == 0x2028 || r == 0x2029 || IsInvisible(r) {
			t.Fatalf("output of %q has rune %U: %q", in, r, out)
		}
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b[2J", "\x1b]8;;http://x\x07y\x1b]8;;\x07", "\x1b]52;c;AAAA\x1b\\",
		"\u009b31m", "\u009d0;t\u009c", "\u202e", "\xff\xfe", "a\r\nb\tc", "\x1bP", "\xc2", "\x1b\xc2\x9c",
		"evil\u200b.com", "\U000E0041\ufeff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		checkSafe(t, s, out, false)
		if strings.ContainsAny(out, "\n\t") {
			t.Fatalf("String(%q) kept a line break or tab", s)
		}
		checkSafe(t, s, Multiline(s), true)
		if String(out) != out {
			t.Fatalf("String is not idempotent on %q", s)
		}
		if firstUnsafe(s, false) < 0 && out != s {
			t.Fatalf("clean input %q was changed to %q", s, out)
		}
		tr := Truncate(out, 5)
		if utf8.RuneCountInString(tr) > 5 || !utf8.ValidString(tr) {
			t.Fatalf("Truncate(%q, 5) = %q", out, tr)
		}
	})
}

func BenchmarkStringClean(b *testing.B) {
	s := "https://example.com/some/path?with=query&and=more 中文"
	for b.Loop() {
		_ = String(s)
	}
}

func BenchmarkStringDirty(b *testing.B) {
	s := "label \x1b]8;;https://evil.test/\x07click\x1b]8;;\x07 \u202eexe.txt"
	for b.Loop() {
		_ = String(s)
	}
}

// firstUnsafe takes eight printable ASCII bytes at a time: it must stop
// where a byte at a time stops, for every byte value at every place of a
// word and with printable bytes of every value around it.
func TestFirstUnsafeWordAtATime(t *testing.T) {
	for _, fill := range []byte{' ', '!', '0', 'A', '~'} {
		for c := range 256 {
			for at := range 19 {
				b := []byte(strings.Repeat(string(fill), 19))
				b[at] = byte(c)
				for _, multi := range []bool{false, true} {
					if got, want := firstUnsafe(string(b), multi), findUnsafe(string(b), multi, false); got != want {
						t.Fatalf("%q (multi %v): %d, want %d", b, multi, got, want)
					}
				}
			}
		}
	}
}
