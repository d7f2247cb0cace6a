package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// DefaultMaxBytes is the budget of one tool response when the config key
// mcp_max_bytes is not set: small enough for any assistant's context, big
// enough for a handful of values with previews.
const DefaultMaxBytes = 30 << 10

// MinMaxBytes is the smallest budget accepted: below it not even the note
// saying what was left out fits beside a few values.
const MinMaxBytes = 4 << 10

// A value named in a note or a list of what was left out is cut to
// noteRunes, and such a list names at most maxListed: the smallest answer
// must fit the smallest budget whatever the values.
const (
	noteRunes = 100
	maxListed = 10
)

// maxString bounds one string from the service in a response. A label or
// a preview cell longer than this is a dump, not an answer.
const maxString = 2048

// The budget counts the answer as the assistant reads it: the JSON of the
// answer, once, as it goes on the wire. The SDK's convention (MCP
// 2025-06-18, "structured content") sends that JSON twice: as
// structuredContent, and as the text of the content for clients that read
// only text. A client hands its model one of the two, never both, so
// counting both gave the model half the budget. Of the two, the text copy
// is the larger on the wire: it is a JSON string, so every quote and
// backslash of the answer is escaped, and <, >, &, U+2028, U+2029 and
// control characters become six-byte \u escapes (the structured copy
// escapes the same characters, quotes and backslashes aside). Counting
// the answer's bytes before that escaping let an answer full of them
// reach 7x the budget on the wire; counting the text copy's escaped size
// keeps a response at most twice the budget plus the JSON-RPC envelope.
// README, "For AI assistants (MCP)", says so.
func textSize(data []byte) int { return escapedSize(data) }

// escapedSize is the size of data written as a JSON string by
// encoding/json (HTML escaping on, as the SDK's json.Marshal of the
// content does), without its two quotes. A test holds it to
// encoding/json's own output.
func escapedSize(data []byte) int {
	n := 0
	for i := 0; i < len(data); {
		b := data[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6 // \ufffd for a byte that is not UTF-8; \u2028, \u2029
		default:
			n += size
		}
		i += size
	}
	return n
}

// fit returns the answer to send: render(0, all), the whole answer, when
// it fits the budget, else the first of levels 1..levels-1 that does.
// Each level cuts more than the one before, so the sizes only shrink and
// a binary search finds it. Then, at that level, two fills grow as far as
// the budget allows, each in turn: fill.named (values left out that are
// named, 0..fill.named), then fill.kept (entries kept beyond what the
// level keeps, 0..fill.kept). The last level (counts and a note) is sent
// whatever its size; each tool keeps it within the smallest budget, and a
// test checks that.
//
// bound, when not nil, is a lower bound of a level's size known without
// rendering it (the preview records it keeps): a level over the budget by
// that alone is not rendered, so that a large answer is not encoded
// whole, again and again, only to be cut.
func fit[T any](budget, levels int, most filling, bound func(level int) int, render func(level int, f filling) T) (*sdk.CallToolResult, T, error) {
	var zero T
	try := func(level int, f filling) ([]byte, bool, error) {
		if bound != nil && level < levels-1 && bound(level) > budget {
			return nil, false, nil
		}
		data, err := marshal(render(level, f))
		return data, err == nil && textSize(data) <= budget, err
	}
	data, ok, err := try(0, most)
	if err != nil {
		return nil, zero, err
	}
	if ok {
		return answer(data), zero, nil
	}
	level := 0
	if _, ok, err = try(0, filling{}); err != nil {
		return nil, zero, err
	}
	if !ok && levels > 1 {
		// The first level that fits lies in (lo, hi]; hi is sent if none does.
		lo, hi := 0, levels-1
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if _, fits, err := try(mid, filling{}); err != nil {
				return nil, zero, err
			} else if fits {
				hi = mid
			} else {
				lo = mid
			}
		}
		level = hi
	}
	// grow is the most of one fill that fits, the others as in f: it
	// lies in [lo, hi).
	grow := func(f filling, set func(*filling, int), n int) (filling, error) {
		lo, hi := 0, n+1
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			g := f
			set(&g, mid)
			if _, fits, err := try(level, g); err != nil {
				return f, err
			} else if fits {
				lo = mid
			} else {
				hi = mid
			}
		}
		set(&f, lo)
		return f, nil
	}
	f, err := grow(filling{}, func(f *filling, n int) { f.named = n }, most.named)
	if err == nil && f.named == most.named && most.kept > 0 {
		f, err = grow(f, func(f *filling, n int) { f.kept = n }, most.kept)
	}
	if err != nil {
		return nil, zero, err
	}
	if data, _, err = try(level, f); err != nil {
		return nil, zero, err
	}
	return answer(data), zero, nil
}

// filling is what fit adds to a level while the budget allows: named
// values left out, then kept entries.
type filling struct{ named, kept int }

// answer is a tool result holding data, encoded once: as structured
// content (kept as encoded, so preview records keep the service's key
// order) and as its text copy.
func answer(data []byte) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(data)}}, StructuredContent: json.RawMessage(data)}
}

// marshal writes JSON as the SDK does, but without HTML escaping: an
// assistant reads "<" better than "\u003c", and the size measured is the
// size sent.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("internal error: cannot encode the answer: %v", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// clean is a string from the service as a response may hold it: made safe
// (no control or invisible characters, no bidirectional tricks) and cut to
// n runes.
func clean(s string, n int) string {
	return sanitize.Truncate(sanitize.String(s), n)
}

// freeForm is a free-form value from the service (a preview record, the
// events answer): strings sanitised and cut to maxRunes, arrays cut to
// maxItems elements (negative: no limit). It counts what it cut.
type freeForm struct {
	maxRunes int
	maxItems int
	cutItems int
	cutRunes int
}

func (f *freeForm) value(v any) any {
	switch x := v.(type) {
	case string:
		return f.str(x)
	case []any:
		n := len(x)
		if f.maxItems >= 0 && n > f.maxItems {
			f.cutItems += n - f.maxItems
			n = f.maxItems
		}
		out := make([]any, n)
		for i := range n {
			out[i] = f.value(x[i])
		}
		return out
	case map[string]any:
		return f.object(x)
	default: // json.Number, bool, nil
		return v
	}
}

func (f *freeForm) object(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out[clean(k, maxString)] = f.value(m[k])
	}
	return out
}

func (f *freeForm) str(s string) string {
	c := sanitize.String(s)
	t := sanitize.Truncate(c, f.maxRunes)
	if t != c {
		f.cutRunes++
	}
	return t
}

// plural is n and a noun, "1 value" or "3 values".
func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
