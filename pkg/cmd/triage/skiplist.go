package triage

import (
	"strings"
	"sync"

	"github.com/tilookup/tilookup/pkg/report"
)

// skipSample is how many skipped values a run keeps to list: the first
// ones, in order. The rest are counted only.
const skipSample = 1000

// skipList keeps the values skipped before any lookup until the report's
// end: a count per (type, reason), and the first skipSample values for the
// lists. A report of millions of private addresses then costs the same
// few kilobytes as one of a thousand: a report of any length runs in flat
// memory, and the lists say how many they leave out (Omitted). The
// extraction adds to it while the writers read it at the end (after a
// Ctrl-C it may still be adding), so every method locks.
type skipList struct {
	mu      sync.Mutex
	sample  []report.Skipped
	counts  map[skipKind]int // a run has a handful of distinct kinds
	total   int
	urlHost int // how many were taken from a URL's host
}

type skipKind struct{ typ, reason string }

func (l *skipList) add(s report.Skipped) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[skipKind]int{}
	}
	l.counts[skipKind{s.Type, s.Reason}]++
	l.total++
	if s.FromURL != "" {
		l.urlHost++
	}
	if len(l.sample) < skipSample {
		// Copies: the extractor's values share one string per batch,
		// which a kept slice of it would keep whole.
		l.sample = append(l.sample, report.Skipped{Value: strings.Clone(s.Value), Type: s.Type,
			Reason: s.Reason, FromURL: strings.Clone(s.FromURL)})
	}
}

// Len is the number of values skipped so far, listed or not.
func (l *skipList) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Omitted is how many skipped values the lists leave out: those after
// the first skipSample.
func (l *skipList) Omitted() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total - len(l.sample)
}

// Each calls fn for every value kept to list (the first skipSample), in
// order, and stops at fn's first error.
func (l *skipList) Each(fn func(report.Skipped) error) error {
	for _, s := range l.Slice() {
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// Count adds the values skipped so far to sum (Skipped, ByType,
// SkippedByReason, URLHosts), listed or not.
func (l *skipList) Count(sum *report.Summary) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if sum.SkippedByReason == nil {
		sum.SkippedByReason = map[string]int{}
	}
	for k, n := range l.counts {
		sum.ByType[k.typ] += n
		sum.SkippedByReason[k.reason] += n
	}
	sum.Skipped += l.total
	sum.SkippedOmitted += l.total - len(l.sample)
	sum.URLHosts += l.urlHost
}

// Slice is the values kept to list, in order; the writers read them after
// the run, while a stopped extraction may still be adding.
func (l *skipList) Slice() []report.Skipped {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sample[:len(l.sample):len(l.sample)]
}
