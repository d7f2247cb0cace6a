package ioc

import (
	"bytes"
	"hash/maphash"
)

// TextExtractor extracts the indicators of several short texts in turn
// (the fields of a record, say), reporting each indicator once across all
// of them, on the caller's goroutine. pivot runs one per answer's resource:
// a fresh ExtractString per field would cost more in set-up than in
// extraction.
type TextExtractor struct {
	e *extractor
	m *merger
}

// NewTextExtractor returns an extractor of every type.
func NewTextExtractor() *TextExtractor {
	// A small table to start with: a record names a handful of values,
	// and the table grows as it must.
	return &TextExtractor{e: newExtractor(nil), m: &merger{seed: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, slots: make([]hash128, 1<<5)}}
}

// Forget makes x report again what earlier calls reported, keeping its
// tables: a caller that must judge each text on its own (pivot's
// whole-field check) reuses one extractor instead of making one per text.
func (x *TextExtractor) Forget() {
	clear(x.m.slots)
	x.m.n = 0
}

// Extract calls fn for each indicator of s not reported by an earlier call
// of x, in order. An error from fn stops it and is returned.
func (x *TextExtractor) Extract(s string, fn func(Indicator) error) error {
	x.m.fn, x.m.err = fn, nil
	text := []byte(s)
	x.e.invisible, x.e.controls = hasInvisible(text), hasControls(text)
	for len(text) > 0 && x.m.err == nil {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		x.e.processLine(line)
		x.m.merge(x.e)
	}
	return x.m.err
}
