package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// PrintEvents prints the events/me payload, whose shape the API does not
// specify, so every format works from the JSON alone:
//
//   - json: the bytes as received, indented on a terminal, compact when piped.
//   - ndjson: compact, on one line.
//   - table: an array of objects is a table whose columns are the union of
//     the keys, sorted; an object is "key: value" lines (sorted keys; numbers as
//     written, nested values as compact JSON), followed by a titled table for
//     each field that holds a non-empty array of objects; anything else is
//     shown as indented JSON. All of it is sanitized.
//   - csv: an array of objects is a header of the union of keys (sorted) and a
//     row per object; an object is a "key,value" header and a row per field
//     (nested values as compact JSON); any other array is a "value" column with
//     a row per element, and a lone scalar one "value" row.
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
		v, err := decodeJSONValue(raw)
		if err != nil {
			return err
		}
		return writeCSV(opts, opts.Out, eventsCSV(v))
	case Table, "":
		v, err := decodeJSONValue(raw)
		if err != nil {
			return err
		}
		if err := eventsTable(opts, &b, v); err != nil {
			return err
		}
		_, err = opts.Out.Write(b.Bytes())
		return writeErr(err)
	}
	_, err := ParseFormat(string(opts.Format))
	return err
}

// objects returns v as a list of objects when it is a non-empty array made
// only of objects, at least one of them with a field (a table needs a
// column).
func objects(v any) ([]map[string]any, bool) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, false
	}
	out := make([]map[string]any, len(arr))
	fields := 0
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		out[i] = m
		fields += len(m)
	}
	return out, fields > 0
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func eventsTable(o Options, b *bytes.Buffer, v any) error {
	tb := &tabler{}
	if objs, ok := objects(v); ok {
		return objectsTable(o, tb, b, objs)
	}
	obj, ok := v.(map[string]any)
	if !ok || len(obj) == 0 {
		// Shown as JSON, with the strings in it sanitized like any table text
		// rather than merely \u-escaped, so a payload hidden in an escape
		// sequence does not show either.
		var ind bytes.Buffer
		enc := json.NewEncoder(&ind)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(cleanValue(v)); err != nil {
			return decodeErr(err)
		}
		b.WriteString(sanitize.Multiline(ind.String()))
		return nil
	}
	var fields [][2]string
	var tables []string
	for _, k := range sortedKeys(obj) {
		if _, ok := objects(obj[k]); ok {
			tables = append(tables, k)
			continue
		}
		fields = append(fields, [2]string{sanitize.String(k), o.cell(cellValue(obj[k]))})
	}
	writeFields(o, b, fields)
	for i, k := range tables {
		if i > 0 || len(fields) > 0 {
			b.WriteByte('\n')
		}
		objs, _ := objects(obj[k])
		b.WriteString(o.style(styleBold, sanitize.String(k)) + "\n")
		if err := objectsTable(o, tb, b, objs); err != nil {
			return err
		}
	}
	return nil
}

func objectsTable(o Options, tb *tabler, b *bytes.Buffer, objs []map[string]any) error {
	keys := unionKeys(objs)
	header := make([]string, len(keys))
	for i, k := range keys {
		header[i] = o.cell(k)
	}
	rows := make([][]string, 0, len(objs))
	for _, m := range objs {
		row := make([]string, len(keys))
		for i, k := range keys {
			if val, ok := m[k]; ok {
				row[i] = o.cell(cellValue(val))
			} else {
				row[i] = o.cell("")
			}
		}
		rows = append(rows, row)
	}
	return renderTable(o, tb, b, header, rows)
}

func eventsCSV(v any) [][]string {
	if objs, ok := objects(v); ok {
		keys := unionKeys(objs)
		rows := [][]string{keys}
		for _, m := range objs {
			row := make([]string, len(keys))
			for i, k := range keys {
				if val, ok := m[k]; ok {
					row[i] = scalarText(val)
				}
			}
			rows = append(rows, row)
		}
		return rows
	}
	switch v := v.(type) {
	case map[string]any:
		rows := [][]string{{"key", "value"}}
		for _, k := range sortedKeys(v) {
			rows = append(rows, []string{k, scalarText(v[k])})
		}
		return rows
	case []any:
		rows := [][]string{{"value"}}
		for _, e := range v {
			rows = append(rows, []string{scalarText(e)})
		}
		return rows
	}
	return [][]string{{"value"}, {scalarText(v)}}
}
