package ioc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// readLinesByBufio is how ExtractReader used to read: a line at a time
// through a 64 KiB bufio.Reader, cutting a line once it held maxLine bytes
// (at cutPoint). Where the cuts fall decides what is found around them, so
// the block reader must cut the same way.
func readLinesByBufio(t *testing.T, r io.Reader) []Indicator {
	var out []Indicator
	e := newExtractor(nil)
	m := newMerger(func(in Indicator) error { out = append(out, in); return nil })
	process := func(l []byte) { e.processLine(l); m.merge(e) }
	br := bufio.NewReaderSize(r, cutChunk)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, chunk...)
			if len(long) >= maxLine {
				cut := cutPoint(long)
				process(long[:cut])
				long = append(long[:0], long[cut:]...)
			}
			continue
		}
		if len(long) > 0 {
			long = append(long, chunk...)
			chunk = long
		}
		if len(chunk) > 0 {
			process(chunk)
		}
		long = long[:0]
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestExtractReaderLongLines(t *testing.T) {
	words := strings.Repeat("198.51.100.7 evil.example.com word ", 3000)
	inputs := map[string]string{
		"just under":        strings.Repeat("x", maxLine-20) + " 192.0.2.1\nnext 192.0.2.2\n",
		"exactly maxLine":   strings.Repeat("y", maxLine-1) + "\n" + strings.Repeat("z", maxLine),
		"cut at spaces":     strings.Repeat("q 1.2.3.4 ", 250000) + "\nafter 192.0.2.3",
		"no space to cut":   strings.Repeat("a.example.com", 300000),
		"chunk multiple":    strings.Repeat("e", 16*cutChunk-1) + " 9.9.9.9 " + strings.Repeat("f", 17*cutChunk),
		"several long":      strings.Repeat(words+"\n", 3) + strings.Repeat(words, 20) + "\n" + words,
		"cut inside values": distinctAddrs(200000, ","),
		"cut between words": distinctAddrs(200000, ", "),
		"version cut off":   versions(maxLine-10, 32*cutChunk),
		// The last line without its '\n' just short of being cut, and
		// long enough that the '\n' ExtractText reads after it is cut.
		"last line short": "1.1.1.1\n" + strings.Repeat("w", maxLine-10) + " 10.0.0.9",
		"last line cut":   "1.1.1.1\n" + strings.Repeat("w", maxLine-9) + " 10.0.0.9",
		"last chunk full": strings.Repeat("v ", 8*cutChunk-5) + "9.8.7.6",
	}
	for name, in := range inputs {
		want := readLinesByBufio(t, strings.NewReader(in))
		for _, r := range []io.Reader{strings.NewReader(in), iotest.HalfReader(strings.NewReader(in)), iotest.DataErrReader(strings.NewReader(in))} {
			var got []Indicator
			if err := ExtractReader(r, nil, func(i Indicator) error { got = append(got, i); return nil }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: got %d indicators, want %d, not the same", name, len(got), len(want))
			}
		}
		// ExtractText reads a text as if a line end followed it.
		want = readLinesByBufio(t, strings.NewReader(in+"\n"))
		// Two workers on blocks of cutChunk: a long line crosses many
		// blocks' worth of text (one worker and the sizes down to a byte
		// are checkParallel's).
		if got := extractTextWith(t, []byte(in), ExtractOptions{}, 2, cutChunk); !slices.Equal(got, want) {
			t.Errorf("%s, from memory: got %d indicators, want %d, not the same", name, len(got), len(want))
		}
	}
}

// distinctAddrs is a line of n different addresses, so that a value cut in
// two shows in what is found.
func distinctAddrs(n int, sep string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "10.%d.%d.%d%s", i>>16, i>>8&255, i&255, sep)
	}
	return b.String()
}

// versions is n bytes without a line end, x's up to at least cut, then
// "version 10.x.y.z" up to the end: a cut between a version word and its
// number makes the number an address, so where the reader cuts shows.
func versions(cut, n int) string {
	var tail strings.Builder
	for i := 0; tail.Len() < n-cut-40; i++ {
		fmt.Fprintf(&tail, " version 10.%d.%d.%d", i>>16, i>>8&255, i&255)
	}
	return strings.Repeat("x", n-tail.Len()) + tail.String()
}

