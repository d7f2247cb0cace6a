package ioc

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"
)

// maxLine is where ExtractReader cuts a line that has no end in sight (a
// minified page, a binary), so that memory stays bounded; it cuts at the
// last white space before it when there is one.
const maxLine = 1 << 20

// cutChunk is the step in which a long line is taken in before it is cut.
// Where the cuts fall depends on it: ExtractReader used to read through a
// 64 KiB bufio.Reader, and reports must not change with the way they are
// read, so the cuts are still made as that reader made them.
const cutChunk = 64 << 10

// blockSize is how much ExtractReader reads at a time: large enough that
// handing a block to a worker costs nothing next to processing it, small
// enough to keep every core busy on a report of a few MB.
const blockSize = 256 << 10

// The longest unfinished line ExtractReader keeps whole is maxLine and a
// block; past it the line is cut as it comes in.

// ExtractReader reads r (a report of any size) and calls fn for each new
// indicator, in order, de-duplicated across the whole input, with memory
// bounded by a fixed number of blocks (blockSize each, up to maxLine more
// for a block that holds a long line) plus the set of values already seen. types filters what is reported (nil or empty = all); the
// filter applies after classification, so an email address is still not
// reported as a domain when only domains are asked for. An error from fn
// stops the reading and is returned as is. The text is read on the
// caller's goroutine and, when more than one CPU is available, searched a
// block at a time on others; fn is called by one goroutine at a time, in
// order, but not always the same one.
func ExtractReader(r io.Reader, types []Type, fn func(Indicator) error) error {
	return Extract(r, ExtractOptions{Types: types}, fn)
}

// ExtractOptions say what Extract reports.
type ExtractOptions struct {
	Types []Type // as ExtractReader's types
	// URLHosts reports, after each new URL, its host (a domain or an
	// address) as an indicator of its own with FromURL set, unless that
	// value was reported already; a later mention of it is then a repeat.
	URLHosts bool
	// Done, when closed, stops the extraction before its next block
	// (Ctrl-C): Extract then returns ErrStopped, having reported what the
	// blocks before found. A read that is waiting for input is not cut
	// short: the reader's to end.
	Done <-chan struct{}
}

// ErrStopped is Extract's error when ExtractOptions.Done stopped it.
var ErrStopped = errors.New("extraction stopped")

// closed tells whether done is closed.
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// Extract is ExtractReader with options. A reader that is Lines is
// searched where its text lies, as ExtractText does.
func Extract(r io.Reader, opts ExtractOptions, fn func(Indicator) error) error {
	if l, ok := r.(Lines); ok {
		src := &textSource{text: l.Lines(), size: blockSize, lineEnd: true}
		if rel, ok := r.(releaser); ok {
			src.release = rel.Release
		}
		return extractFrom(src, opts, runtime.GOMAXPROCS(0), fn)
	}
	return extract(r, opts, runtime.GOMAXPROCS(0), blockSize, fn)
}

// Lines is a reader of a text already in memory (a file mapped into
// it): it reads Lines() and then a line end, and Extract searches the
// text where it lies instead of reading it, as io.Copy lets a WriterTo
// write itself.
type Lines interface {
	io.Reader
	Lines() []byte
}

// releaser is a Lines whose text can be given back as it is searched:
// Release(n) says that Extract is done with Lines()[:n] (a mapped file
// can take those pages out of the process's memory). Extract calls it
// with n growing, a few MB at a time.
type releaser interface {
	Release(n int)
}

// extract is Extract with the input read in blocks of size bytes, searched
// by that many workers (1: all of it on the caller's goroutine). What it
// reports depends on neither.
func extract(r io.Reader, opts ExtractOptions, workers, size int, fn func(Indicator) error) error {
	return extractFrom(&source{r: r, size: size}, opts, workers, fn)
}

