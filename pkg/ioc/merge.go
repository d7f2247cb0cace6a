package ioc

import (
	"hash/maphash"
	"unsafe"
)

// merger reports candidates it has not seen before, in the order it is
// given them.
//
// The values seen are kept only as 128-bit hashes in an open-addressing
// table, at most three quarters full: 21 to 43 bytes a value, 64 at most
// while the table doubles, whatever the values' length, so that a report of millions of distinct
// values costs tens of MB, not their text several times over. Two distinct
// values share a hash once in 2^128 / n² runs: never, in practice. The
// values a merge reports for the first time are copied side by side and
// made into one string, which they are then slices of: one allocation per
// merge, not one per value.
type merger struct {
	fn  func(Indicator) error
	err error

	// urlHosts: after a new URL, report its host as well (Indicator.FromURL
	// set), unless that value was seen already.
	urlHosts bool

	seed  [2]maphash.Seed
	slots []hash128 // a power of two of them, at most 3/4 full
	n     int       // slots in use

	// While a merge is under way, the values it found new are in arena,
	// and fresh has their bounds and types; hashes holds the hashes of
	// candidates that came without them.
	arena  []byte
	fresh  []freshVal
	hashes []hash128
	sink   uint64 // see touch
}

// hash128 is a value's two 64-bit hashes under independent seeds; the zero
// value marks an empty slot.
type hash128 struct{ a, b uint64 }

type freshVal struct {
	start, end int
	typ        Type
	from       int // for a URL's host: index in fresh of the URL + 1; 0 otherwise
}

func newMerger(fn func(Indicator) error) *merger {
	return &merger{fn: fn, seed: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, slots: make([]hash128, 1<<10)}
}

// merge reports e's new candidates and empties its lists.
func (m *merger) merge(e *extractor) {
	if m.err == nil && len(e.found) > 0 {
		m.mergeFound(e.found, e.vals, e.hashes)
	}
	e.found, e.vals, e.hashes = e.found[:0], e.vals[:0], e.hashes[:0]
}

// hashOf is key's hash128 under seed, never the zero value (an empty
// slot).
func hashOf(seed *[2]maphash.Seed, key []byte) hash128 {
	h := hash128{maphash.Bytes(seed[0], key), maphash.Bytes(seed[1], key)}
	if h == (hash128{}) {
		h.b = 1
	}
	return h
}

// hashFound appends to hashes, which holds the hashes of the first
// len(hashes) values of found, the hashes of the others. The workers of
// extractParallel hash what they found, so that the merger, which runs
// alone, has only the table to look up.
func hashFound(seed *[2]maphash.Seed, found []candidate, vals []byte, hashes []hash128) []hash128 {
	start := 0
	if k := len(hashes); k > 0 {
		start = found[k-1].end
	}
	for _, c := range found[len(hashes):] {
		hashes = append(hashes, hashOf(seed, vals[start:c.end]))
		start = c.end
	}
	return hashes
}

// add records key and reports whether it is new.
func (m *merger) add(key []byte) bool { return m.addHash(hashOf(&m.seed, key)) }

// touch loads the slot where each of hashes starts its probe, so that the
// probes that follow find them in the cache. A report of 100,000 distinct
// values has a table of megabytes, and a slot looked up at random is a
// cache miss that add used to wait for, one value after another; these
// loads do not depend on each other, so the processor has many of them
// under way at once. (sink keeps the loads from being left out.)
func (m *merger) touch(hashes []hash128) {
	mask := uint64(len(m.slots) - 1)
	var x uint64
	for _, h := range hashes {
		x ^= m.slots[h.a&mask].a
	}
	m.sink ^= x
}

// addHash records a value by its hash and reports whether it is new.
func (m *merger) addHash(h hash128) bool {
	mask := uint64(len(m.slots) - 1)
	for i := h.a & mask; ; i = (i + 1) & mask {
		switch m.slots[i] {
		case h:
			return false
		case hash128{}:
			m.slots[i] = h
			m.n++
			if 4*m.n > 3*len(m.slots) {
				m.grow()
			}
			return true
		}
	}
}

// mergeFound reports the new values of found, whose hashes are hashes or,
// for those past its end, not computed yet.
func (m *merger) mergeFound(found []candidate, vals []byte, hashes []hash128) {
	m.arena, m.fresh = m.arena[:0], m.fresh[:0]
	if len(hashes) < len(found) {
		m.hashes = hashFound(&m.seed, found, vals, append(m.hashes[:0], hashes...))
		hashes = m.hashes
	}
	m.touch(hashes)
	start := 0
	for i, c := range found {
		key := vals[start:c.end]
		start = c.end
		if !m.addHash(hashes[i]) {
			continue
		}
		m.fresh = append(m.fresh, freshVal{start: len(m.arena), end: len(m.arena) + len(key), typ: c.typ})
		m.arena = append(m.arena, key...)
		if c.typ == URL && m.urlHosts {
			if h, t := URLHost(string(key)); h != "" && m.add([]byte(h)) {
				from := len(m.fresh)
				m.fresh = append(m.fresh, freshVal{start: len(m.arena), end: len(m.arena) + len(h), typ: t, from: from})
				m.arena = append(m.arena, h...)
			}
		}
	}
	if len(m.fresh) == 0 {
		return
	}
	all := string(m.arena)
	for _, f := range m.fresh {
		in := Indicator{Value: all[f.start:f.end], Type: f.typ}
		if f.from > 0 {
			u := m.fresh[f.from-1]
			in.FromURL = all[u.start:u.end]
		}
		if m.err = m.fn(in); m.err != nil {
			return
		}
	}
}

// pageSize is the smallest page size of the platforms Go runs on; writing
// once in every pageSize bytes writes to every page.
const pageSize = 4096

// grow doubles the table; the slots keep their hashes, so no value is
// hashed again.
func (m *merger) grow() {
	slots := make([]hash128, 2*len(m.slots))
	// A large table comes fresh from the kernel, and the rehash below reads
	// a slot before it writes it: a page read first is mapped to the shared
	// zero page, and the write that follows is a copy-on-write fault that
	// flushes the TLB of every core the process runs on (an interrupt to
	// the other workers). Writing each page first maps it once. This was
	// 3-6% of the CPU time with two workers on the 50 MiB bench report.
	for i := 0; i < len(slots); i += pageSize / int(unsafe.Sizeof(hash128{})) {
		slots[i] = hash128{}
	}
	mask := uint64(len(slots) - 1)
	for _, s := range m.slots {
		if s == (hash128{}) {
			continue
		}
		i := s.a & mask
		for slots[i] != (hash128{}) {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	m.slots = slots
}
