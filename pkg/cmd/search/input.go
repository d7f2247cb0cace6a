package search

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// Every rule about an input line lives in this file:
//   - arguments first, in order; "-" among them is stdin; then each -f FILE
//     ("-" is stdin too);
//   - a leading UTF-8 byte order mark is dropped, CRLF is LF, surrounding
//     whitespace is trimmed;
//   - blank lines and lines starting with # are skipped;
//   - a line longer than maxLine is an error record (the rest of it is
//     skipped, not buffered);
//   - a line starting with { or [ is JSON, never an indicator: the objects
//     that extract and detect write (one per line, or an array of them over
//     one or many lines) give their "value"; an object without one, or JSON
//     that does not parse, is an error record;
//   - a stream whose first line is the header of detect's or extract's CSV
//     (value,type or input,value,type) or of detect's table (INPUT VALUE
//     TYPE) is read as that: the value column of each row, and detect's
//     "error: ..." rows as error records;
//   - every value is prepared (refanged, detected, normalised) once, here.

// maxLine bounds how much of one plain input line is kept: anything longer
// is rejected by ioc.Validate anyway.
const maxLine = ioc.MaxLen + 1

// maxJSON bounds one JSON value read from the input.
const maxJSON = 1 << 20

// input is one value as the user gave it.
type input struct {
	text   string
	err    error // a line that could not be used
	offset int64 // bytes of the input read when this value ended
}

// source yields prepared items from the arguments, stdin and files.
type source struct {
	in     *inputs
	refang bool

	// skip is how many values are still to be skipped (--skip): each
	// input is one record of the output, rejected lines too, so a run
	// goes on where an interrupted one stopped by skipping as many
	// values as it had records.
	skip int

	// Next runs on the run's reader goroutine, which may still be
	// blocked in it (a pipe waiting for its writer) when the run ends:
	// total reads these without waiting for it, and takes mu to read on
	// only over regular files, which never block.
	mu   sync.Mutex
	read atomic.Int64 // values read, skipped ones included
	end  atomic.Bool  // the input was read to its end
}

func (s *source) Next() (lookup.Item, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		in, ok, err := s.in.next()
		if err != nil || !ok {
			s.end.Store(err == nil)
			return lookup.Item{}, false, err
		}
		s.read.Add(1)
		if s.skip > 0 {
			s.skip--
			continue
		}
		return prepare(in, s.refang), true, nil
	}
}

// total is how many values the input holds, skipped ones included, or -1
// when that cannot be known without waiting (a pipe, a terminal).
// countRest (every input is a regular file) reads the rest of the input
// to count it, after an interrupt: the same parsing as the run's, so the
// count is exact.
func (s *source) total(countRest bool) int {
	if !s.end.Load() && countRest {
		s.mu.Lock()
		for !s.end.Load() {
			_, ok, err := s.in.next()
			if err != nil {
				break
			}
			if !ok {
				s.end.Store(true)
				break
			}
			s.read.Add(1)
		}
		s.mu.Unlock()
	}
	if !s.end.Load() {
		return -1
	}
	return int(s.read.Load())
}

// prepare turns an input into the item that is looked up.
func prepare(in input, refang bool) lookup.Item {
	it := lookup.Item{Input: in.text, Err: in.err, Offset: in.offset}
	if it.Err == nil {
		it.Value, it.Type, it.Err = ioc.Prepare(in.text, refang)
	}
	return it
}

// inputs yields values in order from the arguments and then each -f file,
// streaming: nothing is read ahead of what is asked for.
type inputs struct {
	stdin   io.Reader
	pending []string   // remaining arguments
	names   []string   // remaining -f files
	files   []*os.File // as names; nil for "-" and for a file to open when its turn comes
	open    func(name string) (*os.File, error)

	cur    *lineReader
	closer io.Closer
	base   int64 // bytes of the streams already finished
}

func newInputs(p *inputPlan, stdin io.Reader) *inputs {
	return &inputs{stdin: stdin, pending: p.args, names: p.names, files: p.files, open: p.openLate}
}