// blocks hands out the input a block of whole lines at a time: source
// reads it from an io.Reader, textSource slices it from memory.
type blocks interface {
	// run fills blocks from get and hands them to put, in order, to the
	// end of the input. It stops early when get returns nil or put
	// returns false.
	run(get func() *block, put func(*block) bool)
	// error is what stopped the input short of its end, if anything.
	error() error
	// memory is the text in memory the blocks are slices of (a file
	// mapped into memory, which can fault), or nil.
	memory() []byte
	// merged is told of each block once it is merged, in order.
	merged(*block)
}

// extractFrom searches src's blocks with that many workers and reports
// what they find through fn.
func extractFrom(src blocks, opts ExtractOptions, workers int, fn func(Indicator) error) error {
	m := newMerger(fn)
	m.urlHosts = opts.URLHosts
	if workers == 1 {
		e := newExtractor(opts.Types)
		b := new(block)
		halted := false
		err := guard(src.memory(), func() {
			src.run(func() *block {
				if closed(opts.Done) {
					halted = true
					return nil
				}
				return b
			}, func(b *block) bool {
				e.processBlock(b)
				m.merge(e)
				src.merged(b)
				return m.err == nil
			})
		})
		if m.err != nil {
			return m.err
		}
		if err != nil {
			return err
		}
		if halted {
			return ErrStopped
		}
		return src.error()
	}
	return extractParallel(src, opts, workers, m)
}

// extractParallel runs the source on the caller's goroutine and workers
// on others. A block's candidates are merged as soon as the blocks before
// it are: the worker that finishes the next block in order merges it, and
// any that follow and are done, while the other workers go on; no
// goroutine of its own waits to be scheduled for it. A fixed number of
// blocks circulates, which bounds memory and lets the source run ahead of
// the merge only so far.
func extractParallel(src blocks, opts ExtractOptions, workers int, m *merger) error {
	types := opts.Types
	n := 2*workers + 2
	free := make(chan *block, n)
	work := make(chan *block, n)
	quit := make(chan struct{})
	for range n {
		free <- new(block)
	}
	var (
		mu      sync.Mutex
		ready   = make([]*block, n) // done blocks not merged yet, by seq % n
		next    int                 // the seq of the block to merge next
		merging bool                // a worker is merging
		stopped bool                // m.err is set: what follows is not merged
	)
	// merge merges b, the next block in order, and those after it that
	// are done.
	merge := func(b *block) {
		var e extractor // carries a block's candidates into the merger
		for {
			if !stopped {
				if b.err != nil && m.err == nil {
					m.err = b.err
				} else {
					e.found, e.vals, e.hashes = b.found, b.vals, b.hashes
					m.merge(&e)
					src.merged(b)
				}
				if m.err != nil {
					stopped = true
					close(quit)
				}
			}
			free <- b
			mu.Lock()
			next++
			b = ready[next%n]
			if b == nil || b.seq != next {
				merging = false
				mu.Unlock()
				return
			}
			ready[next%n] = nil
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := newExtractor(types)
			for b := range work {
				b.err = guard(src.memory(), func() { e.processBlock(b) })
				e.hashes = hashFound(&m.seed, e.found, e.vals, e.hashes[:0])
				b.found, e.found = e.found, b.found[:0]
				b.vals, e.vals = e.vals, b.vals[:0]
				b.hashes, e.hashes = e.hashes, b.hashes[:0]
				mu.Lock()
				if merging || b.seq != next {
					ready[b.seq%n] = b
					mu.Unlock()
					continue
				}
				merging = true
				mu.Unlock()
				merge(b)
			}
		}()
	}
	seq, halted := 0, false
	srcErr := guard(src.memory(), func() {
		src.run(func() *block {
			if closed(opts.Done) {
				halted = true
				return nil
			}
			select {
			case b := <-free:
				return b
			case <-quit:
				return nil
			case <-opts.Done:
				halted = true
				return nil
			}
		}, func(b *block) bool {
			b.seq = seq
			seq++
			work <- b
			return true
		})
	})
	close(work)
	wg.Wait()
	if m.err != nil {
		return m.err
	}
	if srcErr != nil {
		return srcErr
	}
	if halted {
		return ErrStopped
	}
	return src.error()
}

