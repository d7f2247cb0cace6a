package browse

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/report"
)

// Load reads a document: one JSON object, an array of them, or NDJSON
// (objects one after the other).
//
// It walks the document's tokens and decodes the arrays that can be long
// (triage's indicators and skipped, pivot's nodes and edges, an answer's
// results) one element at a time, each made an item at once: neither the
// document's bytes nor its decoded whole is ever held, only the items.
// Reading a 25 MB pivot of 100,000 nodes at once took 235 MB of RSS for
// 64 MB of items (go run ./bench/browse).
func Load(r io.Reader, name string) (*Document, error) {
	in := &reader{r: r}
	w := &walk{dec: json.NewDecoder(in), doc: &Document{}, kinds: map[string]bool{}, names: names{}}
	err := w.document()
	if err == io.EOF { // within a value: document says the end between them
		err = io.ErrUnexpectedEOF
	}
	switch {
	case in.err != nil:
		return nil, cmdutil.ReadError(in.err)
	case err != nil:
		return nil, fmt.Errorf("%s is not a JSON document of search, triage, pivot or watch: %w", name, err)
	case w.unknown:
		return nil, fmt.Errorf("%s: an object that is none of search, triage, pivot or watch's", name)
	}
	w.doc.Title = title(w.kinds, name)
	return w.doc, nil
}

// reader keeps the error of a read, which the decoder returns as its
// own: a document cut by a read error is that error, not bad JSON.
type reader struct {
	r   io.Reader
	err error
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// walk is Load's pass over the tokens.
type walk struct {
	dec   *json.Decoder
	doc   *Document
	kinds map[string]bool
	// unknown: an object was none of the four. A syntax error later in
	// the document is said first, as when the document was parsed
	// before its objects were read.
	unknown bool
	names   names
}

// names holds one copy of each short string that items repeat: types,
// resource ids and labels, counts, reasons. encoding/json makes a string
// of each; 100,000 pivot nodes held 56 bytes a node of copies.
type names map[string]string

// maxNames bounds the names kept: beyond it (strings that hardly repeat),
// a string is kept as decoded.
const maxNames = 4096

func (n names) of(s string) string {
	if len(s) > 64 {
		return s
	}
	if kept, ok := n[s]; ok {
		return kept
	}
	if len(n) < maxNames {
		n[s] = s
	}
	return s
}

// results shares the repeated strings of rs.
func (n names) results(rs []result) {
	for i := range rs {
		r := &rs[i]
		r.Resource, r.Label, r.Group, r.MatchedColumn = n.of(r.Resource), n.of(r.Label), n.of(r.Group), n.of(r.MatchedColumn)
		r.Count = json.Number(n.of(string(r.Count)))
	}
}

// document is the whole input: an array of objects, or objects one
// after the other (one, or NDJSON).
func (w *walk) document() error {
	tok, err := w.dec.Token()
	if err == io.EOF {
		return errors.New("it is empty")
	}
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		for {
			if err := w.object(tok); err != nil {
				return err
			}
			if tok, err = w.dec.Token(); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
		}
	}
	for w.dec.More() {
		if tok, err = w.dec.Token(); err != nil {
			return err
		}
		if err := w.object(tok); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // ]
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("more after the array's end")
		}
		return err
	}
	return nil
}

