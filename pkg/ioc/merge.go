package ioc

import "hash/maphash"

// merger reports candidates it has not seen before, in the order it is
// given them.
//
// The values seen are kept in an open-addressing table of their hashes,
// each slot pointing at the value's string, so that a repeat costs one hash
// and one comparison and allocates nothing. The values a merge reports for
// the first time are copied side by side and made into one string, which
// they are then slices of: one allocation per merge, not one per value.
type merger struct {
	fn  func(Indicator) error
	err error

	seed  maphash.Seed
	slots []seenSlot // a power of two of them, at most half full
	vals  []string   // the values reported, by slot index - 1

	// While a merge is under way, the values it found new are in arena,
	// vals holds "" for them, and fresh has their bounds and types.
	arena []byte
	fresh []freshVal
}

type seenSlot struct {
	hash uint64
	val  uint32 // index in vals + 1; 0 for an empty slot
}

type freshVal struct {
	start, end int
	typ        Type
}

func newMerger(fn func(Indicator) error) *merger {
	return &merger{fn: fn, seed: maphash.MakeSeed(), slots: make([]seenSlot, 1<<10)}
}

// merge reports e's new candidates and empties its lists.
func (m *merger) merge(e *extractor) {
	if m.err == nil && len(e.found) > 0 {
		m.mergeFound(e.found, e.vals)
	}
	e.found, e.vals = e.found[:0], e.vals[:0]
}

func (m *merger) mergeFound(found []candidate, vals []byte) {
	first := len(m.vals) // index of the first value new in this merge
	m.arena, m.fresh = m.arena[:0], m.fresh[:0]
	start := 0
	for _, c := range found {
		key := vals[start:c.end]
		start = c.end
		h := maphash.Bytes(m.seed, key)
		mask := uint64(len(m.slots) - 1)
		i := h & mask
		dup := false
		for {
			s := m.slots[i]
			if s.val == 0 {
				break
			}
			if s.hash == h {
				k := int(s.val) - 1
				if k < first {
					dup = m.vals[k] == string(key)
				} else {
					f := m.fresh[k-first]
					dup = string(m.arena[f.start:f.end]) == string(key)
				}
				if dup {
					break
				}
			}
			i = (i + 1) & mask
		}
		if dup {
			continue
		}
		m.fresh = append(m.fresh, freshVal{start: len(m.arena), end: len(m.arena) + len(key), typ: c.typ})
		m.arena = append(m.arena, key...)
		m.vals = append(m.vals, "")
		m.slots[i] = seenSlot{hash: h, val: uint32(len(m.vals))}
		if 2*len(m.vals) > len(m.slots) {
			m.grow()
		}
	}
	if len(m.fresh) == 0 {
		return
	}
	all := string(m.arena)
	for k, f := range m.fresh {
		m.vals[first+k] = all[f.start:f.end]
	}
	for k, f := range m.fresh {
		if m.err = m.fn(Indicator{Value: m.vals[first+k], Type: f.typ}); m.err != nil {
			return
		}
	}
}

// grow doubles the table; the slots keep their hashes, so no value is
// hashed again.
func (m *merger) grow() {
	slots := make([]seenSlot, 2*len(m.slots))
	mask := uint64(len(slots) - 1)
	for _, s := range m.slots {
		if s.val == 0 {
			continue
		}
		i := s.hash & mask
		for slots[i].val != 0 {
			i = (i + 1) & mask
		}
		slots[i] = s
	}
	m.slots = slots
}
