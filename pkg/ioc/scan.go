package ioc

import (
	"math/bits"
	"unsafe"
)

// The scanners that find where an indicator or a defang may start
// (nextAnchor, nextSepStart) skip the bytes of prose in blocks: 32 bytes
// at a time with AVX2 on amd64 (scan_amd64.s), else 8 at a time in a
// uint64 (the SWAR versions, which are also the reference the fast path is
// tested against). A set of bytes is handed to the vector code as a
// nibbleTable.

// nibbleTable is a set of bytes as two 16-byte tables, indexed by a byte's
// low and high nibble: c is in the set when lo[c&15] & hi[c>>4] != 0. Each
// distinct set of low nibbles that some high nibble's row holds gets a bit
// of its own, so the test is exact for any set with at most eight distinct
// rows (the anchors have six, the separator starts four).
type nibbleTable [32]byte // lo, then hi

func newNibbleTable(set *[256]bool) (t nibbleTable) {
	var rows [16]uint16 // rows[h] has bit l set when byte h<<4|l is in the set
	for c := range 256 {
		if set[c] {
			rows[c>>4] |= 1 << (c & 15)
		}
	}
	var bits []uint16 // the distinct non-empty rows; the i-th gets bit i
	for h, r := range rows {
		if r == 0 {
			continue
		}
		b := -1
		for i, s := range bits {
			if s == r {
				b = i
			}
		}
		if b < 0 {
			b = len(bits)
			bits = append(bits, r)
		}
		if b >= 8 {
			panic("ioc: byte set too irregular for a nibble table")
		}
		t[16+h] |= 1 << b
		for l := range 16 {
			if r&(1<<l) != 0 {
				t[l] |= 1 << b
			}
		}
	}
	return t
}

var (
	anchorNibbles   = newNibbleTable(&anchor)
	sepStartNibbles = newNibbleTable(&sepStart)
	specialNibbles  = newNibbleTable(&special)
)

// special marks what processBlock looks for in a whole block before it
// reads its lines: NUL and ESC (hasControls) and the lead bytes of the
// invisible characters (hasInvisible).
var special = [256]bool{0: true, 0x1b: true, 0xc2: true, 0xe2: true, 0xef: true}

// blockFlags is hasInvisible(b), hasControls(b) in one pass over b (those
// two make five, one per byte they look for).
func blockFlags(b []byte) (invisible, controls bool) {
	if !vectorScan {
		return hasInvisible(b), hasControls(b)
	}
	for i := nextSpecial(b, 0); i < len(b) && !(invisible && controls); i = nextSpecial(b, i+1) {
		if c := b[i]; c == 0 || c == 0x1b {
			controls = true
		} else if !invisible {
			invisible = invisibleAt(b, i) > 0
		}
	}
	return invisible, controls
}

// nextSpecial returns the index of the first byte in b at or after i that
// special marks, or len(b). Only called when vectorScan is true.
func nextSpecial(b []byte, i int) int {
	if n := len(b) - i; n >= vectorMin {
		k := skipVector(&b[i], n, &specialNibbles)
		if k < n&^31 {
			return i + k
		}
		i += k
	}
	for i < len(b) && !special[b[i]] {
		i++
	}
	return i
}

// vectorMin is the least number of bytes worth handing to the vector scan;
// below it, its call costs more than the SWAR loop.
const vectorMin = 32

// nextAnchor returns the index of the first anchor byte in l at or after
// i, or len(l).
func nextAnchor(l []byte, i int) int {
	if n := len(l) - i; vectorScan && n >= vectorMin {
		k := skipVector(&l[i], n, &anchorNibbles)
		if k < n&^31 {
			return i + k
		}
		i += k
	}
	return nextAnchorSWAR(l, i)
}

// nextSepStart returns the index of the first byte in s at or after i that
// sepStart marks, or len(s).
func nextSepStart[T string | []byte](s T, i int) int {
	if n := len(s) - i; vectorScan && n >= vectorMin {
		// A []byte's header starts as a string's does (data, length):
		// read either as a string to reach its bytes without a copy.
		p := unsafe.StringData(*(*string)(unsafe.Pointer(&s)))
		k := skipVector((*byte)(unsafe.Add(unsafe.Pointer(p), i)), n, &sepStartNibbles)
		if k < n&^31 {
			return i + k
		}
		i += k
	}
	return nextSepStartSWAR(s, i)
}

