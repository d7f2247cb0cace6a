package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// PrintEvents prints the events/me payload, whose shape the API does not
// specify, so every format works from the JSON alone, keeping the server's
// key order and numbers as sent:
//
//   - json: the bytes as received, indented on a terminal, compact when piped.
//   - ndjson: compact, on one line.
//   - table: an object is "key: value" lines, nested objects spread into
//     dotted keys (user.name) and arrays of scalars joined, then a titled
//     table for each field holding an array of objects; an array of objects
//     is such a table. A table too wide for the terminal is a record view.
//     Anything else prints one value per line. All of it is sanitized and
//     capped like every table (see maxRows).
//   - csv: one row per element of the payload's main array (the payload
//     itself when it is an array, else its longest array of objects), with a
//     column per dotted key; a payload with no such array is one row of its
//     dotted keys; a scalar is a "value" column.
//
// --jq runs on the payload and replaces the format. A body that is not JSON
// is an error of kind failure.Decode.
func PrintEvents(opts Options, raw []byte) error {
	if err := renderEvents(opts, raw); err != nil {
		return err
	}
	return writeErr(flush(opts.Out))
}

func renderEvents(opts Options, raw []byte) error {
	if opts.Out == nil {
		return errors.New("output: no writer")
	}
	if !json.Valid(raw) {
		return failure.New(failure.Decode, "the events response is not valid JSON")
	}
	if opts.JQ != "" {
		code, err := compileJQ(opts.JQ)
		if err != nil {
			return err
		}
		v, err := decodeJSONValue(raw)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		return runJQ(opts, code, v, &buf)
	}
	var b bytes.Buffer
	switch opts.Format {
	case JSON, NDJSON:
		if err := formatJSON(&b, raw, opts.TTY && opts.Format == JSON, false); err != nil {
			return decodeErr(err)
		}
		b.WriteByte('\n')
		return writeJSON(opts, b.Bytes())
	case CSV:
		v, err := decodeOrdered(raw, csvLimits)
		if err != nil {
			return err
		}
		return writeEventsCSV(opts, v)
	case Table, "":
		v, err := decodeOrdered(raw, tableLimits)
		if err != nil {
			return err
		}
		eventsTable(opts, &b, v)
		_, err = opts.Out.Write(b.Bytes())
		return writeErr(err)
	}
	if err := CheckFormat("events", opts.Format); err != nil {
		return err
	}
	return failure.New(failure.Usage, "events cannot write -o %s yet", opts.Format)
}

func eventsTable(o Options, b *bytes.Buffer, v any) {
	if objs, ok := objectsOf(v); ok {
		writeObjectsTable(o, b, "", v.(*array), objs)
		return
	}
	if obj, ok := v.(*object); ok && len(obj.keys) > 0 {
		writeEventsObject(o, b, obj)
		return
	}
	writeIndented(o, b, v, 0)
}

// writeIndented shows a payload that is neither an object nor an array of
// objects (a scalar, an array of scalars, empty values) as indented JSON in
// the server's order, with strings sanitized rather than \u-escaped, so
// that an escape sequence's payload does not show either.
func writeIndented(o Options, b *bytes.Buffer, v any, depth int) {
	pad := strings.Repeat("  ", depth+1)
	if depth >= maxIndentDepth {
		// Deeper levels on one line: indentation would grow with the
		// square of the depth.
		b.WriteString(sanitize.String(compactText(v, maxCellRunes)))
		v = nil
	}
	switch v := v.(type) {
	case *object:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			break
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(pad + jsonString(k) + ": ")
			writeIndented(o, b, v.vals[i], depth+1)
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(pad[2:] + "}")
	case *array:
		if len(v.elems) == 0 {
			b.WriteString("[]")
			break
		}
		b.WriteString("[\n")
		for i, e := range v.elems {
			b.WriteString(pad)
			writeIndented(o, b, e, depth+1)
			if i < len(v.elems)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(pad[2:] + "]")
	case string:
		b.WriteString(jsonString(v))
	case nil:
		if depth < maxIndentDepth {
			b.WriteString("null")
		}
	default:
		s, _ := scalarString(v)
		b.WriteString(s)
	}
	if depth == 0 {
		b.WriteByte('\n')
		if a, ok := v.(*array); ok {
			writeMore(o, b, a.more, "elements")
		}
	}
}

const maxIndentDepth = 16

// jsonString quotes s as JSON after sanitizing it, without HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(sanitize.String(s))
	return strings.TrimSuffix(b.String(), "\n")
}

