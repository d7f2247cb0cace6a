package enrich

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tilookup/tilookup/pkg/failure"
)

// Field is one top-level member of an NDJSON object.
type Field struct {
	Name  string
	Value json.RawMessage // as written
}

// Fields reads the top-level members of one NDJSON line, in order. A line
// that is not one JSON object is an input error.
func Fields(raw []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotObject
	}
	var out []Field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errNotObject
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errNotObject
		}
		out = append(out, Field{Name: name, Value: v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errNotObject
	}
	if _, err := dec.Token(); err == nil {
		return nil, errNotObject // something after the object
	}
	return out, nil
}

// Lookup is the value of the field called name: the member of that name
// (the last, as encoding/json reads duplicates), else a dotted path into
// nested objects, as an Elastic export writes "destination.ip" as
// {"destination": {"ip": ...}}. A member whose own name has the dot wins.
func Lookup(fields []Field, name string) (json.RawMessage, bool) {
	var value json.RawMessage
	found := false
	for _, f := range fields {
		if f.Name == name {
			value, found = f.Value, true
		}
	}
	if found {
		return value, true
	}
	for _, f := range fields {
		rest, ok := strings.CutPrefix(name, f.Name+".")
		if !ok || !bytes.HasPrefix(bytes.TrimSpace(f.Value), []byte{'{'}) {
			continue
		}
		inner, err := Fields(f.Value)
		if err != nil {
			continue
		}
		if v, ok := Lookup(inner, rest); ok {
			value, found = v, true
		}
	}
	return value, found
}

// Detection reads nested objects this many levels deep (a dotted name of
// at most this many parts; ECS's deepest common fields, such as
// threat.indicator.file.hash.sha256, have five), and at most maxLeaves
// fields of one record, so that a hostile record (10,000 levels, a million
// keys) costs a bounded walk. Deeper fields can still be named with
// --column.
const (
	maxDepth  = 8
	maxLeaves = 10_000
)

// eachLeaf calls fn with each member of an object that is not itself an
// object, named as --column names it (Lookup): a nested member by its
// dotted path, "destination.ip" for {"destination": {"ip": ...}}. An
// array is one member, read as --column reads it (Text): no name reaches
// inside it. It stops after maxLeaves members, and does not enter an
// object at depth maxDepth (fields itself is depth 1); it reports whether
// it went through every member it entered.
func eachLeaf(fields []Field, prefix string, depth int, n *int, fn func(name string, v json.RawMessage)) bool {
	for _, f := range fields {
		name := prefix + f.Name
		if bytes.HasPrefix(bytes.TrimSpace(f.Value), []byte{'{'}) {
			if depth >= maxDepth {
				continue
			}
			inner, err := Fields(f.Value)
			if err == nil && !eachLeaf(inner, name+".", depth+1, n, fn) {
				return false
			}
			continue
		}
		if *n >= maxLeaves {
			return false
		}
		*n++
		fn(name, f.Value)
	}
	return true
}

var errNotObject = failure.New(failure.Input, "not one JSON object: written back unchanged")

// Text is the text of a field's value as an indicator cell: a string's
// content, "" for null, the literal for anything else (a number, a
// boolean; an object or an array, which is no indicator).
func Text(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	if string(v) == "null" {
		return ""
	}
	return string(v)
}

// insertField writes obj (a JSON object's raw bytes, white space around it
// allowed) with member name: value added before its closing brace, every
// other byte unchanged (unknown fields, number spellings, key order).
func insertField(b *bytes.Buffer, obj []byte, name string, value []byte) bool {
	end := bytes.LastIndexByte(obj, '}')
	if end < 0 {
		return false
	}
	b.Write(obj[:end])
	inner := bytes.TrimSpace(obj[bytes.IndexByte(obj, '{')+1 : end])
	if len(inner) > 0 {
		b.WriteByte(',')
	}
	writeJSONString(b, name)
	b.WriteByte(':')
	b.Write(value)
	b.Write(obj[end:])
	return true
}

// writeJSONString writes s as a JSON string, without the HTML escapes of
// encoding/json: the output is for jq, not a web page.
func writeJSONString(b *bytes.Buffer, s string) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.WriteString(strings.TrimSuffix(sb.String(), "\n"))
}
