package ioc

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readerExtract is what ExtractReader finds in text.
func readerExtract(t *testing.T, text []byte) []Indicator {
	t.Helper()
	var out []Indicator
	if err := ExtractReader(bytes.NewReader(text), nil, func(in Indicator) error {
		out = append(out, in)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// sprinkle inserts ins before every n-th byte of text.
func sprinkle(text []byte, n int, ins string) []byte {
	var out []byte
	for i := 0; i < len(text); i += n {
		out = append(out, ins...)
		out = append(out, text[i:min(i+n, len(text))]...)
	}
	return out
}

// A report saved with CRLF line ends, lone CRs, NUL bytes or a terminal's
// ESC sequences gives the indicators of the clean text (issue 38 #2): each
// extraction document, so dirtied, against its own clean reading.
func TestExtractTerminalControls(t *testing.T) {
	docs, _ := filepath.Glob("testdata/extract/*.txt")
	for _, doc := range docs {
		text, _ := os.ReadFile(doc)
		want := readerExtract(t, text)
		for _, c := range []struct {
			name  string
			dirty []byte
		}{
			{"crlf", bytes.ReplaceAll(text, []byte("\n"), []byte("\r\n"))},
			{"lone cr", bytes.ReplaceAll(text, []byte("\n"), []byte("\r"))},
			{"nul", sprinkle(text, 7, "\x00")},
			{"colours", sprinkle(text, 5, "\x1b[1;31m")},
			{"colours per word", bytes.ReplaceAll(text, []byte(" "), []byte("\x1b[0m \x1b[38;5;208m"))},
			{"reset and title", sprinkle(text, 11, "\x1b(B\x1b]0;a title 10.9.8.7\x07\x1b]8;;https://link.example/x\x1b\\")},
		} {
			got := readerExtract(t, c.dirty)
			if !slices.Equal(got, want) {
				t.Errorf("%s, %s: %d indicators, want %d\ngot  %v\nwant %v", doc, c.name, len(got), len(want), got, want)
			}
		}
	}
	// Line by line too (pivot's TextExtractor).
	x := NewTextExtractor()
	var got []string
	_ = x.Extract("\x1b[32mev\x00il.example\x1b[0m", func(in Indicator) error {
		got = append(got, in.Value)
		return nil
	})
	if strings.Join(got, " ") != "evil.example" {
		t.Errorf("TextExtractor: %q", got)
	}
}