// next returns the next value, or ok=false at the end.
func (in *inputs) next() (input, bool, error) {
	for {
		if in.cur != nil {
			v, ok, err := in.cur.next()
			if err != nil {
				return input{}, false, err
			}
			if ok {
				v.offset += in.base
				return v, true, nil
			}
			in.base += in.cur.offset
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
		if len(in.names) > 0 {
			name, f := in.names[0], in.files[0]
			in.names, in.files = in.names[1:], in.files[1:]
			if name == "-" {
				in.cur = newLineReader(in.stdin, "stdin")
				continue
			}
			if f == nil {
				var err error
				if f, err = in.open(name); err != nil {
					return input{}, false, err
				}
			}
			in.cur, in.closer = newLineReader(f, name), f
			continue
		}
		return input{}, false, nil
	}
}

func (in *inputs) closeCurrent() {
	if in.closer != nil {
		in.closer.Close()
	}
	in.cur, in.closer = nil, nil
}

// lineReader reads one value per line of a stream.
type lineReader struct {
	r      *bufio.Reader
	name   string
	first  bool
	offset int64
	json   jsonSplitter
	queue  []input // values of a JSON line, handed out one by one
	// columns is set when the stream is detect's or extract's CSV or
	// table, whose header was its first line.
	columns *columns
	started bool // a line that is not blank was read
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), name: name, first: true}
}

func (l *lineReader) next() (input, bool, error) {
	for {
		if len(l.queue) > 0 {
			v := l.queue[0]
			l.queue = l.queue[1:]
			return v, true, nil
		}
		line, tooLong, err := l.readLine()
		if err == io.EOF && line == nil {
			if l.json.active() {
				text := l.json.excerpt()
				l.json.reset()
				return input{text: text, err: errJSON("the input ends inside a JSON value"), offset: l.offset}, true, nil
			}
			return input{}, false, nil
		}
		if err != nil && err != io.EOF {
			return input{}, false, cmdutil.CannotRead(l.name, err)
		}
		if l.first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			l.first = false
		}
		untrimmed := line
		line = bytes.TrimSpace(line)
		if !l.started && len(line) > 0 {
			l.started = true
			if l.columns = headerColumns(line); l.columns != nil {
				continue
			}
		}
		switch {
		case l.columns != nil && len(line) > 0 && !tooLong:
			l.queue = append(l.queue, l.columns.row(untrimmed, l.offset))
		case tooLong && isJSONStart(line):
			l.json.reset()
			l.queue = append(l.queue, input{text: excerpt(line), err: errJSON(fmt.Sprintf("a JSON line longer than %d bytes", maxJSON)), offset: l.offset})
		case tooLong:
			l.queue = append(l.queue, input{text: excerpt(line), err: failure.New(failure.Input,
				"value is longer than the %d bytes allowed", ioc.MaxLen), offset: l.offset})
		case l.json.active() && !continuesJSON(line):
			// The pending JSON never ended: report it, and read this line
			// afresh, so that a stray { never swallows the values after it.
			l.queue = append(l.queue, input{text: l.json.excerpt(), err: errJSON("a JSON value that does not end"), offset: l.offset})
			l.json.reset()
			l.plainOrJSON(line)
		case l.json.active():
			l.feedJSON(line)
		case len(line) == 0 || line[0] == '#':
		default:
			l.plainOrJSON(line)
		}
	}
}

// plainOrJSON reads a line that starts no JSON yet: JSON when it is a whole
// JSON value or plainly the start of one ({" or [{ or [" or a lone bracket),
// else a value, even when it starts with a bracket ([2001:db8::1]:443,
// [evil.example], [TLP:AMBER] ...).
func (l *lineReader) plainOrJSON(line []byte) {
	if isJSONStart(line) && (json.Valid(line) || opensJSON(line)) {
		l.feedJSON(line)
		return
	}
	l.queue = append(l.queue, input{text: string(line), offset: l.offset})
}

func (l *lineReader) feedJSON(line []byte) {
	l.json.feed(line, func(raw []byte, ferr error) {
		l.queue = append(l.queue, jsonValue(raw, ferr, l.offset))
	})
}