// object reads one object, tok its first token, and adds its items. Its
// kind is told by which fields it has, in this order: triage
// (indicators or skipped), pivot (nodes), watch (change), search (query,
// results or error).
func (w *walk) object(tok json.Token) error {
	if tok == nil { // null: an object with no fields
		w.unknown = true
		return nil
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("it holds %s where an object belongs", what(tok))
	}
	var o streamed
	// rest is the object without its long arrays, which encoding/json
	// decodes into a head (they are a few short fields).
	rest := []byte{'{'}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // a key: the decoder checks that
		if present, each := o.long(key, w.names); each != nil {
			if err := w.array(key, present, each); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := w.dec.Decode(&raw); err != nil {
			return err
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		k, _ := json.Marshal(key)
		rest = append(append(append(rest, k...), ':'), raw...)
	}
	if _, err := w.dec.Token(); err != nil { // }
		return err
	}
	var h head
	if err := json.Unmarshal(append(rest, '}'), &h); err != nil {
		return err
	}
	w.add(&o, &h)
	return nil
}

// streamed is what an object's long arrays held, each element decoded
// as it came: which arrays were present (not null), and their items.
type streamed struct {
	indicators, skipped, nodes, results bool

	triage, skips []Item
	pivot         []Item
	// ids are the pivot's node ids, by item; index maps them back once
	// an edge needs it.
	ids   []string
	index map[string]int
	// edges that came before the nodes, linked at the object's end.
	edges   []edge
	answers []result
}

// long is how the array under key is read, element by element, and the
// flag that says it was present; nil for a field that is not one of the
// long arrays. Keys match as encoding/json matches them, in any case.
func (o *streamed) long(key string, names names) (*bool, func(*json.Decoder) error) {
	switch {
	case strings.EqualFold(key, "indicators"):
		return &o.indicators, func(dec *json.Decoder) error {
			var in triageIndicator
			if err := dec.Decode(&in); err != nil {
				return err
			}
			in.Type = names.of(in.Type)
			if in.Result != nil {
				in.Result.DetectedType = names.of(in.Result.DetectedType)
				names.results(in.Result.Results)
			}
			o.triage = append(o.triage, newItem(fromAnswer(in.Value, in.Type, in.Result, in.Error)))
			return nil
		}
	case strings.EqualFold(key, "skipped"):
		return &o.skipped, func(dec *json.Decoder) error {
			var s skipped
			if err := dec.Decode(&s); err != nil {
				return err
			}
			s.Type, s.Reason = names.of(s.Type), names.of(s.Reason)
			skip := &report.Skipped{Value: s.Value, Type: s.Type, Reason: s.Reason}
			o.skips = append(o.skips, newItem(Item{Value: s.Value, Type: s.Type, Status: "skipped", Note: s.Reason, skip: skip}))
			return nil
		}
	case strings.EqualFold(key, "nodes"):
		return &o.nodes, func(dec *json.Decoder) error {
			var n pivotNode
			if err := dec.Decode(&n); err != nil {
				return err
			}
			n.Type, n.Status, n.Reason = names.of(n.Type), names.of(n.Status), names.of(n.Reason)
			names.results(n.Resources)
			o.pivot = append(o.pivot, newItem(fromNode(&n)))
			o.ids = append(o.ids, n.ID)
			return nil
		}
	case strings.EqualFold(key, "edges"):
		return nil, func(dec *json.Decoder) error {
			var e edge
			if err := dec.Decode(&e); err != nil {
				return err
			}
			if o.nodes {
				o.link(e)
			} else {
				o.edges = append(o.edges, e)
			}
			return nil
		}
	case strings.EqualFold(key, "results"):
		return &o.results, func(dec *json.Decoder) error {
			var r result
			if err := dec.Decode(&r); err != nil {
				return err
			}
			o.answers = append(o.answers, r)
			names.results(o.answers[len(o.answers)-1:])
			return nil
		}
	}
	return nil, nil
}

// array reads the array under key with each, element by element, and
// sets present (if any); null is no array.
func (w *walk) array(key string, present *bool, each func(*json.Decoder) error) error {
	tok, err := w.dec.Token()
	if err != nil || tok == nil {
		return err
	}
	if tok != json.Delim('[') {
		return fmt.Errorf("%s is %s, not an array", key, what(tok))
	}
	if present != nil {
		*present = true
	}
	for w.dec.More() {
		if err := each(w.dec); err != nil {
			return err
		}
	}
	_, err = w.dec.Token() // ]
	return err
}

// link gives both ends of e their link, as "→ value (resource.field)"
// and "← value (resource.field)". Node ids are unique in pivot's output.
func (o *streamed) link(e edge) {
	if o.index == nil {
		o.index = make(map[string]int, len(o.ids))
		for i, id := range o.ids {
			o.index[id] = i
		}
	}
	value := func(id string) string {
		if i, ok := o.index[id]; ok {
			return o.pivot[i].Value
		}
		return ""
	}
	via := " (" + e.Resource + "." + e.Field + ")"
	if i, ok := o.index[e.From]; ok {
		o.pivot[i].Links = append(o.pivot[i].Links, "→ "+value(e.To)+via)
	}
	if i, ok := o.index[e.To]; ok {
		o.pivot[i].Links = append(o.pivot[i].Links, "← "+value(e.From)+via)
	}
}

// add adds an object's items, of the first kind its fields tell.
func (w *walk) add(o *streamed, h *head) {
	switch {
	case o.indicators || o.skipped:
		w.items(o.triage)
		w.items(o.skips)
		w.kinds["triage"] = true
	case o.nodes:
		for _, e := range o.edges {
			o.link(e)
		}
		w.items(o.pivot)
		w.kinds["pivot"] = true
	case h.Change != "":
		w.items([]Item{fromChange(h)})
		w.kinds["watch"] = true
	case h.Query != "" || o.results || h.Error != nil:
		h.Results = o.answers
		w.items([]Item{newItem(fromAnswer(h.Query, h.DetectedType, &h.answer, h.Error))})
		w.kinds["search"] = true
	default:
		w.unknown = true
	}
}

// items appends items to the document's; the first object's become the
// document's own, not copied.
func (w *walk) items(items []Item) {
	if w.doc.Items == nil {
		w.doc.Items = items
		return
	}
	w.doc.Items = append(w.doc.Items, items...)
}

// what names a token's kind, for an error.
func what(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}
