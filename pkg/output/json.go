package output

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

type errorRecord struct {
	Query string    `json:"query"`
	Error errorBody `json:"error"`
}

type errorBody struct {
	Status  int    `json:"status,omitempty"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func newErrorRecord(r Record) errorRecord {
	return errorRecord{
		Query: r.query(),
		Error: errorBody{
			Status:  httpStatus(r.Err),
			Kind:    string(failure.KindOf(r.Err)),
			Message: r.Err.Error(),
		},
	}
}

// recordJSON returns the JSON document for r: the server's bytes, or an error
// record. The bytes may be r.Resp.Raw itself and must not be modified.
func recordJSON(r Record) ([]byte, error) {
	if r.Err != nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // "<" in a message is data, not HTML
		if err := enc.Encode(newErrorRecord(r)); err != nil {
			return nil, err
		}
		return bytes.TrimRight(b.Bytes(), "\n"), nil
	}
	if r.Resp == nil {
		return []byte("{}"), nil
	}
	if len(r.Resp.Raw) > 0 {
		return r.Resp.Raw, nil
	}
	// A response built in code rather than decoded has no Raw; its known
	// fields are all there is to print.
	return json.Marshal(r.Resp)
}

func decodeErr(err error) error {
	return failure.Wrap(failure.Decode, err, "the response is not valid JSON: "+err.Error())
}

// jsonPrinter writes the json format. multi makes it an array streamed
// element by element.
type jsonPrinter struct {
	opts  Options
	multi bool
	n     int
	buf   bytes.Buffer
}

func (p *jsonPrinter) Add(r Record) error {
	doc, err := recordJSON(r)
	if err != nil {
		return err
	}
	p.buf.Reset()
	switch {
	case p.multi && p.n == 0:
		p.buf.WriteString("[\n")
	case p.multi:
		p.buf.WriteString(",\n")
	}
	if p.multi && p.opts.TTY {
		p.buf.WriteString("  ")
	}
	if err := formatJSON(&p.buf, doc, p.opts.TTY, p.multi); err != nil {
		return decodeErr(err)
	}
	if !p.multi {
		p.buf.WriteByte('\n')
	}
	p.n++
	return writeJSON(p.opts, p.buf.Bytes())
}

func (p *jsonPrinter) Flush() error { return writeErr(flush(p.opts.Out)) }

func (p *jsonPrinter) Close() error {
	if p.multi {
		s := "\n]\n"
		if p.n == 0 {
			s = "[]\n"
		}
		if _, err := io.WriteString(p.opts.Out, s); err != nil {
			return writeErr(err)
		}
	}
	return writeErr(flush(p.opts.Out))
}

// formatJSON appends doc to b, indented (nested one level when inArray) or
// compact. Both keep every token's bytes, so numbers stay exact.
func formatJSON(b *bytes.Buffer, doc []byte, indent, inArray bool) error {
	if !indent {
		return json.Compact(b, doc)
	}
	prefix := ""
	if inArray {
		prefix = "  "
	}
	// json.Indent copies trailing whitespace as is: a body ending in CR
	// would put a bare CR on the terminal.
	return json.Indent(b, bytes.TrimRight(doc, " \t\r\n"), prefix, "  ")
}

// writeJSON writes JSON text, escaping what a terminal could interpret when
// the output is one.
func writeJSON(opts Options, b []byte) error {
	if opts.TTY {
		b = sanitize.JSON(b)
		if opts.Color {
			b = colorJSON(b)
		}
	}
	_, err := opts.Out.Write(b)
	return writeErr(err)
}

type ndjsonPrinter struct {
	opts Options
	buf  bytes.Buffer
}

func (p *ndjsonPrinter) Add(r Record) error {
	doc, err := recordJSON(r)
	if err != nil {
		return err
	}
	p.buf.Reset()
	if r.Err == nil && r.Resp.OneLine() {
		p.buf.Write(bytes.TrimSpace(doc)) // most answers: api.ScanSearch saw no inner white space
	} else if err := json.Compact(&p.buf, doc); err != nil {
		return decodeErr(err)
	}
	p.buf.WriteByte('\n')
	return writeJSON(p.opts, p.buf.Bytes())
}

func (p *ndjsonPrinter) Flush() error { return writeErr(flush(p.opts.Out)) }
func (p *ndjsonPrinter) Close() error { return p.Flush() }