// The set of values already reported costs at most 64 bytes a distinct
// value, whatever the values' length (issue 28): a report of millions of
// distinct values must not cost their text several times over.
func TestMergerBytesPerValue(t *testing.T) {
	const n = 200_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := newMerger(func(Indicator) error { return nil })
	var found []candidate
	var vals []byte
	for i := range n {
		vals = fmt.Appendf(vals, "host-%08d-with-a-long-name.example.com", i)
		found = append(found, candidate{typ: Domain, end: len(vals)})
		if len(found) == 1000 {
			m.mergeFound(found, vals, nil)
			found, vals = found[:0], vals[:0]
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / n
	if per > 64 {
		t.Errorf("%.0f bytes per distinct value, want at most 64", per)
	}
	if m.n != n {
		t.Errorf("%d values in the set, want %d", m.n, n)
	}
	runtime.KeepAlive(m)
}

// guard turns a fault in the text into ErrTextGone (pkg/mapfile's test
// cuts a mapped file short) and lets every other panic go on.
func TestGuardLetsOtherPanicsGo(t *testing.T) {
	text := []byte("192.0.2.1\n")
	for name, f := range map[string]func(){
		"nil pointer": func() {
			var p *block
			_ = p.buf
		},
		"index": func() { _ = text[len(text)+int(text[0])] },
		"value": func() { panic("boom") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: the panic was swallowed", name)
				}
			}()
			err := guard(text, f)
			t.Errorf("%s: guard returned %v", name, err)
		}()
	}
	if err := guard(text, func() {}); err != nil {
		t.Errorf("no fault: %v", err)
	}
}

// Closing Done stops the extraction at its next block, read or in
// memory, on one goroutine or several: ErrStopped, and what came before.
func TestExtractStopsWhenDone(t *testing.T) {
	text := benchText(2 << 20)
	all := extractWith(t, bytes.NewReader(text), ExtractOptions{}, 1, blockSize)
	for _, workers := range []int{1, 2} {
		for _, inMemory := range []bool{false, true} {
			done := make(chan struct{})
			var got []Indicator
			fn := func(in Indicator) error {
				if len(got) == 0 {
					close(done)
				}
				got = append(got, in)
				return nil
			}
			opts := ExtractOptions{Done: done}
			var err error
			if inMemory {
				err = extractFrom(&textSource{text: text, size: blockSize, lineEnd: true}, opts, workers, fn)
			} else {
				err = extract(bytes.NewReader(text), opts, workers, blockSize, fn)
			}
			if !errors.Is(err, ErrStopped) {
				t.Errorf("%d workers, in memory %v: %v, want ErrStopped", workers, inMemory, err)
			}
			if len(got) == 0 || len(got) >= len(all) || !slices.Equal(got, all[:len(got)]) {
				t.Errorf("%d workers, in memory %v: %d indicators, want a beginning of the %d", workers, inMemory, len(got), len(all))
			}
		}
	}
}

// A line too long to hold is cut between values, not through one: where
// it holds no white space (a minified page, values joined by commas, a
// log with CR alone between its lines), at a byte that ends a token or at
// a ','. A URL across the 1 MiB mark is found whole, read or in
// memory, and no piece of it is reported.
func TestLongLinesCutBetweenValues(t *testing.T) {
	const url = "https://payload.evil-example.com/stage2.bin"
	for _, sep := range []string{",", "|", "\r", "\"", "\t"} {
		for _, shift := range []int{0, len(url) / 2, len(url) + 1} {
			pad := strings.Repeat("x"+sep, (maxLine-shift)/2)
			text := pad + url + sep + strings.Repeat("y"+sep, 1000)
			want := []Indicator{{Value: url, Type: URL}}
			var got []Indicator
			if err := ExtractReader(strings.NewReader(text), nil, func(in Indicator) error { got = append(got, in); return nil }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("separator %q, URL at %d: read: %v, want the URL alone", sep, len(pad), got)
			}
			if got := extractTextWith(t, []byte(text), ExtractOptions{}, 2, cutChunk); !slices.Equal(got, want) {
				t.Errorf("separator %q, URL at %d: in memory: %v, want the URL alone", sep, len(pad), got)
			}
		}
	}
}
