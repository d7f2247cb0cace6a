package api

// countResults counts the elements of the top-level "results" array of a
// valid JSON object, without decoding anything: 0 when there is no such
// key or it is not an array. body must be valid JSON (json.Valid).
// A repeated key counts as decoding does: the last one wins.
func countResults(body []byte) int {
	depth, count := 0, 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '"':
			end := skipString(body, i)
			if depth == 1 && string(body[i+1:end]) == "results" {
				j := skipSpace(body, end+1)
				if j < len(body) && body[j] == ':' {
					j = skipSpace(body, j+1)
					count = countArray(body, j)
					end = j - 1 // go on at the value, so that depth stays right
				}
			}
			i = end
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return count
}

// countArray counts the elements of the array starting at body[i].
func countArray(body []byte, i int) int {
	if i >= len(body) || body[i] != '[' {
		return 0
	}
	j := skipSpace(body, i+1)
	if j < len(body) && body[j] == ']' {
		return 0
	}
	n, depth := 1, 0
	for ; i < len(body); i++ {
		switch body[i] {
		case '"':
			i = skipString(body, i)
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return n
			}
		case ',':
			if depth == 1 {
				n++
			}
		}
	}
	return n
}

// skipString returns the index of the quote closing the string that
// starts at body[i].
func skipString(body []byte, i int) int {
	for i++; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(body) - 1
}

func skipSpace(body []byte, i int) int {
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	return i
}
