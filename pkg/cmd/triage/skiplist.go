package triage

import (
	"sync"

	"github.com/tilookup/tilookup/pkg/report"
)

// skipList keeps the values skipped before any lookup until the report's
// end, compactly: the values back to back in one buffer, and per value an
// offset and the indexes of its type and reason in small tables (a run has
// a handful of distinct reasons). A report of millions of private
// addresses then costs about the addresses' bytes plus 16 bytes each (a URL's host, its URL's too), not a
// report.Skipped of four strings each. The extraction adds to it while the
// writers read it at the end (after a Ctrl-C it may still be adding), so
// every method locks.
type skipList struct {
	mu      sync.Mutex
	text    []byte
	recs    []skipRec
	kinds   []skipKind // the distinct (type, reason) pairs
	kindIdx map[skipKind]uint32
	urlHost int // how many were taken from a URL's host
}

type skipRec struct {
	end     int    // text[previous end:end] is the value, then its FromURL
	fromLen uint32 // the length of FromURL, at the end of that span
	kind    uint32 // index in kinds
}

type skipKind struct{ typ, reason string }

func (l *skipList) intern(k skipKind) uint32 {
	if i, ok := l.kindIdx[k]; ok {
		return i
	}
	if l.kindIdx == nil {
		l.kindIdx = map[skipKind]uint32{}
	}
	i := uint32(len(l.kinds))
	l.kinds = append(l.kinds, k)
	l.kindIdx[k] = i
	return i
}

func (l *skipList) add(s report.Skipped) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.text = append(l.text, s.Value...)
	l.text = append(l.text, s.FromURL...)
	l.recs = append(l.recs, skipRec{end: len(l.text), fromLen: uint32(len(s.FromURL)), kind: l.intern(skipKind{s.Type, s.Reason})})
	if s.FromURL != "" {
		l.urlHost++
	}
}

// Len is the number of values skipped so far.
func (l *skipList) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recs)
}

// Each calls fn for every value skipped so far, in order, and stops at
// fn's first error.
func (l *skipList) Each(fn func(report.Skipped) error) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	start := 0
	for _, r := range l.recs {
		span := l.text[start:r.end]
		start = r.end
		v := len(span) - int(r.fromLen)
		k := l.kinds[r.kind]
		s := report.Skipped{Value: string(span[:v]), Type: k.typ, Reason: k.reason}
		if r.fromLen > 0 {
			s.FromURL = string(span[v:])
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// Count adds the values skipped so far to sum (Skipped, ByType,
// SkippedByReason, URLHosts) without reading them back.
func (l *skipList) Count(sum *report.Summary) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	byKind := make([]int, len(l.kinds))
	for _, r := range l.recs {
		byKind[r.kind]++
	}
	if sum.SkippedByReason == nil {
		sum.SkippedByReason = map[string]int{}
	}
	for k, n := range byKind {
		sum.ByType[l.kinds[k].typ] += n
		sum.SkippedByReason[l.kinds[k].reason] += n
	}
	sum.Skipped += len(l.recs)
	sum.URLHosts += l.urlHost
}

// Slice is every value skipped so far, for the formats that need them all
// at once (Markdown, STIX, the table's --show-skipped list).
func (l *skipList) Slice() []report.Skipped {
	out := make([]report.Skipped, 0, l.Len())
	_ = l.Each(func(s report.Skipped) error {
		out = append(out, s)
		return nil
	})
	return out
}
