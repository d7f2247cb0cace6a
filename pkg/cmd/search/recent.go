package search

import (
	"container/list"

	"github.com/tilookup/tilookup/pkg/api"
)

// recent remembers the latest successful answers, so that a value repeated
// far apart in a long input (beyond the in-flight window) is still asked
// only once. It is bounded by entries and by bytes, so memory stays flat.
// The caller holds the pipeline's lock.
type recent struct {
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // front = most recent
	byValue    map[string]*list.Element
}

type recentEntry struct {
	value string
	resp  *api.SearchResponse
}

func newRecent(maxEntries, maxBytes int) *recent {
	return &recent{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), byValue: map[string]*list.Element{}}
}

func (r *recent) get(value string) (*api.SearchResponse, bool) {
	el, ok := r.byValue[value]
	if !ok {
		return nil, false
	}
	r.order.MoveToFront(el)
	return el.Value.(*recentEntry).resp, true
}

func (r *recent) put(value string, resp *api.SearchResponse) {
	size := len(resp.Raw) + len(value)
	if size > r.maxBytes/4 {
		return // one huge answer would evict everything else
	}
	if el, ok := r.byValue[value]; ok {
		r.order.MoveToFront(el)
		return
	}
	r.byValue[value] = r.order.PushFront(&recentEntry{value: value, resp: resp})
	r.bytes += size
	for r.order.Len() > r.maxEntries || r.bytes > r.maxBytes {
		old := r.order.Remove(r.order.Back()).(*recentEntry)
		delete(r.byValue, old.value)
		r.bytes -= len(old.resp.Raw) + len(old.value)
	}
}
