// Package suggest finds the names closest to a mistyped one, for the "did
// you mean" of commands, help topics and config keys.
package suggest

import "strings"

// Closest returns the names nearest to typed by edit distance, ignoring
// case, if the nearest is within maxDistance edits or typed is a prefix of
// it; nil when none is close. "lst" is "list" more than "get" or "set".
func Closest(typed string, names []string, maxDistance int) []string {
	best := -1
	var out []string
	lt := strings.ToLower(typed)
	for _, n := range names {
		ln := strings.ToLower(n)
		d := Distance(ln, lt)
		if d > maxDistance && !(len(lt) > 0 && strings.HasPrefix(ln, lt)) {
			continue
		}
		switch {
		case best < 0 || d < best:
			best, out = d, []string{n}
		case d == best:
			out = append(out, n)
		}
	}
	return out
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