// opensJSON tells a line that begins a JSON object or array spread over
// lines, as extract, detect and jq write them.
func opensJSON(line []byte) bool {
	rest := bytes.TrimLeft(line[1:], " \t")
	switch line[0] {
	case '[':
		return len(rest) == 0 || rest[0] == '{' || rest[0] == '"'
	case '{':
		return len(rest) == 0 || rest[0] == '"'
	}
	return false
}

// continuesJSON tells a line that may go on a JSON value spread over lines:
// a key or string, a bracket, or a comma. A line like a bare indicator
// cannot.
func continuesJSON(line []byte) bool {
	return len(line) == 0 || bytes.IndexByte([]byte(`"{}[],`), line[0]) >= 0
}

func isJSONStart(line []byte) bool { return len(line) > 0 && (line[0] == '{' || line[0] == '[') }

// readLine returns one line without its end of line. Past the limit (a
// plain line's, or a JSON line's) the rest of the line is discarded and
// tooLong is set.
func (l *lineReader) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	limit := maxLine
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.offset += int64(len(chunk))
		if buf == nil && (l.json.active() || isJSONStart(bytes.TrimLeft(chunk, " \t\xef\xbb\xbf"))) {
			limit = maxJSON
		}
		if len(buf)+len(chunk) <= limit {
			buf = append(buf, chunk...)
		} else {
			tooLong = true
			if len(buf) < limit {
				buf = append(buf, chunk[:limit-len(buf)]...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 {
			return nil, false, io.EOF
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}

// excerpt is the start of an over-long or broken line, for its error record.
func excerpt(b []byte) string {
	const n = 40
	if len(b) <= n {
		return string(b)
	}
	return strings.ToValidUTF8(string(b[:n]), "") + "…"
}

func errJSON(why string) error {
	return failure.New(failure.Input, "%s (a line starting with { or [ is read as the JSON that extract and detect write)", why)
}

// jsonValue turns one JSON value of the input into the value it names.
func jsonValue(raw []byte, err error, offset int64) input {
	if err != nil {
		return input{text: excerpt(raw), err: errJSON(err.Error()), offset: offset}
	}
	var v struct {
		Value *string `json:"value"`
		Input string  `json:"input"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	var s string
	switch {
	case raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
		return input{text: s, offset: offset}
	case raw[0] != '{':
		return input{text: excerpt(raw), err: errJSON("a JSON value that is neither an object with \"value\" nor a string"), offset: offset}
	case json.Unmarshal(raw, &v) != nil:
		return input{text: excerpt(raw), err: errJSON("JSON that does not parse"), offset: offset}
	case v.Value != nil:
		return input{text: strings.TrimSpace(*v.Value), offset: offset}
	case v.Error != nil:
		// An error record of detect: the value it could not read.
		return input{text: v.Input, err: failure.New(failure.Input, "%s", v.Error.Message), offset: offset}
	}
	return input{text: excerpt(raw), err: errJSON("a JSON object without a \"value\""), offset: offset}
}

// jsonSplitter cuts JSON input into values as lines arrive: a top-level
// object is one value, a top-level array gives each of its elements, so
// that an array over a million lines costs one element of memory.
type jsonSplitter struct {
	inArray bool
	buf     []byte // the value being read; nil between values
	depth   int
	inStr   bool
	esc     bool
}

func (s *jsonSplitter) active() bool { return s.inArray || s.buf != nil }
func (s *jsonSplitter) reset()       { *s = jsonSplitter{} }
func (s *jsonSplitter) excerpt() string {
	return excerpt(s.buf)
}

// feed reads one line (without its end of line); emit gets each complete
// value, or the broken text and an error (the splitter then starts over).
func (s *jsonSplitter) feed(line []byte, emit func([]byte, error)) {
	fail := func(why string) {
		emit(append(s.buf, line...), fmt.Errorf("%s", why))
		s.reset()
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if s.buf == nil {
			switch {
			case c == ' ' || c == '\t' || c == '\r':
				continue
			case s.inArray && c == ',':
				continue
			case s.inArray && c == ']':
				s.inArray = false
				continue
			case !s.inArray && c == '[':
				s.inArray = true
				continue
			case !s.inArray && c != '{':
				fail("text after a JSON value on the same line")
				return
			}
			s.buf = make([]byte, 0, 64)
		}
		if s.depth == 0 && !s.inStr && len(s.buf) > 0 && s.buf[0] != '{' && s.buf[0] != '[' && s.buf[0] != '"' &&
			(c == ',' || c == ']' || c == ' ' || c == '\t') {
			// the end of a bare scalar in an array
			emit(s.buf, nil)
			s.buf = nil
			i--
			continue
		}
		s.buf = append(s.buf, c)
		if len(s.buf) > maxJSON {
			fail(fmt.Sprintf("a JSON value longer than %d bytes", maxJSON))
			return
		}
		if s.inStr {
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inStr = false
			}
		} else {
			switch c {
			case '"':
				s.inStr = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
			}
		}
		if s.depth == 0 && !s.inStr && (c == '}' || c == ']' || (c == '"' && len(s.buf) > 1)) {
			emit(s.buf, nil)
			s.buf = nil
		}
		if s.depth < 0 {
			fail("unbalanced JSON brackets")
			return
		}
	}
	if s.buf != nil && s.depth == 0 && !s.inStr && s.buf[0] != '{' && s.buf[0] != '[' && s.buf[0] != '"' {
		emit(s.buf, nil) // a bare scalar at the end of a line
		s.buf = nil
	}
	if s.buf != nil {
		s.buf = append(s.buf, '\n')
	}
}

// columns reads the rows of detect's or extract's CSV or table output.
type columns struct {
	csv bool
	// CSV: the fields of the value and the type (-1: none). Table: where
	// the VALUE and TYPE columns start, in runes.
	valueAt, typeAt int
}

// headerColumns recognises the header lines that detect and extract
// write, or returns nil.
func headerColumns(line []byte) *columns {
	switch strings.ToLower(string(bytes.TrimSpace(line))) {
	case "value,type":
		return &columns{csv: true, valueAt: 0, typeAt: 1}
	case "input,value,type":
		return &columns{csv: true, valueAt: 1, typeAt: 2}
	}
	s := string(line)
	if f := strings.Fields(s); len(f) == 3 && f[0] == "INPUT" && f[1] == "VALUE" && f[2] == "TYPE" {
		return &columns{
			valueAt: utf8.RuneCountInString(s[:strings.Index(s, "VALUE")]),
			typeAt:  utf8.RuneCountInString(s[:strings.LastIndex(s, "TYPE")]),
		}
	}
	return nil
}

// row reads one row (for a table, the line untrimmed: columns are found
// by position, since an input may hold spaces or be empty).
func (c *columns) row(line []byte, offset int64) input {
	var value, typ string
	if c.csv {
		rec, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil || len(rec) <= c.valueAt {
			return input{text: excerpt(line), err: failure.New(failure.Input, "a CSV row that does not parse: %s", excerpt(line)), offset: offset}
		}
		value = rec[c.valueAt]
		if c.typeAt < len(rec) {
			typ = rec[c.typeAt]
		}
	} else {
		r := []rune(string(line))
		if len(r) <= c.valueAt {
			return input{text: excerpt(line), err: failure.New(failure.Input, "a table row without a VALUE column: %s", excerpt(line)), offset: offset}
		}
		value = string(r[c.valueAt:min(c.typeAt, len(r))])
		if len(r) > c.typeAt {
			typ = string(r[c.typeAt:])
		}
	}
	value, typ = strings.TrimSpace(value), strings.TrimSpace(typ)
	if msg, ok := strings.CutPrefix(typ, "error: "); ok {
		return input{text: value, err: failure.New(failure.Input, "%s", msg), offset: offset}
	}
	if c.csv && !isTypeOf(typ, value) {
		// Not a row detect or extract wrote (1.2.3.4,5.6.7.8 under a
		// value,type header): the line is read as it is, so that the
		// second value is reported with it, never dropped.
		return input{text: string(bytes.TrimSpace(line)), offset: offset}
	}
	return input{text: value, offset: offset}
}

// isTypeOf tells whether typ is the type detect and extract write for
// value: the name, in pkg/ioc's table, of the type value is detected as
// (unknown included, since both write unknown values too).
func isTypeOf(typ, value string) bool {
	return typ == string(ioc.Detect(value))
}
