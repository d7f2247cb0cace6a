package suggest

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	keys := []string{"base_url", "events_base_url", "color", "cache", "cache_max_size", "timeout", "retries"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"colour", []string{"color"}},
		{"COLOR", []string{"color"}},
		{"base-url", []string{"base_url"}},
		{"timout", []string{"timeout"}},
		{"cach", []string{"cache"}},
		{"zzzzzz", nil},
	} {
		if got := Closest(tc.typed, keys, 2); !slices.Equal(got, tc.want) {
			t.Errorf("Closest(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 3}, {"serach", "search", 2}, {"lst", "list", 1}, {"kitten", "sitting", 3}} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
