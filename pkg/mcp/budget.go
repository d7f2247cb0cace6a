package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

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

// envelope is what the JSON-RPC response around a tool result costs at
// most: {"jsonrpc":"2.0","id":…,"result":{"content":[{"type":"text",
// "text":…}],"structuredContent":…,"isError":false}}.
const envelope = 256

// maxString bounds one string from the service in a response. A label or
// a preview cell longer than this is a dump, not an answer.
const maxString = 2048

// wireSize is what out costs on the wire: the SDK sends it twice, as
// structuredContent and, for clients that only read text, as the text of
// the content (a JSON string, so with its quotes and backslashes escaped).
// Both are counted as encoding/json would write them at worst, with <, >
// and & as six-byte \u escapes.
func wireSize(data []byte) int {
	quoted, _ := json.Marshal(string(data))
	html := bytes.Count(data, []byte("<")) + bytes.Count(data, []byte(">")) + bytes.Count(data, []byte("&"))
	return len(data) + 5*html + len(quoted) + envelope
}

// fit returns the result to send: render(0), the whole answer, when it
// fits the budget, else the first of levels 1..levels-1 that does. Each
// level cuts more than the one before, so the sizes only shrink and a
// binary search finds it; the last level (nothing but counts and a note)
// is sent whatever its size.
func fit[T any](budget, levels int, render func(level int) T) (*sdk.CallToolResult, T, error) {
	var zero T
	try := func(level int) (T, []byte, bool, error) {
		out := render(level)
		data, err := marshal(out)
		return out, data, err == nil && wireSize(data) <= budget, err
	}
	out, data, ok, err := try(0)
	if err != nil {
		return nil, zero, err
	}
	if !ok && levels > 1 {
		// The first level that fits lies in (lo, hi]; hi is sent if none does.
		lo, hi := 0, levels-1
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if _, _, fits, err := try(mid); err != nil {
				return nil, zero, err
			} else if fits {
				hi = mid
			} else {
				lo = mid
			}
		}
		if out, data, _, err = try(hi); err != nil {
			return nil, zero, err
		}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(data)}}}, out, nil
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
