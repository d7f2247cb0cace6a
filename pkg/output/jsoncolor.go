package output

import "bytes"

// JSON colours, as jq has them: keys blue and bold, strings green, null
// grey; numbers, booleans and punctuation keep the terminal's colour.
const (
	colorKey    = "\x1b[34;1m"
	colorString = "\x1b[32m"
	colorNull   = "\x1b[1;30m"
	colorReset  = "\x1b[0m"
)

// colorJSON returns valid JSON text with colour added for a terminal.
// Every byte of src is kept, in order, so numbers stay exact; it runs after
// the sanitizer, so no byte of data can end an escape sequence of ours.
func colorJSON(src []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(src) + len(src)/4)
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"':
			end := stringEnd(src, i)
			color := colorString
			if isKey(src, end) {
				color = colorKey
			}
			b.WriteString(color)
			b.Write(src[i:end])
			b.WriteString(colorReset)
			i = end
		case c == 'n' && bytes.HasPrefix(src[i:], []byte("null")):
			b.WriteString(colorNull + "null" + colorReset)
			i += 4
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.Bytes()
}

// stringEnd is the index just past the JSON string starting at src[i].
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// isKey tells whether the string ending before src[end] is an object key:
// a colon follows it.
func isKey(src []byte, end int) bool {
	for ; end < len(src); end++ {
		switch src[end] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}
