package triage

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/failure"
)

// ErrBinary is returned when an input is not text (an executable, an
// archive, an image): read as text, it gives section names and byte
// strings that look like host names.
var ErrBinary = errors.New("a binary file, not text")

// sniffLen is how much of an input is looked at to tell its encoding.
const sniffLen = 8 << 10

// decodeText returns r as UTF-8 text: a UTF-16 or UTF-32 report with a byte
// order mark decoded, a UTF-8 one without its mark. A report in an encoding
// that is not read (another mark: UTF-7, GB-18030, UTF-EBCDIC) is named to
// warn, and read as it is; one with NUL bytes and no mark is binary (or
// UTF-16 without a mark, which the error says) unless they are few
// (binaryHead), and reading it fails with an error that is ErrBinary.
func decodeText(r io.Reader, warn func(string)) io.Reader {
	head, rest := readHead(r, sniffLen, markUnfinished)
	if skip, ok := plainHead(head); ok {
		rest.head = rest.head[skip:]
		return rest
	}
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}):
		return &utf32Reader{r: bufio.NewReaderSize(rest, sniffLen), skip: 4, le: true}
	case bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}):
		return &utf32Reader{r: bufio.NewReaderSize(rest, sniffLen), skip: 4}
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}):
		return &utf16Reader{r: bufio.NewReaderSize(rest, sniffLen), skip: 2, le: true}
	case bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return &utf16Reader{r: bufio.NewReaderSize(rest, sniffLen), skip: 2}
	}
	if name := otherBOM(head); name != "" {
		say(warn, fmt.Sprintf("the input is in %s, which is not read: convert it to UTF-8 (iconv -t UTF-8)", name))
		return rest
	}
	// A NUL byte is in head.
	if enc := utf16NoBOM(head); enc != "" {
		return errReader{unreadEncoding(enc)}
	}
	if !binaryHead(head) {
		return rest // a stray NUL in a saved log or page: the extractor drops it
	}
	return errReader{ErrBinary}
}

// plainHead tells whether decodeText reads a text that starts with head
// (its first sniffLen bytes, or all of it) as it is, and how many bytes of
// a UTF-8 byte order mark it skips first: UTF-8 with its mark, or UTF-8 or
// ASCII without another encoding's mark and without a NUL byte (with one,
// the text may be binary or UTF-16: decodeText looks further).
func plainHead(head []byte) (skip int, ok bool) {
	switch {
	case bytes.HasPrefix(head, []byte{0xef, 0xbb, 0xbf}):
		return 3, true
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}),
		bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}), otherBOM(head) != "":
		return 0, false
	}
	return 0, bytes.IndexByte(head, 0) < 0
}

// readHead reads the start of r, to tell what r holds: up to size bytes,
// or less when a read comes back short (a pipe or a terminal that has
// nothing more for now: `tail -f log | tilookup extract` must not wait
// for size bytes to show the first line's values) unless unfinished says
// the bytes so far cannot tell yet. A file's reads come back full, so its
// head is its first size bytes, as it always was. It returns the head and
// a reader that reads r from its start again.
func readHead(r io.Reader, size int, unfinished func([]byte) bool) ([]byte, *headReader) {
	head := make([]byte, 0, size)
	var err error
	for empty := 0; len(head) < size && err == nil; {
		want := size - len(head)
		var n int
		n, err = r.Read(head[len(head):size])
		head = head[:len(head)+n]
		if n == 0 {
			if empty++; empty == 100 { // as bufio.Reader gives up
				err = io.ErrNoProgress
			}
			continue
		}
		if n < want && (unfinished == nil || !unfinished(head)) {
			break
		}
	}
	return head, &headReader{head: head, err: err, r: r}
}

// headReader reads the head readHead took, then the error that ended it
// if one did, then the rest of r.
type headReader struct {
	head []byte
	err  error
	r    io.Reader
}

func (h *headReader) Read(p []byte) (int, error) {
	if len(h.head) > 0 {
		n := copy(p, h.head)
		h.head = h.head[n:]
		return n, nil
	}
	if h.err != nil {
		return 0, h.err
	}
	return h.r.Read(p)
}

