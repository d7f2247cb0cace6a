package ioc

import (
	"bytes"
	"slices"
	"testing"
)

// checkMaskLines holds maskLines on l to the definitions: a bit in
// anchors for each anchor, in ends for each '\n', none past l, and odd
// whenever l holds a NUL, an ESC or a byte that is not ASCII.
func checkMaskLines(t *testing.T, l []byte) {
	t.Helper()
	if !vectorScan || len(l) == 0 {
		return
	}
	words := (len(l) + 63) >> 6
	anchors := make([]uint64, words)
	ends := make([]uint64, words)
	odd := maskLines(&l[0], len(l), &lineNibbles, &anchors[0], &ends[0])
	wantOdd := false
	for k := range words * 64 {
		isAnchor, isEnd := false, false
		if k < len(l) {
			c := l[k]
			isAnchor, isEnd = anchor[c], c == '\n'
			wantOdd = wantOdd || c == 0 || c == 0x1b || c >= 0x80
		}
		if got := anchors[k>>6]>>(k&63)&1 == 1; got != isAnchor {
			t.Fatalf("maskLines(%q): anchor bit %d is %v", l, k, got)
		}
		if got := ends[k>>6]>>(k&63)&1 == 1; got != isEnd {
			t.Fatalf("maskLines(%q): line end bit %d is %v", l, k, got)
		}
	}
	if wantOdd && !odd {
		t.Fatalf("maskLines(%q) is not odd", l)
	}
}

// TestLineNibbles: the anchors in bits 0 to 6 of lineNibbles's lookups,
// exactly; bit 6 for the bytes that are not ASCII; bit 7 for NUL and ESC,
// and for no byte from 0x20 on.
func TestLineNibbles(t *testing.T) {
	for c := range 256 {
		x := lineNibbles[c&15] & lineNibbles[16+c>>4]
		if in := int8(x) > 0; in != anchor[c] {
			t.Errorf("byte %#x: an anchor for lineNibbles %v, in the set %v", c, in, anchor[c])
		}
		if ctl := x&0x80 != 0; ctl != (c < 0x20 && (c&15 == 0 || c&15 == 0xb)) {
			t.Errorf("byte %#x: bit 7 %v", c, ctl)
		}
		if wide := x&0x40 != 0; wide != (c >= 0x80) {
			t.Errorf("byte %#x: bit 6 %v", c, wide)
		}
	}
}

// lineByLine is what processBlock did before its windows, and does
// without the vector scan: the block's flags first, then each line found
// by bytes.IndexByte and processed on its own.
func lineByLine(e *extractor, text []byte) {
	e.invisible, e.controls = blockFlags(text)
	for len(text) > 0 {
		text = text[e.firstLine(text):]
	}
}

// TestWindowsAsLineByLine holds processBlock's windows to lineByLine on
// texts whose lines end at, before and past a window's end, lines longer
// than a window, and a NUL, an ESC or an invisible character (some joined
// only once a NUL is dropped) in a late window or nowhere.
func TestWindowsAsLineByLine(t *testing.T) {
	prose := benchText(3 * windowLen)
	var texts [][]byte
	for _, cut := range []int{windowLen - 1, windowLen, windowLen + 1, 2*windowLen + 7} {
		for _, odd := range []string{"", "ev\x00il.example", "a\x1b[1mevil.example\x1b[0m", "ev\u200bil.example", "x \u200b evil.\xe2\x00\x80\x8bexample"} {
			text := append([]byte{}, prose[:cut]...)
			text = append(text, '\n')
			text = append(text, bytes.Repeat([]byte("hxxp://long[.]example/"), windowLen/20)...)
			text = append(text, "\n1.2.3.4 "...)
			text = append(text, odd...)
			text = append(text, prose[:500]...)
			texts = append(texts, text, text[:len(text)-1], append(text, '\n'))
			texts = append(texts, append([]byte(odd+"\n"), prose[:cut]...))
		}
	}
	for _, text := range texts {
		want := newExtractor(nil)
		lineByLine(want, text)
		got := newExtractor(nil)
		got.processBlock(&block{buf: text})
		if !slices.Equal(got.found, want.found) || !bytes.Equal(got.vals, want.vals) {
			t.Fatalf("processBlock found %d candidates (%q), line by line %d (%q)", len(got.found), got.vals, len(want.found), want.vals)
		}
	}
}
