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

	cut cutter // a line too long to hold, as it is cut (cutLine)
	fed int    // how far into the text cut has read
}

// releaseStep is how much searched text a mapped file gives back at a
// time: a call costs a system call and the other cores' address caches,
// and memory holds at most this much more of the file.
const releaseStep = 4 << 20

func (s *textSource) run(get func() *block, put func(*block) bool) {
	// slice hands out text[a:b] as a block of whole lines, or, ended, as
	// the text's last line without its '\n', which processBlock ends with
	// one. The capacity ends with the block: nothing appended to it could
	// write into the text.
	slice := func(a, b int, ended bool) bool {
		blk := get()
		if blk == nil {
			return false
		}
		blk.buf, blk.piece, blk.ended, blk.end = s.text[a:b:b], false, ended, b
		return put(blk)
	}
	for s.pos < len(s.text) {
		// The block ends with the line that crosses its size, unless that
		// line goes on for maxLine bytes more: the search for its end is
		// bounded, so that a text of one long line is not read through
		// before its first block.
		end, long := len(s.text), false
		if from := s.pos + s.size; from < len(s.text) {
			to := min(len(s.text), from+maxLine)
			if i := bytes.IndexByte(s.text[from:to], '\n'); i >= 0 {
				end = from + i + 1
			} else if to < len(s.text) {
				long = true
			}
		}
		last := !long && end == len(s.text) && s.lineEnd && s.text[end-1] != '\n'
		if long || last {
			// That line goes on its own: first the lines before it.
			head := s.text[s.pos:min(end, s.pos+s.size)]
			if long {
				head = s.text[s.pos : s.pos+s.size]
			}
			if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
				if !slice(s.pos, s.pos+i+1, false) {
					return
				}
				s.pos += i + 1
			}
		}
		var ok bool
		switch {
		case long:
			// A line too long to hold goes in the pieces the reader cuts
			// it into as it comes, each a copy of at most maxLine and a
			// chunk: memory stays bounded, and the pieces are searched
			// side by side.
			end, ok = s.cutLine(get, put)
		default:
			ok = slice(s.pos, end, last)
		}
		s.pos = end
		if !ok {
			return
		}
	}
}

// cutLine hands out the line that starts at pos, at least maxLine bytes
// long, in the pieces cutter.finish cuts it into (with a '\n' after it
// when it ends the text and lineEnd is set), each a block of its own
// that holds a copy of its piece, and returns where the line ends. A
// piece's end is how far into the text the cutter has read, which may be
// given back once the piece is merged.
func (s *textSource) cutLine(get func() *block, put func(*block) bool) (int, bool) {
	ok := true
	process := func(p []byte) {
		if !ok {
			return
		}
		blk := get()
		if blk == nil {
			ok = false
			return
		}
		blk.own = append(blk.own[:0], p...)
		blk.buf, blk.piece, blk.ended, blk.end = blk.own, true, false, s.fed
		ok = put(blk)
	}
	add := func(k int) {
		s.fed = k + cutChunk
		s.cut.add(s.text[k:k+cutChunk], process)
	}
	s.cut.long = s.cut.long[:0]
	// Until the line's end is in sight: a chunk with no '\n' in it or in
	// the byte after it is one finish's loop takes in.
	k, end, ended := s.pos, 0, false
	for ok {
		to := min(len(s.text), k+cutChunk+1)
		if i := bytes.IndexByte(s.text[k:to], '\n'); i >= 0 {
			end = k + i + 1
			break
		}
		if to == len(s.text) {
			end, ended = len(s.text), s.lineEnd
			break
		}
		add(k)
		k += cutChunk
	}
	if !ok {
		return end, false
	}
	// The rest, at most a chunk and a byte, as finish takes a line's end.
	s.fed = end
	s.cut.finish(s.text[k:end], ended, process)
	return end, ok
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
