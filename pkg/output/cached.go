package output

import (
	"fmt"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
)

// cachedAgo says how old an answer from the cache is ("3h ago"), or ""
// for a fresh one. Tables show it; JSON never does, since it is the
// server's bytes.
func cachedAgo(resp *api.SearchResponse) string {
	if resp == nil || resp.CachedAt.IsZero() {
		return ""
	}
	return Ago(time.Since(resp.CachedAt))
}

// cachedNote is the summary status's mark of a cached answer.
func cachedNote(resp *api.SearchResponse) string {
	if a := cachedAgo(resp); a != "" {
		return " (cached " + a + ")"
	}
	return ""
}

// Ago rounds down to the largest unit, as a person reads an age.
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}
