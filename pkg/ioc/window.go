package ioc

import (
	"bytes"
	"math/bits"
	"unsafe"
)

// With the vector scan, processBlock finds a block's line ends and its
// anchors in one pass over each windowLen bytes (maskLines), instead of a
// bytes.IndexByte per line and then a maskBlocks call per line: the lines
// of a report are short (a hundred bytes or so), and each of those calls
// cost more to set up than the bytes of one line take. A window is small
// enough to stay in the cache and to bound memory; the line it cuts at its
// end is looked at again, from its start, by the next window.

// windowLen is how many bytes of a block maskLines looks at in one call.
const windowLen = 16 << 10

// lineWindow holds, for windowLen bytes of text from some start, the
// anchors' and the line ends' bits: bit k of anchors[w] for text[64w+k].
type lineWindow struct {
	anchors [windowLen / 64]uint64
	ends    [windowLen / 64]uint64
}

// lineNibbles is anchorNibbles with bit 6 for the bytes that are not
// ASCII (all anchors, a row of their own in the table) and bit 7 for NUL,
// ESC and the few bytes that share their nibbles (0x0b, 0x10): maskLines
// tells a text that may hold a control (hasControls) or an invisible
// character (hasInvisible) by those two bits, and its anchors by a lookup
// that is positive as a signed byte. No anchor is below 0x20, so no
// byte's lookup has bit 7 with another.
var lineNibbles = func() nibbleTable {
	t := anchorNibbles
	if t[16] != 0 || t[17] != 0 {
		panic("ioc: an anchor below 0x20")
	}
	b := t[16+8] // the non-ASCII rows' bit
	for h := 8; h < 16; h++ {
		if t[16+h] != b || b&(b-1) != 0 {
			panic("ioc: the non-ASCII rows are not one row of one bit")
		}
		t[16+h] = 0x40
	}
	for h := range 8 {
		if t[16+h]&(b|0xc0) != 0 {
			panic("ioc: the non-ASCII rows' bit in an ASCII row, or bit 6 or 7 in use")
		}
	}
	for l := range 16 {
		t[l] = t[l]&^b | 0x40
	}
	for _, c := range []byte{0, 0x1b} {
		t[c&15] |= 0x80
		t[16+c>>4] |= 0x80
	}
	return t
}()

// searchLines is processBlock's loop over the lines of text with the
// vector scan: the lines that end in a window are processed with the
// window's anchors; the line a window cuts starts the next window. The
// block's flags (blockFlags) are read only once a window holds a byte
// that may set one: the lines before it hold none of the bytes
// dropTerminalControls and dropInvisibleInWords drop, so they read the
// same with either flag.
func (e *extractor) searchLines(text []byte) {
	e.invisible, e.controls = false, false
	known := false
	if e.win == nil {
		e.win = new(lineWindow)
	}
	win := e.win
	for s := 0; s < len(text); {
		c := min(len(text)-s, windowLen)
		if maskLines(&text[s], c, &lineNibbles, &win.anchors[0], &win.ends[0]) && !known {
			e.invisible, e.controls = blockFlags(text)
			known = true
		}
		words := (c + 63) >> 6
		cur := &e.cur
		cur.text, cur.w, cur.m, cur.words, cur.a = text[s:s+c], 0, win.ends[0], min(words, len(win.ends)), 0
		if a, end, ok := cur.next(win); ok {
			cur.on = true
			e.lineIn(cur.text[a:end+1], win.anchors[a>>6:end>>6+1], uint(a&63)) // and the window's other lines
			cur.on = false
		}
		a := cur.a // where the next line starts in the window
		if s+c == len(text) {
			if a < c { // the last line, without its '\n'
				e.lineIn(text[s+a:], win.anchors[a>>6:words], uint(a&63))
			}
			return
		}
		if a > 0 {
			s += a
			continue
		}
		// A line longer than the window: found and processed as before.
		if !known {
			e.invisible, e.controls = blockFlags(text)
			known = true
		}
		s += e.firstLine(text[s:])
	}
}

// firstLine processes the line text starts with, its '\n' included (or
// all of text, when it has none), found by bytes.IndexByte, and returns
// its length: processBlock's way without the vector scan.
func (e *extractor) firstLine(text []byte) int {
	line := text
	if i := bytes.IndexByte(text, '\n'); i >= 0 {
		line = text[:i+1]
	}
	if len(line) >= maxLine {
		e.long = cutLong(line, false, e.long, e.processLine)
	} else {
		e.processLine(line)
	}
	return len(line)
}

// lineCursor walks the lines that end in a window, for lineIn: it goes on
// to the next line itself (while on), without a return and a call per
// line.
type lineCursor struct {
	on    bool
	text  []byte // the window's bytes
	w     int    // the word of ends being read
	m     uint64 // its bits not yet taken
	words int    // how many words of ends the window fills
	a     int    // where the next line starts in text
}

// next returns where the next line that ends in the window starts and
// where its '\n' is; false when there is none.
func (c *lineCursor) next(win *lineWindow) (a, end int, ok bool) {
	m, w := c.m, uint(c.w)
	for m == 0 {
		w++
		if w >= uint(c.words) {
			return 0, 0, false
		}
		m = win.ends[w%uint(len(win.ends))]
	}
	a, end = c.a, int(w<<6)+bits.TrailingZeros64(m)
	c.m, c.w, c.a = m&(m-1), int(w), end+1
	return a, end, true
}

// line is the line from a to the '\n' at end that next returned, and its
// anchors' words in win, without the bounds checks and the clamps of
// slicing: next's answers are in the window (a <= end < len(text)).
func (c *lineCursor) line(win *lineWindow, a, end int) ([]byte, []uint64) {
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(c.text)), a)
	w := uint(a) >> 6 % uint(len(win.anchors))
	return unsafe.Slice((*byte)(p), end+1-a), unsafe.Slice(&win.anchors[w], uint(end)>>6+1-w)
}
