package ioc

import (
	"bytes"
	"testing"
)

// scanSets are the byte sets the scanners look for, with the fast scan
// and the scalar reference for each.
var scanSets = []struct {
	name      string
	set       *[256]bool
	fast, ref func([]byte, int) int
}{
	{"anchor", &anchor, nextAnchor, nextAnchorSWAR},
	{"sepStart", &sepStart, nextSepStart[[]byte], nextSepStartSWAR[[]byte]},
}

// naiveNext is the definition both scans must meet: the first byte of the
// set at or after i.
func naiveNext(set *[256]bool, l []byte, i int) int {
	for i < len(l) && !set[l[i]] {
		i++
	}
	return i
}

func TestNibbleTablesExact(t *testing.T) {
	for _, s := range []struct {
		set *[256]bool
		t   *nibbleTable
	}{{&anchor, &anchorNibbles}, {&sepStart, &sepStartNibbles}, {&special, &specialNibbles}} {
		for c := range 256 {
			if in := s.t[c&15]&s.t[16+c>>4] != 0; in != s.set[c] {
				t.Errorf("byte %#x: in the nibble table %v, in the set %v", c, in, s.set[c])
			}
		}
	}
}

// checkScans compares, at every offset of l, the fast scans with the
// reference and the definition.
func checkScans(t *testing.T, l []byte) {
	t.Helper()
	for _, s := range scanSets {
		for i := 0; i <= len(l); i++ {
			want := naiveNext(s.set, l, i)
			if got := s.fast(l, i); got != want {
				t.Fatalf("%s(%q, %d) = %d, want %d", s.name, l, i, got, want)
			}
			if got := s.ref(l, i); got != want {
				t.Fatalf("%sSWAR(%q, %d) = %d, want %d", s.name, l, i, got, want)
			}
		}
		if s.name == "anchor" {
			checkAnchorScan(t, l)
			checkMaskLines(t, l)
		} else {
			checkSpanScan(t, l)
			checkSpanScan(t, string(l))
		}
		if inv, ctl := blockFlags(l); inv != hasInvisible(l) || ctl != hasControls(l) {
			t.Fatalf("blockFlags(%q) = %v, %v; want %v, %v", l, inv, ctl, hasInvisible(l), hasControls(l))
		}
		str := string(l)
		for i := 0; i <= len(str); i += 7 {
			if got, want := nextSepStart(str, i), nextSepStart(l, i); s.name == "sepStart" && got != want {
				t.Fatalf("nextSepStart on a string (%q, %d) = %d, on bytes %d", str, i, got, want)
			}
		}
	}
}

// checkAnchorScan walks l with an anchorScan as processLine does, from
// one anchor to the next, and also one byte at a time.
func checkAnchorScan(t *testing.T, l []byte) {
	t.Helper()
	if !vectorScan {
		return // processLine asks nextAnchorSWAR, which checkScans checks
	}
	var a anchorScan
	a.reset(l)
	for i := 0; i <= len(l); i++ {
		if got, want := a.next(i), naiveNext(&anchor, l, i); got != want {
			t.Fatalf("anchorScan.next(%d) on %q = %d, want %d", i, l, got, want)
		}
	}
	a.reset(l)
	for i := 0; i < len(l); i++ {
		got, want := a.next(i), naiveNext(&anchor, l, i)
		if got != want {
			t.Fatalf("anchorScan.next(%d) on %q, anchor to anchor, = %d, want %d", i, l, got, want)
		}
		i = got
	}
}

// checkSpanScan walks s with a spanScan as separatorPass does, one byte
// at a time and from one separator start to the next, from a few starts.
func checkSpanScan[T string | []byte](t *testing.T, s T) {
	t.Helper()
	next := func(m *spanScan, i int) int {
		if j, ok := m.held(i); ok {
			return j
		}
		return nextSepStartIn(m, s, i)
	}
	for _, start := range []int{0, 1, 63, 64, 513} {
		var m spanScan
		for i := start; i <= len(s); i++ {
			if got, want := next(&m, i), nextSepStartSWAR(s, i); got != want {
				t.Fatalf("spanScan from %d: next(%d) on %q = %d, want %d", start, i, s, got, want)
			}
		}
		m = spanScan{}
		for i := start; i < len(s); i++ {
			got, want := next(&m, i), nextSepStartSWAR(s, i)
			if got != want {
				t.Fatalf("spanScan from %d, start to start: next(%d) on %q = %d, want %d", start, i, s, got, want)
			}
			i = got
		}
	}
}

// TestScansEveryByte puts each byte value at each place of a 100-byte run
// of prose (before, inside and after whole 32-byte blocks, and across
// their edges).
func TestScansEveryByte(t *testing.T) {
	prose := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ\t"), 2)[:100]
	l := make([]byte, len(prose))
	for c := range 256 {
		for p := 0; p < len(prose); p += 3 {
			copy(l, prose)
			l[p] = byte(c)
			checkScans(t, l)
		}
	}
	checkScans(t, benchText(4<<10))
	for _, inv := range []string{"\u200b", "\u00ad", "\u2060", "\ufeff", "\u00a0", "\u2014", "\x00", "\x1b"} {
		for p := 0; p < len(prose); p += 5 {
			checkScans(t, []byte(string(prose[:p])+inv+string(prose[p:])))
			checkScans(t, []byte("é"+string(prose[:p])+inv+"x"+inv+string(prose[p:])))
		}
	}
}

func FuzzScan(f *testing.F) {
	f.Add([]byte("see hxxp://evil[.]example and 203.0.113.7, not invoice.pdf; the actor deployed it"))
	f.Add(bytes.Repeat([]byte("x"), 70))
	f.Add(benchText(300))
	f.Fuzz(func(t *testing.T, l []byte) {
		checkScans(t, l)
		checkQuiet(t, l)
	})
}

func BenchmarkNextAnchor(b *testing.B) {
	text := benchText(1 << 20)
	for _, s := range scanSets {
		for _, v := range []struct {
			name string
			f    func([]byte, int) int
		}{{"fast", s.fast}, {"swar", s.ref}} {
			b.Run(s.name+"/"+v.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					n := 0
					for i := v.f(text, 0); i < len(text); i = v.f(text, i+1) {
						n++
					}
					if n == 0 {
						b.Fatal("nothing found")
					}
				}
			})
		}
	}
}
