package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Free-form JSON (preview records, the events payload) is decoded for tables
// into these types, which keep what encoding/json's map[string]any loses:
// the order of the keys as the server sent them, and numbers as written
// (json.Number). Decoding is capped, so that what a table can show costs
// bounded memory whatever the size of the answer: see decodeLimits.
type object struct {
	keys []string
	vals []any
	more int // fields left out by the caps
}

type array struct {
	elems []any
	more  int // elements left out by the caps
}

func (o *object) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// decodeLimits bound what is kept of a document shown as a table. What is
// left out is counted, so the table can say "… N more"; -o json always has
// everything.
type decodeLimits struct {
	elems  int // elements kept per array
	fields int // fields kept per object
	runes  int // runes kept per string (longer ones end in "…")
	nodes  int // values kept in all, against deeply nested fan-out
}

var tableLimits = decodeLimits{elems: maxRows, fields: maxFields, runes: maxCellRunes, nodes: 200_000}

// decodeOrdered decodes one JSON document into object, array, string,
// json.Number, bool and nil values, within lim.
func decodeOrdered(doc []byte, lim decodeLimits) (any, error) {
	d := &orderedDecoder{dec: json.NewDecoder(bytes.NewReader(doc)), lim: lim}
	d.dec.UseNumber()
	v, err := d.value()
	if err != nil {
		return nil, decodeErr(err)
	}
	if _, err := d.dec.Token(); err != io.EOF {
		return nil, decodeErr(errors.New("unexpected data after the JSON value"))
	}
	return v, nil
}

type orderedDecoder struct {
	dec   *json.Decoder
	lim   decodeLimits
	nodes int
}

// value decodes the next value; past the node budget it is skipped and nil
// is returned with keep false.
func (d *orderedDecoder) value() (any, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, err
	}
	d.nodes++
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return d.object()
		}
		return d.array()
	case string:
		return capString(t, d.lim.runes), nil
	}
	return tok, nil // json.Number, bool, nil
}

func (d *orderedDecoder) full() bool { return d.nodes >= d.lim.nodes }

func (d *orderedDecoder) object() (any, error) {
	o := &object{}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if len(o.keys) >= d.lim.fields || d.full() {
			if err := d.skip(); err != nil {
				return nil, err
			}
			if _, dup := o.get(key); !dup {
				o.more++
			}
			continue
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		o.set(capString(key, d.lim.runes), v)
	}
	_, err := d.dec.Token() // '}'
	return o, err
}

// set keeps a repeated key where it first appeared, with the last value, as
// encoding/json keeps the last.
func (o *object) set(k string, v any) {
	for i, key := range o.keys {
		if key == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

func (d *orderedDecoder) array() (any, error) {
	a := &array{}
	for d.dec.More() {
		if len(a.elems) >= d.lim.elems || d.full() {
			if err := d.skip(); err != nil {
				return nil, err
			}
			a.more++
			continue
		}
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a.elems = append(a.elems, v)
	}
	_, err := d.dec.Token() // ']'
	return a, err
}

// skip consumes the next value without keeping it.
func (d *orderedDecoder) skip() error {
	depth := 0
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return err
		}
		if delim, ok := tok.(json.Delim); ok {
			if delim == '{' || delim == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// capString cuts s to n runes; the cut is only for display.
func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return sanitize.Truncate(s, n)
}

// scalarString shows a scalar as text: strings bare, numbers as written, null
// as "null". ok is false for objects and arrays.
func scalarString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	case nil:
		return "null", true
	}
	return "", false
}

// compactText shows any decoded value on one line: scalars as scalarString,
// arrays of scalars joined with ", ", anything else as compact key=value
// text, e.g. {type=md5 value=44d8…}. It stops at about max runes, so that a
// deep value costs no more than the cell it goes into.
func compactText(v any, max int) string {
	var b strings.Builder
	writeCompact(&b, v, max)
	return b.String()
}

func writeCompact(b *strings.Builder, v any, max int) {
	if b.Len() > max {
		return
	}
	if s, ok := scalarString(v); ok {
		b.WriteString(s)
		return
	}
	switch v := v.(type) {
	case *array:
		if !allScalars(v.elems) {
			b.WriteByte('[')
		}
		for i, e := range v.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCompact(b, e, max)
		}
		if v.more > 0 {
			b.WriteString(", …")
		}
		if !allScalars(v.elems) {
			b.WriteByte(']')
		}
	case *object:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(k)
			b.WriteByte('=')
			writeCompact(b, v.vals[i], max)
		}
		if v.more > 0 {
			b.WriteString(" …")
		}
		b.WriteByte('}')
	}
}

func allScalars(vs []any) bool {
	for _, v := range vs {
		if _, ok := scalarString(v); !ok {
			return false
		}
	}
	return true
}

// flatField is one field of a flattened object: a dotted key path and a
// value that is a scalar, an array, or an empty object.
type flatField struct {
	key string
	val any
}

// flatten lists o's fields with nested objects spread into dotted keys
// (user.name), in the server's order, at most max fields.
func flatten(o *object, max int) (fields []flatField, more int) {
	var walk func(prefix string, o *object)
	walk = func(prefix string, o *object) {
		for i, k := range o.keys {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			if sub, ok := o.vals[i].(*object); ok && len(sub.keys) > 0 {
				walk(key, sub)
				more += sub.more
				continue
			}
			if len(fields) >= max {
				more++
				continue
			}
			fields = append(fields, flatField{key, o.vals[i]})
		}
	}
	walk("", o)
	return fields, more + o.more
}

// objectsOf returns v's elements as objects when v is an array of objects
// only, with at least one field among them.
func objectsOf(v any) ([]*object, bool) {
	a, ok := v.(*array)
	if !ok || len(a.elems) == 0 {
		return nil, false
	}
	out := make([]*object, len(a.elems))
	fields := 0
	for i, e := range a.elems {
		o, ok := e.(*object)
		if !ok {
			return nil, false
		}
		out[i] = o
		fields += len(o.keys)
	}
	return out, fields > 0
}
