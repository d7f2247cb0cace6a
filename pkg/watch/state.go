// Package watch is the state and the comparison of `tilookup watch`: what
// the last good answer of each value was (per resource: the label, the
// count and a digest of the preview records, never the answer itself),
// and what changed since.
//
// The state of one NAME is one JSON document (FORMAT.md), read whole at
// the start of a run and replaced atomically at its end.
package watch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
)

// Version is the state format's version; a file of another version is
// refused, never read as if it were this one.
const Version = 1

// Format names the document, so that a JSON file that is not a watch
// state (a config, a cache entry) is recognised as foreign.
const Format = "tilookup-watch-state"

// State is one watch list: its values and their last good answers.
type State struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Name    string `json:"name"`
	Profile string `json:"profile"`
	BaseURL string `json:"base_url"`
	// CheckedAt is when the last run started (unix seconds), 0 before
	// any; Changes is how many changes it reported.
	CheckedAt int64 `json:"checked_at"`
	Changes   int   `json:"changes"`
	Errors    int   `json:"errors"`
	// Labels holds each resource's label once, for every value: the
	// label of a resource is the service's, not the value's, and 100,000
	// copies of it would not keep the state under 300 bytes a value.
	Labels map[string]string `json:"labels"`
	// Values maps each value (as prepared and sent) to its last good
	// answer.
	Values map[string]*Entry `json:"values"`
}

// Entry is the last good answer of one value.
type Entry struct {
	// At is when the answer came (unix seconds).
	At int64 `json:"t"`
	// Resources that matched, sorted by ID; none for no match.
	Resources []Resource `json:"r,omitempty"`
}

// Resource is one matching resource of an answer.
type Resource struct {
	ID     string      `json:"id"`
	Count  json.Number `json:"n"`
	Digest string      `json:"d,omitempty"` // of the preview records; "" when none
}

// New is an empty state for a watch list.
func New(name, profile, baseURL string) *State {
	return &State{Format: Format, Version: Version, Name: name, Profile: profile, BaseURL: baseURL,
		Labels: map[string]string{}, Values: map[string]*Entry{}}
}