// anchorScan finds the anchors of one line in turn, for processLine. It
// holds the anchors of the whole line as bit masks, filled in by one call
// of the vector code when the line starts: processLine asks for the next
// anchor every few bytes (they are a few bytes apart in prose: "e.g.",
// "2.1.0", "(see"), and most asks are then a shift and a count away, not
// a call.
type anchorScan struct {
	n     int      // the line's length
	masks []uint64 // bit k of masks[w] for l[64w+k-off]; the bits past the line clear, or those of the lines after it
	off   uint     // where l starts in masks[0]: 0, or below 64 for a line of a window (hold)
	own   []uint64 // what reset fills in
}

// reset starts on line l.
func (a *anchorScan) reset(l []byte) {
	a.n, a.off = len(l), 0
	if !vectorScan || len(l) == 0 {
		a.masks = a.own[:0]
		return
	}
	if w := (len(l) + 63) >> 6; w <= cap(a.own) {
		a.own = a.own[:w]
	} else {
		a.own = make([]uint64, w, w+w/4)
	}
	a.masks = a.own
	maskBlocks(&l[0], len(l), &anchorNibbles, &a.masks[0])
}

// hold starts on a line of n bytes whose anchors masks holds already from
// bit off of masks[0] on (a lineWindow's).
func (a *anchorScan) hold(n int, masks []uint64, off uint) {
	a.n, a.masks, a.off = n, masks, off
}

// next is nextAnchor(l, i) for the line l started on, or an index past the line (an anchor of a
// line after it in the window). It walks the masks word by word with no
// call, and is small enough to be inlined into processLine: it is asked
// every few bytes (they are a few bytes apart in prose: "e.g.", "2.1.0",
// "(see"), and most answers are in the word at hand. Only with the
// vector scan: else nextAnchorSWAR(l, i) is next.
func (a *anchorScan) next(i int) int {
	k := uint(i) + a.off
	for w := k >> 6; w < uint(len(a.masks)); w++ {
		if m := a.masks[w] >> (k & 63); m != 0 {
			return int(k + uint(bits.TrailingZeros64(m)) - a.off)
		}
		k = (w + 1) << 6
	}
	return a.n
}

// spanScan finds the bytes of a set in a text in turn, like anchorScan,
// for a pass that may start anywhere in a text of any length (the
// separator pass): it holds the set's bytes among up to spanLen bytes of
// the text as bit masks, and fills them in again past them. It lives on
// its caller's stack.
type spanScan struct {
	base  int // masks hold text[base:base+n], bit k of masks[w] for text[base+64w+k]
	n     int // 0: nothing is held
	masks [spanLen / 64]uint64
}

const spanLen = 512

// held is the first byte of the set at or after i when the word holding
// text[i] has one; small enough to be inlined.
func (m *spanScan) held(i int) (int, bool) {
	if k := uint(i - m.base); k < uint(m.n) {
		if w := m.masks[k>>6%(spanLen/64)] >> (k & 63); w != 0 {
			return i + bits.TrailingZeros64(w), true
		}
	}
	return 0, false
}

// next is the first byte of t's set at or after i in text[:n], or n, when
// held has found none (p points to text[0]): the words held after the one
// holding text[i], then the masks filled in again for the bytes after.
// Only called when vectorScan is true.
func (m *spanScan) next(p unsafe.Pointer, n, i int, t *nibbleTable) int {
	if k := uint(i - m.base); k < uint(m.n) {
		for w := k>>6 + 1; w < uint(m.n+63)>>6; w++ {
			if x := m.masks[w%(spanLen/64)]; x != 0 {
				return m.base + int(w<<6) + bits.TrailingZeros64(x)
			}
		}
		i = m.base + m.n
	}
	for i < n {
		c := min(n-i, spanLen)
		maskBlocks((*byte)(unsafe.Add(p, i)), c, t, &m.masks[0])
		m.base, m.n = i, c
		for w, x := range m.masks[:(c+63)>>6] {
			if x != 0 {
				return i + w<<6 + bits.TrailingZeros64(x)
			}
		}
		i += c
	}
	return n
}

// nextSepStartIn is nextSepStart(s, i) with the masks of m, when m.held(i)
// has found none, for i at or past the previous call's on s.
func nextSepStartIn[T string | []byte](m *spanScan, s T, i int) int {
	if !vectorScan {
		return nextSepStartSWAR(s, i)
	}
	if i >= len(s) {
		return len(s)
	}
	p := unsafe.StringData(*(*string)(unsafe.Pointer(&s)))
	return m.next(unsafe.Pointer(p), len(s), i, &sepStartNibbles)
}
