package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tilookup/tilookup/pkg/failure"
)

// ScanSearch reads a search answer in one pass, without decoding it: it
// checks that body is one valid JSON object (the verdict of json.Valid,
// leading and trailing white space of any length allowed), counts the
// elements of its "results" array, and reports whether white space between
// tokens means that json.Compact is needed to print it on one line (when
// compact is false, bytes.TrimSpace(body) is already compact).
//
// Which member is "results" follows encoding/json's decoding into
// SearchResponse, so that the count is the same in every output format:
//   - a key is compared after unescaping (`"\u0072esults"` is results);
//   - keys match case-insensitively, by Unicode simple folding as
//     bytes.EqualFold does ("RESULTS", and even "reſults" with U+017F);
//   - of several matching members, the last array or null wins; a matching
//     member of another type (a string, an object) leaves the count as it
//     was, as a type error leaves the field unchanged.
func ScanSearch(body []byte) (results int, compact bool, err error) {
	s := scanner{b: body}
	s.stack = s.buf[:0]
	start := s.skipSpace()
	if start == len(body) {
		return 0, false, &APIError{Op: OpSearch, Status: http.StatusOK, Kind: failure.Decode, Message: "the service answered with an empty body"}
	}
	if body[start] != '{' {
		return 0, false, notAnObject(body[start:])
	}
	s.ws = false
	results, ok := s.object()
	if ok {
		compact = s.ws
		if s.skipSpace(); s.i != len(body) {
			ok = false
		}
	}
	if !ok {
		return 0, false, invalidJSON(body)
	}
	return results, compact, nil
}

func notAnObject(body []byte) error {
	return &APIError{Op: OpSearch, Status: http.StatusOK, Kind: failure.Decode,
		Message: "the response is not a JSON object: " + clean(string(body[:min(len(body), 80)]))}
}

// invalidJSON explains why body is not JSON in encoding/json's words; only
// this failure path pays for a second pass.
func invalidJSON(body []byte) error {
	var raw json.RawMessage
	err := json.Unmarshal(body, &raw)
	if err == nil { // cannot happen while the scanner agrees with json.Valid
		err = errScanner
	}
	return &APIError{Op: OpSearch, Status: http.StatusOK, Kind: failure.Decode,
		Message: "the response is not valid JSON: " + clean(err.Error()), Err: err}
}

var errScanner = errors.New("invalid JSON")

// maxDepth is encoding/json's nesting limit: json.Valid refuses a document
// nested deeper, and so does the scanner, to give the same verdict.
const maxDepth = 10000

// scanner is a JSON validator over b. stack holds the open containers
// ('{' or '['); ws records white space met between tokens.
type scanner struct {
	b     []byte
	i     int
	ws    bool
	stack []byte
	buf   [32]byte
}

// skipSpace moves past white space and returns the new offset.
func (s *scanner) skipSpace() int {
	i := s.i
	for i < len(s.b) {
		switch s.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	if i != s.i {
		s.ws = true
		s.i = i
	}
	return i
}

func (s *scanner) push(c byte) bool {
	s.stack = append(s.stack, c)
	return len(s.stack) <= maxDepth
}

// object scans the top-level object at s.b[s.i] and returns its results
// count.
func (s *scanner) object() (int, bool) {
	s.i++ // '{'
	s.push('{')
	results := 0
	if s.skipSpace(); s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return 0, true
	}
	for {
		key, escaped, ok := s.key()
		if !ok {
			return 0, false
		}
		if isResultsKey(key, escaped) {
			if s.skipSpace(); s.i < len(s.b) && s.b[s.i] == '[' {
				if results, ok = s.countArray(); !ok {
					return 0, false
				}
			} else if s.i < len(s.b) && s.b[s.i] == 'n' {
				if !s.literal("null") {
					return 0, false
				}
				results = 0
			} else if !s.value() {
				return 0, false
			}
		} else if !s.value() {
			return 0, false
		}
		if s.skipSpace(); s.i >= len(s.b) {
			return 0, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return results, true
		default:
			return 0, false
		}
	}
}

// key scans a member's name and the colon after it, and returns the name's
// bytes between the quotes.
func (s *scanner) key() (key []byte, escaped, ok bool) {
	if s.skipSpace(); s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
	if escaped, ok = s.str(); !ok {
		return nil, false, false
	}
	key = s.b[start : s.i-1]
	if s.skipSpace(); s.i >= len(s.b) || s.b[s.i] != ':' {
		return nil, false, false
	}
	s.i++
	return key, escaped, true
}

// isResultsKey reports whether encoding/json would decode the member named
// key (its raw bytes) into SearchResponse.Results.
func isResultsKey(key []byte, escaped bool) bool {
	if escaped {
		var name string
		if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name) != nil {
			return false
		}
		key = []byte(name)
	}
	// "results" is 7 bytes; each s may fold from the 2-byte U+017F.
	return len(key) >= 7 && len(key) <= 9 && bytes.EqualFold(key, resultsName)
}

var resultsName = []byte("results")

// countArray scans the array at s.b[s.i] and returns its length.
func (s *scanner) countArray() (int, bool) {
	s.i++ // '['
	if !s.push('[') {
		return 0, false
	}
	if s.skipSpace(); s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.stack = s.stack[:len(s.stack)-1]
		return 0, true
	}
	n := 0
	for {
		if !s.value() {
			return 0, false
		}
		n++
		if s.skipSpace(); s.i >= len(s.b) {
			return 0, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.stack = s.stack[:len(s.stack)-1]
			return n, true
		default:
			return 0, false
		}
	}
}

// value scans exactly one value, however deeply nested, without recursion.
func (s *scanner) value() bool {
	base := len(s.stack)
	for {
		// A value starts here.
		if s.skipSpace(); s.i >= len(s.b) {
			return false
		}
		switch c := s.b[s.i]; {
		case c == '{' || c == '[':
			s.i++
			if !s.push(c) {
				return false
			}
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			if s.skipSpace(); s.i < len(s.b) && s.b[s.i] == end {
				s.i++
				s.stack = s.stack[:len(s.stack)-1]
				break // the container is a complete value
			}
			if c == '{' {
				if _, _, ok := s.key(); !ok {
					return false
				}
			}
			continue // its first element or member value
		case c == '"':
			if _, ok := s.str(); !ok {
				return false
			}
		case c == 't':
			if !s.literal("true") {
				return false
			}
		case c == 'f':
			if !s.literal("false") {
				return false
			}
		case c == 'n':
			if !s.literal("null") {
				return false
			}
		default:
			if !s.number() {
				return false
			}
		}
		// A value ended: close what it completes, or move to the next
		// element.
		for {
			if len(s.stack) == base {
				return true
			}
			if s.skipSpace(); s.i >= len(s.b) {
				return false
			}
			top, c := s.stack[len(s.stack)-1], s.b[s.i]
			if c == ',' {
				s.i++
				if top == '{' {
					if _, _, ok := s.key(); !ok {
						return false
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				s.i++
				s.stack = s.stack[:len(s.stack)-1]
				continue
			}
			return false
		}
	}
}

// str scans the string starting at the quote at s.b[s.i] and reports
// whether it holds an escape. Like json.Valid it accepts any byte from
// 0x20 up, invalid UTF-8 included.
func (s *scanner) str() (escaped, ok bool) {
	b := s.b
	for i := s.i + 1; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return false, false
				}
				i += 6
			default:
				return false, false
			}
		case c < 0x20:
			return false, false
		default:
			i++
		}
	}
	return false, false
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func (s *scanner) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false
		}
		i = j
	}
	s.i = i
	return true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