// markUnfinished tells whether head, shorter than the longest byte order
// mark, is the start of a mark, read or not: "\xff\xfe" alone could be
// UTF-16 or UTF-32, and deciding on it would misread the text.
func markUnfinished(head []byte) bool {
	for _, mark := range [][]byte{{0xff, 0xfe, 0, 0}, {0xfe, 0xff}, {0, 0, 0xfe, 0xff}, {0xef, 0xbb, 0xbf}} {
		if len(head) < len(mark) && bytes.HasPrefix(mark, head) {
			return true
		}
	}
	for _, b := range unreadMarks() {
		if len(head) < len(b.mark) && bytes.HasPrefix(b.mark, head) {
			return true
		}
	}
	return false
}

// binaryHead tells a binary file from text that holds a few NUL bytes (a
// terminal log, a page with a NUL in a word): in an executable, an archive
// or an image, control bytes other than white space and ESC are more than
// one in 64 of the first bytes; in text they are next to none.
func binaryHead(head []byte) bool {
	controls := 0
	for _, c := range head {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
			controls++
		}
	}
	return controls*64 > len(head)
}

// unreadEncoding is an input in UTF-16 without a byte order mark: refused
// like a binary file, with a message that says how to read it.
type unreadEncoding string

func (e unreadEncoding) Error() string {
	return fmt.Sprintf("%s text without a byte order mark, which is not read: convert it (iconv -f %s -t UTF-8)", string(e), string(e))
}

func (e unreadEncoding) Is(target error) bool { return target == ErrBinary }

func say(warn func(string), msg string) {
	if warn != nil {
		warn(msg)
	}
}

// otherBOM names the encoding whose byte order mark starts head, among
// those that are not read.
func otherBOM(head []byte) string {
	for _, b := range unreadMarks() {
		if bytes.HasPrefix(head, b.mark) {
			return b.name
		}
	}
	return ""
}

type namedMark struct {
	mark []byte
	name string
}

// unreadMarks are the byte order marks of the encodings that are not read.
func unreadMarks() []namedMark {
	return []namedMark{
		{[]byte{0x2b, 0x2f, 0x76}, "UTF-7"},
		{[]byte{0x84, 0x31, 0x95, 0x33}, "GB-18030"},
		{[]byte{0xdd, 0x73, 0x66, 0x73}, "UTF-EBCDIC"},
		{[]byte{0xf7, 0x64, 0x4c}, "UTF-1"},
		{[]byte{0x0e, 0xfe, 0xff}, "SCSU"},
		{[]byte{0xfb, 0xee, 0x28}, "BOCU-1"},
	}
}