// validName tells a NAME that is a file name on every platform, and never
// a path: 1-64 of A-Z a-z 0-9 . _ -, starting with a letter or digit.
// Written out rather than as a regexp, which a package variable would
// compile at every start-up, each TAB of completion included.
func validName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// CheckName refuses a NAME that could not be a file name of its own.
func CheckName(name string) error {
	if !validName(name) {
		return fmt.Errorf("invalid watch list name %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// ErrDamaged is the class of every error of Decode.
var ErrDamaged = errors.New("damaged or foreign watch state")

// Decode reads a state document and checks that it is one: the format
// and version, the name it was written for, and entries that make sense.
// Anything else is an error wrapping ErrDamaged, never an empty state: a
// damaged file must not make every value "new" again.
func Decode(b []byte, name string) (*State, error) {
	s, ok := decodeLines(b)
	if !ok {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		s = &State{}
		if err := dec.Decode(s); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("%w: data after the document", ErrDamaged)
		}
	}
	switch {
	case s.Format != Format:
		return nil, fmt.Errorf("%w: not a watch state (format %q)", ErrDamaged, s.Format)
	case s.Version != Version:
		return nil, fmt.Errorf("%w: format version %d, this tilookup reads version %d", ErrDamaged, s.Version, Version)
	case s.Name != name:
		return nil, fmt.Errorf("%w: written for the list %q", ErrDamaged, s.Name)
	case s.Values == nil:
		return nil, fmt.Errorf("%w: no \"values\"", ErrDamaged)
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	for v, e := range s.Values {
		if e == nil {
			return nil, fmt.Errorf("%w: value %q has no entry", ErrDamaged, v)
		}
		for _, r := range e.Resources {
			if r.ID == "" || !validCount(r.Count) || !validDigest(r.Digest) {
				return nil, fmt.Errorf("%w: value %q has a bad resource", ErrDamaged, v)
			}
		}
	}
	return s, nil
}

// decodeLines reads the layout Encode writes (the header on the first
// line, then one value a line) without decoding each value by reflection:
// a list of 100,000 values is read at the start of every run. Anything
// else (a file edited with jq, say) is ok=false, and Decode reads it as
// any JSON.
func decodeLines(b []byte) (st *State, ok bool) {
	const open = `"values":{`
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 || !bytes.HasSuffix(b[:nl], []byte(open)) || !bytes.HasSuffix(b, []byte("\n}}\n")) {
		return nil, false
	}
	head := append(bytes.Clone(b[:nl]), "}}"...)
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if err := dec.Decode(&st); err != nil || st == nil || dec.More() {
		return nil, false
	}
	// An empty list is `"values":{` and `\n}}\n` sharing one newline:
	// the body between them is nothing, not a slice from after its end.
	var body []byte
	if end := len(b) - len("\n}}\n"); end > nl {
		body = b[nl+1 : end]
	}
	st.Values = make(map[string]*Entry, bytes.Count(body, []byte{'\n'})+1)
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
			if !bytes.HasSuffix(line, []byte(",")) {
				return nil, false // only the last value has no comma
			}
			line = line[:len(line)-1]
		} else {
			body = nil
		}
		key, e, ok := decodeLine(line)
		if !ok {
			return nil, false
		}
		if _, dup := st.Values[key]; dup {
			return nil, false // encoding/json keeps the last; let it
		}
		st.Values[key] = e
	}
	return st, true
}

// decodeLine reads `"value":{"t":N}` by hand, and an entry with resources
// with encoding/json (only matched values have them).
func decodeLine(line []byte) (string, *Entry, bool) {
	if len(line) < 2 || line[0] != '"' {
		return "", nil, false
	}
	end := bytes.IndexByte(line[1:], '"') + 1
	if end <= 0 || end+1 >= len(line) || line[end+1] != ':' {
		return "", nil, false
	}
	var key string
	if raw := line[1:end]; bytes.IndexByte(raw, '\\') < 0 {
		key = string(raw)
	} else {
		return "", nil, false // an escaped quote may end elsewhere: the slow path
	}
	val := line[end+2:]
	if rest, ok := bytes.CutPrefix(val, []byte(`{"t":`)); ok && len(rest) > 1 && rest[len(rest)-1] == '}' {
		if t, err := strconv.ParseInt(string(rest[:len(rest)-1]), 10, 64); err == nil {
			return key, &Entry{At: t}, true
		}
	}
	e := &Entry{}
	dec := json.NewDecoder(bytes.NewReader(val))
	dec.UseNumber()
	if err := dec.Decode(e); err != nil || dec.More() {
		return "", nil, false
	}
	return key, e, true
}

// validDigest tells a digest previewDigest could have written (none, or
// lower-case hex): Encode writes it as it is, unquoted.
func validDigest(d string) bool {
	return strings.Trim(d, "0123456789abcdef") == ""
}

func validCount(n json.Number) bool {
	if n == "" {
		return false
	}
	_, err := n.Float64()
	return err == nil || strings.Trim(string(n), "0123456789") == ""
}

// Encode writes the state compactly (one value per line, so that a diff
// or a `grep` of the file stays readable), keys sorted.
func (s *State) Encode(w io.Writer) error {
	keys := make([]string, 0, len(s.Values))
	for k := range s.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	head := *s
	head.Values = nil
	hb, err := json.Marshal(head)
	if err != nil {
		return err
	}
	// {"format":...,"values":null} → {"format":...,"values":{ ...entries }}
	hb = bytes.TrimSuffix(hb, []byte("null}"))
	var buf bytes.Buffer
	buf.Grow(64 << 10)
	buf.Write(hb)
	buf.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
		b := appendString(buf.AvailableBuffer(), k)
		b = append(b, ':')
		b = s.Values[k].appendJSON(b)
		buf.Write(b)
		if buf.Len() >= 64<<10 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	buf.WriteString("\n}}\n")
	_, err = w.Write(buf.Bytes())
	return err
}

// appendJSON writes e as json.Marshal would (the same keys, the same
// values), without reflection: a state of 100,000 values is written at
// the end of every run.
func (e *Entry) appendJSON(b []byte) []byte {
	b = append(b, `{"t":`...)
	b = strconv.AppendInt(b, e.At, 10)
	if len(e.Resources) > 0 {
		b = append(b, `,"r":[`...)
		for i, r := range e.Resources {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = appendString(b, r.ID)
			b = append(b, `,"n":`...)
			b = append(b, r.Count...) // a number as the service wrote it, checked by Decode or EntryOf
			if r.Digest != "" {
				b = append(b, `,"d":"`...)
				b = append(b, r.Digest...)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendString appends s as a JSON string: plain text as it is, anything
// else through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// EntryOf is what the state keeps of an answer: per resource, the count
// and a digest of the preview records, in resource order. The labels go
// to the state's table (labels).
func EntryOf(resp *api.SearchResponse, at int64, labels map[string]string) *Entry {
	e := &Entry{At: at}
	if resp == nil {
		return e
	}
	for _, r := range resp.Results {
		id := r.Resource
		if id == "" {
			id = r.Label // a service that names no resource still has a label
		}
		if id == "" {
			continue
		}
		if labels != nil && r.Label != "" && labels[id] != r.Label {
			labels[id] = r.Label
		}
		count := r.Count
		if !isNumber(count) {
			// absent, null, or not a number: the state writes counts
			// as they are, so only a number goes in.
			count = "0"
		}
		e.Resources = append(e.Resources, Resource{ID: id, Count: count, Digest: previewDigest(r.Preview)})
	}
	slices.SortStableFunc(e.Resources, func(a, b Resource) int { return strings.Compare(a.ID, b.ID) })
	// A resource named twice in one answer counts once: the first wins.
	e.Resources = slices.CompactFunc(e.Resources, func(a, b Resource) bool { return a.ID == b.ID })
	return e
}

func isNumber(n json.Number) bool {
	return n != "" && (n[0] == '-' || n[0] >= '0' && n[0] <= '9') && json.Valid([]byte(n))
}

// previewDigest identifies a resource's preview records whatever their
// order (and whatever the order of their keys, which json.Marshal sorts):
// 12 hex digits, 48 bits, enough to notice a change of one value's few
// records.
func previewDigest(recs []map[string]any) string {
	if len(recs) == 0 {
		return ""
	}
	parts := make([][]byte, 0, len(recs))
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			b = []byte(fmt.Sprint(r))
		}
		parts = append(parts, b)
	}
	slices.SortFunc(parts, bytes.Compare)
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:6])
}