// block is a piece of the input and, once processed, what it holds.
type block struct {
	buf []byte // whole lines; or, if piece, one piece of a cut line
	// piece: buf is a part of a line cut because it was too long, to be
	// processed as it is.
	piece bool
	// ended: buf is the last line of a text in memory, without its '\n',
	// to be processed as if it had one (textSource).
	ended bool
	end   int    // textSource: where buf ends in the text
	own   []byte // textSource: a piece of a long line, copied (buf is own)

	found  []candidate
	vals   []byte
	hashes []hash128 // the hashes of found's values (hashFound)
	err    error     // what stopped the block's processing (a mapped file cut short)
	seq    int       // the block's place in the input
}

func (e *extractor) processBlock(b *block) {
	if vectorScan && !b.piece && !b.ended {
		e.searchLines(b.buf)
		return
	}
	e.invisible, e.controls = blockFlags(b.buf)
	if b.piece {
		e.processLine(b.buf)
		return
	}
	if b.ended {
		e.long = cutLong(b.buf, true, e.long, e.processLine)
		return
	}
	for text := b.buf; len(text) > 0; {
		text = text[e.firstLine(text):]
	}
}

// cutLong processes a complete line (its '\n' included, if it has one;
// with ended, one more after it) that may be too long to take whole, in
// the pieces the reader cuts it into; long is a buffer to reuse, returned
// for the next call.
func cutLong(line []byte, ended bool, long []byte, process func([]byte)) []byte {
	c := cutter{long: long[:0]}
	c.finish(line, ended, process)
	return c.long[:0]
}

// cutter cuts a long line: it takes the line in cutChunk bytes at a time
// and, once it holds maxLine bytes or more, hands out what it holds up to
// cutPoint, keeping the rest.
type cutter struct {
	long []byte
}

// add takes in a chunk of cutChunk bytes that does not end the line.
func (c *cutter) add(chunk []byte, process func([]byte)) {
	c.long = append(c.long, chunk...)
	if len(c.long) < maxLine {
		return
	}
	cut := cutPoint(c.long)
	process(c.long[:cut])
	c.long = append(c.long[:0], c.long[cut:]...)
}

// finish takes in the rest of the line, its '\n' included if it has one.
// With ended, rest is read as if a '\n' followed it (a mapped file's last
// line, which the command line reads with one), without copying it first.
func (c *cutter) finish(rest []byte, ended bool, process func([]byte)) {
	// The old reader took a full chunk without a '\n' as one that does
	// not end the line, even at the end of the input; a last chunk of
	// exactly cutChunk bytes that holds the ended line's '\n' is kept.
	for {
		n := len(rest)
		if ended {
			n++
		}
		if n < cutChunk || n == cutChunk && (ended || rest[cutChunk-1] == '\n') {
			break
		}
		c.add(rest[:cutChunk], process)
		rest = rest[cutChunk:]
	}
	c.long = append(c.long, rest...)
	if ended {
		c.long = append(c.long, '\n')
	}
	if len(c.long) > 0 {
		process(c.long)
	}
	c.long = c.long[:0]
}

// source cuts the input into blocks of whole lines.
type source struct {
	r    io.Reader
	size int // how much to read into a block

	carry []byte // the start of a line read with the previous block
	done  bool   // r has reported EOF or an error
	err   error  // that error, unless EOF

	// A line longer than maxLine and a block is cut as it comes in: pend holds what
	// has not gone into the cutter yet.
	cutting bool
	pend    []byte
	cut     cutter
}

// run reads the input to its end, filling blocks from get and handing
// them to put, in order. It stops early when get returns nil or put
// returns false.
func (s *source) run(get func() *block, put func(*block) bool) {
	for {
		if s.cutting {
			if !s.cutLine(get, put) {
				return
			}
			continue
		}
		if s.done && len(s.carry) == 0 {
			return
		}
		b := get()
		if b == nil {
			return
		}
		b.piece = false
		b.buf = append(b.buf[:0], s.carry...)
		s.carry = s.carry[:0]
		if !s.fill(b) {
			// A line too long to hold: b holds its start, and goes out
			// empty, so that every block taken is handed on.
			s.cutting = true
			s.pend = append(s.pend[:0], b.buf...)
			b.buf = b.buf[:0]
		}
		if !put(b) {
			return
		}
	}
}

