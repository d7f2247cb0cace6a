package pivot

import (
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// cells is how many terminal columns s takes, measured as the tables of
// pkg/output measure it: a CJK character or an emoji takes two.
func cells(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return twwidth.Width(s)
		}
	}
	return len(s)
}

// fitCells cuts s to at most n columns, the last of which is "…" when
// something was cut.
func fitCells(s string, n int) string {
	if cells(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	w := 0
	for i, r := range s {
		rw := cells(string(r))
		if w+rw > n-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// cutMiddle keeps both ends of a long value within n columns, which is
// how a hash or a URL is recognised.
func cutMiddle(s string, n int) string {
	if cells(s) <= n {
		return s
	}
	if n < 3 {
		return fitCells(s, max(n, 1))
	}
	r := []rune(s)
	headRoom := (n - 1) / 2
	tailRoom := n - 1 - headRoom
	head, w := 0, 0
	for head < len(r) && w+cells(string(r[head])) <= headRoom {
		w += cells(string(r[head]))
		head++
	}
	tail, w := len(r), 0
	for tail > head && w+cells(string(r[tail-1])) <= tailRoom {
		w += cells(string(r[tail-1]))
		tail--
	}
	return string(r[:head]) + "…" + string(r[tail:])
}
