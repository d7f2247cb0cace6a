package lookup

import (
	"github.com/tilookup/tilookup/pkg/api"
)

// recent remembers the latest successful answers, so that a value repeated
// far apart in a long input (beyond the in-flight window) is still asked
// only once. It is a fixed ring, oldest answer out first, which costs no
// allocation per value; bounded by entries and by bytes, it keeps memory
// flat. The caller holds the pipeline's lock.
type recent struct {
	maxBytes int
	bytes    int
	ring     []string // values by slot; "" is a free slot (values are never empty)
	next     int
	byValue  map[string]*api.SearchResponse
}

func newRecent(maxEntries, maxBytes int) *recent {
	return &recent{maxBytes: maxBytes, ring: make([]string, maxEntries), byValue: make(map[string]*api.SearchResponse, maxEntries)}
}

func (r *recent) get(value string) (*api.SearchResponse, bool) {
	resp, ok := r.byValue[value]
	return resp, ok
}

func (r *recent) put(value string, resp *api.SearchResponse) {
	size := len(resp.Raw) + len(value)
	if size > r.maxBytes/4 {
		return // one huge answer would evict everything else
	}
	if _, ok := r.byValue[value]; ok {
		return
	}
	slot := r.next
	r.drop(slot)
	for i := 1; r.bytes+size > r.maxBytes && i < len(r.ring); i++ {
		r.drop((slot + i) % len(r.ring))
	}
	r.ring[slot] = value
	r.byValue[value] = resp
	r.bytes += size
	r.next = (slot + 1) % len(r.ring)
}

func (r *recent) drop(slot int) {
	old := r.ring[slot]
	if old == "" {
		return
	}
	r.bytes -= len(r.byValue[old].Raw) + len(old)
	delete(r.byValue, old)
	r.ring[slot] = ""
}
