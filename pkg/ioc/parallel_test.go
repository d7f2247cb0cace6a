package ioc

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// readers are the ways a report may come in: whole, or in pieces shorter
// than asked for (a pipe, a terminal).
var readers = []struct {
	name string
	wrap func(io.Reader) io.Reader
}{
	{"whole", func(r io.Reader) io.Reader { return r }},
	{"half", iotest.HalfReader},
	{"bytes", iotest.OneByteReader},
}

// extractWith runs extract with workers and blocks of size bytes, and
// returns what it reported.
func extractWith(t *testing.T, r io.Reader, opts ExtractOptions, workers, size int) []Indicator {
	t.Helper()
	var got []Indicator
	if err := extract(r, opts, workers, size, func(in Indicator) error { got = append(got, in); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// extractTextWith is extractWith for ExtractText.
func extractTextWith(t *testing.T, text []byte, opts ExtractOptions, workers, size int) []Indicator {
	t.Helper()
	var got []Indicator
	if err := extractFrom(&textSource{text: text, size: size, lineEnd: true}, opts, workers, func(in Indicator) error { got = append(got, in); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// checkParallel compares the parallel path, on blocks small enough that a
// short text spans many of them, with the sequential one reading the text
// whole: the same indicators, in the same order, each once.
func checkParallel(t *testing.T, s string, sizes []int) {
	t.Helper()
	for _, opts := range []ExtractOptions{{}, {URLHosts: true}, {Types: []Type{Domain, IPv4}}} {
		want := extractWith(t, strings.NewReader(s), opts, 1, blockSize)
		// ExtractText reads a text as if a line end followed it.
		wantText := extractWith(t, strings.NewReader(s+"\n"), opts, 1, blockSize)
		for _, workers := range []int{1, 2, 3} {
			for _, size := range sizes {
				for _, rd := range readers {
					if rd.name == "bytes" && len(s) > 4<<10 {
						continue
					}
					got := extractWith(t, rd.wrap(strings.NewReader(s)), opts, workers, size)
					if !slices.Equal(got, want) {
						t.Fatalf("%d workers, blocks of %d, read %s, %+v: %d indicators, want %d the same as read whole by one\ngot  %v\nwant %v",
							workers, size, rd.name, opts, len(got), len(want), got, want)
					}
				}
				if got := extractTextWith(t, []byte(s), opts, workers, size); !slices.Equal(got, wantText) {
					t.Fatalf("%d workers, blocks of %d, from memory, %+v: %d indicators, want %d the same as read whole by one\ngot  %v\nwant %v",
						workers, size, opts, len(got), len(wantText), got, wantText)
				}
			}
		}
	}
}

func TestExtractParallelDocuments(t *testing.T) {
	docs, _ := filepath.Glob("testdata/extract/*.txt")
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		checkParallel(t, string(text), []int{1, 61, 4 << 10})
	}
	checkParallel(t, string(benchText(1<<20)), []int{4 << 10, 64 << 10})
}

func FuzzExtractParallel(f *testing.F) {
	addDocuments(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkParallel(t, s, []int{1, 5, 64})
	})
}