func (s *source) error() error { return s.err }

func (s *source) memory() []byte { return nil }

func (s *source) merged(*block) {}

// fill reads into b until it holds s.size bytes more than it started
// with, the input ends, or a read comes back short (a pipe or a terminal
// has nothing more for now: what is there is processed at once), and then
// leaves the unfinished last line in carry. It returns false, with nothing
// left in carry, when b holds a single unfinished line of maxLine+s.size
// bytes or more.
func (s *source) fill(b *block) bool {
	target := len(b.buf) + s.size
	for {
		for !s.done && len(b.buf) < target {
			if cap(b.buf)-len(b.buf) < 4096 {
				b.buf = slices.Grow(b.buf, target-len(b.buf))
			}
			want := min(cap(b.buf), target) - len(b.buf)
			n, err := s.r.Read(b.buf[len(b.buf) : len(b.buf)+want])
			b.buf = b.buf[:len(b.buf)+n]
			if err != nil {
				s.done = true
				if err != io.EOF {
					s.err = err
				}
			}
			if n < want && n > 0 && bytes.IndexByte(b.buf[len(b.buf)-n:], '\n') >= 0 {
				break
			}
		}
		if s.done {
			return true
		}
		if i := bytes.LastIndexByte(b.buf, '\n'); i >= 0 {
			s.carry = append(s.carry[:0], b.buf[i+1:]...)
			b.buf = b.buf[:i+1]
			return true
		}
		if len(b.buf) >= maxLine+s.size {
			return false
		}
		target = len(b.buf) + s.size
	}
}

// cutLine goes on with a line too long to hold, handing out each piece
// cut from it as a block of its own, until the line ends; what follows
// it goes to carry.
func (s *source) cutLine(get func() *block, put func(*block) bool) bool {
	ok := true
	process := func(p []byte) {
		if !ok {
			return
		}
		b := get()
		if b == nil {
			ok = false
			return
		}
		b.piece = true
		b.buf = append(b.buf[:0], p...)
		ok = put(b)
	}
	for ok {
		if i := bytes.IndexByte(s.pend, '\n'); i >= 0 || s.done {
			end := len(s.pend)
			if i >= 0 {
				end = i + 1
			}
			s.cut.finish(s.pend[:end], false, process)
			s.carry = append(s.carry[:0], s.pend[end:]...)
			s.pend = s.pend[:0]
			s.cutting = false
			return ok
		}
		k := 0
		for len(s.pend)-k > cutChunk && ok {
			s.cut.add(s.pend[k:k+cutChunk], process)
			k += cutChunk
		}
		s.pend = append(s.pend[:0], s.pend[k:]...)
		s.pend = slices.Grow(s.pend, s.size)
		n, err := s.r.Read(s.pend[len(s.pend):cap(s.pend)])
		s.pend = s.pend[:len(s.pend)+n]
		if err != nil {
			s.done = true
			if err != io.EOF {
				s.err = err
			}
		}
	}
	return ok
}

// cutPoint is where a cutter holding long cuts it: at the last byte of its
// second half that always ends a token (white space, a lone CR, a control
// character, " ' < > ` | { } \ ^), so that no value is cut in two; failing
// that, at the last ',' there (a minified page, a line of values joined
// by commas, where a URL ends at its ','; a ';' may be inside one);
// failing that, at its end. Only white space counted
// once: a line of a million commas was cut every 1 MiB wherever that fell,
// and a URL cut in two gave two values no one wrote.
func cutPoint(long []byte) int {
	half := len(long) / 2
	soft := -1
	for i := len(long) - 1; i >= half; i-- {
		c := long[i]
		if class[c]&cHard != 0 {
			return i
		}
		if soft < 0 && c == ',' {
			soft = i
		}
	}
	if soft >= 0 {
		return soft
	}
	return len(long)
}
