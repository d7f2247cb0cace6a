package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/itchyny/gojq"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, failure.New(failure.Usage, "invalid --jq expression: %s", sanitize.Line(err.Error()))
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, failure.New(failure.Usage, "invalid --jq expression: %s", sanitize.Line(err.Error()))
	}
	return code, nil
}

// jqPrinter applies --jq to each record on its own, whatever the format and
// however many values there are: with several values it behaves like
// `jq -r EXPR` over the ndjson stream rather than over the json array, which
// keeps memory flat and output flowing. An expression that needs every record
// at once (length, group_by, add over the array) is for `-o json | jq`.
// A failed value reaches the expression as its error record.
//
// Results print like `jq -r`: a string as raw text, anything else as JSON,
// one per line; JSON is compact when piped and indented on a terminal. On a
// terminal, raw strings go through sanitize.Multiline and JSON text through
// sanitize.JSON, because a raw string is exactly how escape sequences from
// the server would otherwise reach it.
type jqPrinter struct {
	opts Options
	code *gojq.Code
	buf  bytes.Buffer
}

func (p *jqPrinter) Add(r Record) error {
	var v any
	if r.Err != nil {
		v = errorRecordValue(r)
	} else {
		doc, err := recordJSON(r)
		if err != nil {
			return err
		}
		if v, err = decodeJSONValue(doc); err != nil {
			return err
		}
	}
	return runJQ(p.opts, p.code, v, &p.buf)
}

func (p *jqPrinter) Flush() error { return failure.WriteError(flush(p.opts.Out)) }
func (p *jqPrinter) Close() error { return p.Flush() }

// errorRecordValue is the error record as gojq's input types.
func errorRecordValue(r Record) any {
	rec := newErrorRecord(r)
	body := map[string]any{"kind": rec.Error.Kind, "message": rec.Error.Message}
	if rec.Error.Status != 0 {
		body["status"] = rec.Error.Status
	}
	return map[string]any{"query": rec.Query, "error": body}
}

// decodeJSONValue decodes one JSON document into the types gojq takes.
// Numbers stay json.Number, which gojq accepts and prints back unchanged
// unless arithmetic touches them, so a count of 2^53+1 survives `.count`.
func decodeJSONValue(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, decodeErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, decodeErr(errors.New("unexpected data after the JSON value"))
	}
	return v, nil
}

// runJQ runs code on v and writes each result.
func runJQ(opts Options, code *gojq.Code, v any, buf *bytes.Buffer) error {
	buf.Reset()
	iter := code.Run(v)
	for {
		out, ok := iter.Next()
		if !ok {
			break
		}
		if err, isErr := out.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				break // `halt`: stop quietly, like jq
			}
			// Print what came before the error, as jq does.
			if _, werr := opts.Out.Write(buf.Bytes()); werr != nil {
				return failure.WriteError(werr)
			}
			return &RecordError{Err: failure.New(failure.Usage, "--jq: %s", sanitize.Line(err.Error()))}
		}
		if s, isStr := out.(string); isStr {
			if opts.TTY {
				s = sanitize.Multiline(s)
			}
			buf.WriteString(s)
		} else {
			b, err := gojq.Marshal(out)
			if err != nil {
				return failure.New(failure.Usage, "--jq: %s", sanitize.Line(err.Error()))
			}
			if opts.TTY {
				var ind bytes.Buffer
				if json.Indent(&ind, b, "", "  ") == nil {
					b = ind.Bytes()
				}
				b = sanitize.JSON(b)
			}
			buf.Write(b)
		}
		buf.WriteByte('\n')
	}
	_, err := opts.Out.Write(buf.Bytes())
	return failure.WriteError(err)
}