// utf16NoBOM tells UTF-16 text without a mark from other bytes with NULs:
// ASCII text in UTF-16 has a NUL in nearly every other byte.
func utf16NoBOM(head []byte) string {
	n := len(head) &^ 1
	if n < 16 {
		return ""
	}
	even, odd := 0, 0
	for i := 0; i < n; i += 2 {
		if head[i] == 0 {
			even++
		}
		if head[i+1] == 0 {
			odd++
		}
	}
	switch half := n / 2; {
	case odd*10 >= half*9 && even*10 < half:
		return "UTF-16LE"
	case even*10 >= half*9 && odd*10 < half:
		return "UTF-16BE"
	}
	return ""
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// utf16Reader decodes UTF-16 to UTF-8 as it is read; an unpaired surrogate
// becomes U+FFFD, as everywhere in Go.
type utf16Reader struct {
	r    *bufio.Reader
	skip int
	le   bool
	out  []byte
	err  error
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	if u.skip > 0 {
		_, _ = u.r.Discard(u.skip)
		u.skip = 0
	}
	for len(u.out) == 0 && u.err == nil {
		u.fill()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	if n > 0 {
		return n, nil
	}
	return 0, u.err
}

func (u *utf16Reader) unit(b []byte) uint16 {
	if u.le {
		return uint16(b[0]) | uint16(b[1])<<8
	}
	return uint16(b[1]) | uint16(b[0])<<8
}

func (u *utf16Reader) fill() {
	var in [4096]byte
	n, err := io.ReadAtLeast(u.r, in[:], 2)
	if n%2 == 1 {
		// One byte of the next unit: wait for it, or end with U+FFFD.
		if b, e := u.r.ReadByte(); e == nil {
			in[n] = b
			n++
		} else {
			n--
			u.out = utf8.AppendRune(u.out, utf8.RuneError)
		}
	}
	buf := u.out[:0]
	for i := 0; i+1 < n; i += 2 {
		c := u.unit(in[i:])
		if utf16.IsSurrogate(rune(c)) && c < 0xdc00 {
			// A high surrogate: its pair is the next unit, which may be
			// in the next read.
			if i+3 >= n {
				if b, e := u.r.Peek(2); e == nil {
					_, _ = u.r.Discard(2)
					buf = utf8.AppendRune(buf, utf16.DecodeRune(rune(c), rune(u.unit(b))))
					continue
				}
				buf = utf8.AppendRune(buf, utf8.RuneError)
				continue
			}
			d := u.unit(in[i+2:])
			if r := utf16.DecodeRune(rune(c), rune(d)); r != utf8.RuneError {
				buf = utf8.AppendRune(buf, r)
				i += 2
				continue
			}
		}
		buf = utf8.AppendRune(buf, rune(c)) // a lone surrogate is U+FFFD here
	}
	u.out = buf
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	if n == 0 || err != nil {
		u.err = err
		if u.err == nil {
			u.err = io.EOF
		}
	}
}

// utf32Reader decodes UTF-32 to UTF-8 as it is read.
type utf32Reader struct {
	r    *bufio.Reader
	skip int
	le   bool
	out  []byte
	err  error
}

func (u *utf32Reader) Read(p []byte) (int, error) {
	if u.skip > 0 {
		_, _ = u.r.Discard(u.skip)
		u.skip = 0
	}
	for len(u.out) == 0 && u.err == nil {
		var in [4096]byte
		n, err := io.ReadAtLeast(u.r, in[:], 4)
		buf := u.out[:0]
		for i := 0; i+3 < n; i += 4 {
			var c uint32
			if u.le {
				c = uint32(in[i]) | uint32(in[i+1])<<8 | uint32(in[i+2])<<16 | uint32(in[i+3])<<24
			} else {
				c = uint32(in[i+3]) | uint32(in[i+2])<<8 | uint32(in[i+1])<<16 | uint32(in[i])<<24
			}
			buf = utf8.AppendRune(buf, rune(c)) // out of range: U+FFFD
		}
		// A partial unit at the end of a read: read whole units only.
		if rest := n % 4; rest != 0 {
			var tail [4]byte
			copy(tail[:], in[n-rest:n])
			if _, e := io.ReadFull(u.r, tail[rest:]); e == nil {
				c := uint32(tail[0]) | uint32(tail[1])<<8 | uint32(tail[2])<<16 | uint32(tail[3])<<24
				if !u.le {
					c = uint32(tail[3]) | uint32(tail[2])<<8 | uint32(tail[1])<<16 | uint32(tail[0])<<24
				}
				buf = utf8.AppendRune(buf, rune(c))
			} else {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			}
		}
		u.out = buf
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		if err != nil {
			u.err = err
		}
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	if n > 0 {
		return n, nil
	}
	return 0, u.err
}

// InputError is a failure to read one named input as text (ErrBinary). It
// is the one line a command prints, naming the input once, with the kind
// of a failed read.
type InputError struct {
	Name string
	Err  error
}

func (e *InputError) Error() string             { return "cannot read " + e.Name + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error             { return e.Err }
func (e *InputError) FailureKind() failure.Kind { return failure.IO }

// OpenLazy is Open, done when the input is first read, so that stdin is
// not waited for before the inputs before it are done; name names the
// input in warnings and errors ("-" is stdin).
func OpenLazy(r io.Reader, name string, f Format, warn func(string)) io.Reader {
	shown := name
	if name == "-" || name == "" {
		shown = "stdin"
	}
	return &lazyReader{open: func() io.Reader {
		return Open(r, name, f, func(msg string) {
			if warn != nil {
				warn(shown + ": " + msg)
			}
		})
	}, name: shown}
}

type lazyReader struct {
	open func() io.Reader
	r    io.Reader
	name string
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.r == nil {
		l.r = l.open()
	}
	n, err := l.r.Read(p)
	switch {
	case errors.Is(err, ErrBinary):
		err = &InputError{Name: l.name, Err: err}
	case errors.Is(err, ErrHTMLToken):
		// The input is text, but not text this reader can hold: read
		// as text (--input text), it can be.
		err = failure.Wrap(failure.Input, err, "cannot read the input: "+err.Error())
	}
	return n, err
}
