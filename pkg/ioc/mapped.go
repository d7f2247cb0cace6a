package ioc

import (
	"bytes"
	"errors"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// ExtractText is Extract over a text held in memory, which is what a file
// mapped into memory is, read as lines: the same indicators in the same
// order as Extract of the text followed by a line end (what the command
// line reads of each input), found without copying the text into blocks
// first: a block is a slice of the text. The text is only read. If a page of it cannot be read (the file
// behind a mapping was cut short while it was read), ExtractText returns
// ErrTextGone instead of letting the fault end the program.
func ExtractText(text []byte, opts ExtractOptions, fn func(Indicator) error) error {
	return extractFrom(&textSource{text: text, size: blockSize, lineEnd: true}, opts, runtime.GOMAXPROCS(0), fn)
}

// ErrTextGone is ExtractText's error for a text it could not read to its
// end.
var ErrTextGone = errors.New("the file changed while it was read (cut short?)")

// textSource hands out a text in memory as blocks of whole lines, about
// size bytes each: slices of the text, not copies.
type textSource struct {
	text []byte
	size int
	pos  int // where the next block starts
	// lineEnd: read the text as if a '\n' followed it, which changes
	// what is found only when its last line is long enough to be cut.
	lineEnd bool
	// release, if set, is told how much of the text has been searched and
	// merged, every releaseStep bytes or so (releaser).
	release  func(n int)
	released int
}

// releaseStep is how much searched text a mapped file gives back at a
// time: a call costs a system call and the other cores' address caches,
// and memory holds at most this much more of the file.
const releaseStep = 4 << 20

func (s *textSource) run(get func() *block, put func(*block) bool) {
	for s.pos < len(s.text) {
		b := get()
		if b == nil {
			return
		}
		end := len(s.text)
		if s.pos+s.size < end {
			// The block ends with the line that crosses its size: a line
			// longer than maxLine is taken whole, and processBlock cuts it
			// as the reader would have.
			if i := bytes.IndexByte(s.text[s.pos+s.size:], '\n'); i >= 0 {
				end = s.pos + s.size + i + 1
			}
		}
		if end == len(s.text) && s.lineEnd && s.text[end-1] != '\n' {
			// The last line goes alone in a block of its own, which
			// processBlock ends with a '\n'.
			if i := bytes.LastIndexByte(s.text[s.pos:end], '\n'); i >= 0 {
				end = s.pos + i + 1
			} else {
				b.buf, b.piece, b.ended, b.end = s.text[s.pos:end:end], false, true, end
				s.pos = end
				put(b)
				return
			}
		}
		// The capacity ends with the block: nothing appended to it could
		// write into the text.
		b.buf, b.piece, b.ended, b.end = s.text[s.pos:end:end], false, false, end
		s.pos = end
		if !put(b) {
			return
		}
	}
}

func (s *textSource) error() error { return nil }

func (s *textSource) memory() []byte { return s.text }

func (s *textSource) merged(b *block) {
	if s.release != nil && (b.end-s.released >= releaseStep || b.end == len(s.text)) {
		s.release(b.end)
		s.released = b.end
	}
}

// guard runs f and returns ErrTextGone if f faults reading text instead
// of letting the fault end the program: the one way reading a mapped file
// goes wrong (SIGBUS past the end of a file that shrank). Any other panic
// goes on, a fault elsewhere included.
func guard(text []byte, f func()) (err error) {
	if len(text) == 0 {
		f()
		return nil
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(interface{ Addr() uintptr }); ok && inText(text, a.Addr()) {
				err = ErrTextGone
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}

// inText tells whether addr is in the pages text lies in.
func inText(text []byte, addr uintptr) bool {
	const page = 4 << 10 // the smallest page of the platforms Go runs on
	start := uintptr(unsafe.Pointer(unsafe.SliceData(text)))
	return addr >= start&^(page-1) && addr-start < uintptr(len(text))+page
}