// writeEventsObject writes the object's fields as aligned lines and its
// arrays of objects as tables after them.
func writeEventsObject(o Options, b *bytes.Buffer, obj *object) {
	fields, more := flatten(obj, maxFields)
	var lines []field
	var tables []flatField
	for _, f := range fields {
		if _, ok := objectsOf(f.val); ok {
			tables = append(tables, f)
			continue
		}
		lines = append(lines, field{sanitize.String(f.key), valueCell(o, f.val, false)})
	}
	writeFields(o, b, lines)
	writeMore(o, b, more, "fields")
	for i, t := range tables {
		if i > 0 || len(lines) > 0 {
			b.WriteByte('\n')
		}
		objs, _ := objectsOf(t.val)
		writeObjectsTable(o, b, t.key, t.val.(*array), objs)
	}
}

// writeObjectsTable writes an array of objects as a table (or record view)
// under a title giving its name and size.
func writeObjectsTable(o Options, b *bytes.Buffer, name string, arr *array, objs []*object) {
	if name != "" {
		title := fmt.Sprintf("%s (%d)", sanitize.String(name), len(arr.elems)+arr.more)
		if o.Width > 0 {
			title = shorten(title, o.Width, kindText)
		}
		b.WriteString(o.style(styleBold, title) + "\n")
	}
	recs := make([]any, len(objs))
	for i, obj := range objs {
		recs[i] = obj
	}
	g, moreCols := recordsGrid(o, recs, false)
	writeTableOrRecords(o, b, g)
	writeMore(o, b, arr.more, "records")
	writeMore(o, b, moreCols, "fields")
}

// csvLimits keep CSV complete for any realistic payload while bounding a
// hostile one; a column beyond maxCSVColumns goes into the "more" column.
var csvLimits = decodeLimits{elems: 1 << 20, fields: 1 << 12, runes: 1 << 20, nodes: 4 << 20}

const maxCSVColumns = 256

// writeEventsCSV writes one row per element of the payload's main array
// (the payload itself when there is none), under a header of dotted keys in
// the order first seen. Keys beyond maxCSVColumns are kept, as key=value
// text, in a last "more" column, so that a payload of many distinct keys
// costs rows, not rows × keys. Rows are written one at a time.
func writeEventsCSV(o Options, v any) error {
	recs := []any{v}
	if main := mainArray(v); main != nil {
		recs = main.elems
	} else if a, ok := v.(*array); ok {
		recs = a.elems
	}
	flat := make([][]flatField, len(recs))
	for r, rec := range recs {
		obj, ok := rec.(*object)
		if !ok {
			obj = &object{keys: []string{"value"}, vals: []any{rec}}
		}
		flat[r], _ = flatten(obj, csvLimits.fields)
	}
	header, index, overflow := csvHeader(flat)
	w := csv.NewWriter(o.Out)
	write := func(row []string) error {
		for i, c := range row {
			row[i] = o.csvCell(c) // in place: a copy per row was most of the cost
		}
		return w.Write(row)
	}
	if err := write(header); err != nil {
		return writeErr(err)
	}
	row := make([]string, len(header))
	var rest []string
	for r, fields := range flat {
		clear(row)
		rest = rest[:0]
		if len(index) == 0 {
			row[0] = compactText(recs[r], csvLimits.runes) // {} has no key
		}
		for _, f := range fields {
			text := compactText(f.val, csvLimits.runes)
			if i := index[f.key]; i >= 0 {
				row[i] = text
			} else {
				rest = append(rest, f.key+"="+text)
			}
		}
		if overflow {
			row[len(row)-1] = strings.Join(rest, " ")
		}
		if err := write(row); err != nil {
			return writeErr(err)
		}
	}
	w.Flush()
	return writeErr(w.Error())
}

// csvHeader lists the dotted keys in the order first seen, at most
// maxCSVColumns, then "more" when there were others (index -1); "value"
// when there are no keys at all.
func csvHeader(flat [][]flatField) (header []string, index map[string]int, overflow bool) {
	index = map[string]int{}
	for _, fields := range flat {
		for _, f := range fields {
			if _, seen := index[f.key]; seen {
				continue
			}
			if len(header) >= maxCSVColumns {
				index[f.key] = -1
				overflow = true
				continue
			}
			index[f.key] = len(header)
			header = append(header, f.key)
		}
	}
	switch {
	case len(header) == 0:
		header = []string{"value"}
	case overflow:
		header = append(header, "more")
	}
	return header, index, overflow
}

// mainArray is the payload when it is an array of objects, else the
// object's (flattened) field holding the longest array of objects, the first
// of them on a tie; nil when there is none.
func mainArray(v any) *array {
	if _, ok := objectsOf(v); ok {
		return v.(*array)
	}
	obj, ok := v.(*object)
	if !ok {
		return nil
	}
	fields, _ := flatten(obj, csvLimits.fields)
	var best *array
	for _, f := range fields {
		if _, ok := objectsOf(f.val); ok {
			a := f.val.(*array)
			if best == nil || len(a.elems) > len(best.elems) {
				best = a
			}
		}
	}
	return best
}
