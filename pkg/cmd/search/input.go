package search

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
)

// maxLine bounds how much of one input line is kept: anything longer is
// rejected by ioc.Validate anyway, so the rest is skipped, not buffered.
const maxLine = ioc.MaxLen + 1

// input is one value to look up, as the user gave it.
type input struct {
	text string
	err  error // a line that could not be read whole
}

// inputs yields values in order from the arguments ("-" is stdin) and then
// each -f file, streaming: nothing is read ahead of what the pipeline asks
// for. Blank lines and lines starting with # are skipped in streams.
type inputs struct {
	args  []string
	files []string
	stdin io.Reader

	cur     *lineReader
	closer  io.Closer
	pending []string // remaining args
	fileIdx int
}

func newInputs(args, files []string, stdin io.Reader) *inputs {
	return &inputs{args: args, files: files, stdin: stdin, pending: args}
}

// next returns the next value, or ok=false at the end.
func (in *inputs) next() (input, bool, error) {
	for {
		if in.cur != nil {
			line, ok, err := in.cur.next()
			if err != nil {
				return input{}, false, err
			}
			if ok {
				return line, true, nil
			}
			in.closeCurrent()
			continue
		}
		if len(in.pending) > 0 {
			arg := in.pending[0]
			in.pending = in.pending[1:]
			if arg == "-" {
				in.cur = newLineReader(in.stdin, "stdin")
				continue
			}
			return input{text: arg}, true, nil
		}
		if in.fileIdx < len(in.files) {
			name := in.files[in.fileIdx]
			in.fileIdx++
			if name == "-" {
				in.cur = newLineReader(in.stdin, "stdin")
				continue
			}
			f, err := os.Open(name)
			if err != nil {
				return input{}, false, cmdutil.CannotRead(name, err)
			}
			in.cur, in.closer = newLineReader(f, name), f
			continue
		}
		return input{}, false, nil
	}
}

// ready reports whether next would return without a read that could
// block: the current stream holds the next value whole in its buffer.
// It may say false when next would not block; never true when it would.
func (in *inputs) ready() bool {
	return in.cur != nil && in.cur.ready()
}

func (in *inputs) closeCurrent() {
	if in.closer != nil {
		in.closer.Close()
	}
	in.cur, in.closer = nil, nil
}

func (in *inputs) close() { in.closeCurrent() }

// lineReader reads one value per line: CRLF and a leading UTF-8 BOM are
// handled, blank lines and # comments skipped, over-long lines reported.
type lineReader struct {
	r     *bufio.Reader
	name  string
	first bool
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), name: name, first: true}
}

func (l *lineReader) next() (input, bool, error) {
	for {
		line, tooLong, err := l.readLine()
		if err == io.EOF && line == nil {
			return input{}, false, nil
		}
		if err != nil && err != io.EOF {
			return input{}, false, cmdutil.CannotRead(l.name, err)
		}
		if l.first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			l.first = false
		}
		text := strings.TrimSpace(string(line))
		if tooLong {
			return input{text: text, err: failure.New(failure.Input,
				"value is longer than the %d bytes allowed", ioc.MaxLen)}, true, nil
		}
		if text == "" || text[0] == '#' {
			if err == io.EOF {
				return input{}, false, nil
			}
			continue
		}
		return input{text: text}, true, nil
	}
}

// ready reports whether the buffer holds, past any lines next would skip,
// a whole line that next would return.
func (l *lineReader) ready() bool {
	if l.first {
		return false
	}
	buf, _ := l.r.Peek(l.r.Buffered()) // no read: never more than is buffered
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return false
		}
		text := bytes.TrimSpace(buf[:i])
		if len(text) > 0 && text[0] != '#' {
			return true
		}
		buf = buf[i+1:]
	}
}

// readLine returns one line without its end of line; past maxLine bytes
// the rest of the line is discarded and tooLong is set.
func (l *lineReader) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(buf)+len(chunk) <= maxLine {
			buf = append(buf, chunk...)
		} else {
			tooLong = true
			if len(buf) < maxLine {
				buf = append(buf, chunk[:maxLine-len(buf)]...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 {
			return nil, false, io.EOF
		}
		buf = bytes.TrimRight(buf, "\r\n")
		if tooLong {
			buf = []byte(fmt.Sprintf("%.40s…", buf))
		}
		return buf, tooLong, err
	}
}
