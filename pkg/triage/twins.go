package triage

import (
	"strings"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// maxTwins bounds what twins holds: the schemeless URLs waiting for their
// twin, and the schemed URLs a later schemeless one may repeat. Past it
// the oldest go (a waiting one is looked up as it is), so that a report
// of any length runs in flat memory.
const maxTwins = 1000

// twins finds a schemeless URL (pastebin.com/raw/x) and the same URL with
// its scheme (https://pastebin.com/raw/x) in one report, so that the
// service is asked once, for the URL as written with its scheme; the
// schemeless one is listed as skipped, "same as" its twin. No scheme is
// ever invented: a schemeless URL with no twin is looked up as it is.
type twins struct {
	yield   func(Found) error
	waiting []Found           // schemeless, looked up unless a twin comes
	schemed map[string]string // URL without its scheme -> URL
	order   []string          // keys of schemed, oldest first
}

// add takes the next indicator of the scan.
func (tw *twins) add(f Found) error {
	if f.Type != ioc.URL || f.FromURL != "" || f.Skip != "" {
		return tw.yield(f)
	}
	if _, rest, ok := strings.Cut(f.Value, "://"); ok {
		if err := tw.yield(f); err != nil {
			return err
		}
		tw.remember(rest, f.Value)
		for i, w := range tw.waiting {
			if w.Value == rest {
				tw.waiting = append(tw.waiting[:i], tw.waiting[i+1:]...)
				w.Skip, w.Warninglists = sameAs(f.Value), nil
				return tw.yield(w)
			}
		}
		return nil
	}
	if twin, ok := tw.schemed[f.Value]; ok {
		f.Skip, f.Warninglists = sameAs(twin), nil
		return tw.yield(f)
	}
	tw.waiting = append(tw.waiting, f)
	if len(tw.waiting) > maxTwins {
		oldest := tw.waiting[0]
		tw.waiting = tw.waiting[1:]
		return tw.yield(oldest)
	}
	return nil
}

func (tw *twins) remember(rest, url string) {
	if tw.schemed == nil {
		tw.schemed = map[string]string{}
	}
	if _, ok := tw.schemed[rest]; ok {
		return // the first scheme seen stays the twin
	}
	tw.schemed[rest] = url
	tw.order = append(tw.order, rest)
	if len(tw.order) > maxTwins {
		delete(tw.schemed, tw.order[0])
		tw.order = tw.order[1:]
	}
}

// flush looks up the schemeless URLs that met no twin, at the report's
// end.
func (tw *twins) flush() error {
	for _, w := range tw.waiting {
		if err := tw.yield(w); err != nil {
			return err
		}
	}
	tw.waiting = nil
	return nil
}

// earlier is add for a stream, which cannot hold a value back for a twin
// that may come later (tail -f): it marks f, the next indicator, skipped
// when it is a schemeless URL whose twin with its scheme came before it.
func (tw *twins) earlier(f *Found) {
	if f.Type != ioc.URL || f.FromURL != "" || f.Skip != "" {
		return
	}
	if _, rest, ok := strings.Cut(f.Value, "://"); ok {
		tw.remember(rest, f.Value)
		return
	}
	if twin, ok := tw.schemed[f.Value]; ok {
		f.Skip, f.Warninglists = sameAs(twin), nil
	}
}

// sameAs is the skip reason of a schemeless URL whose twin is looked up.
// It does not name the twin: the summary counts values by reason, and a
// reason per URL would make that count as long as the report.
func sameAs(string) string { return sameURLWithScheme }

// sameURLWithScheme is the reason sameAs gives.
const sameURLWithScheme = "the same URL with its scheme is looked up"
