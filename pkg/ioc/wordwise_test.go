package ioc

import (
	"math/rand/v2"
	"testing"
)

// The word-at-a-time tests below are held to a byte at a time: every byte
// value at every position of short inputs (the tail loops and each lane of
// a word), and random inputs for borrows between lanes.

func spaceOrControlBytewise(s []byte) bool {
	for _, c := range s {
		if c <= ' ' || c == 0x7f {
			return true
		}
	}
	return false
}

func TestHasSpaceOrControlWordwise(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for pos := 0; pos < n; pos++ {
			for c := range 256 {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a'
				}
				b[pos] = byte(c)
				want := spaceOrControlBytewise(b)
				if got := hasSpaceOrControl(b); got != want {
					t.Fatalf("hasSpaceOrControl(%q) = %v, want %v", b, got, want)
				}
				if got := hasSpaceOrControl(string(b)); got != want {
					t.Fatalf("hasSpaceOrControl(string %q) = %v, want %v", b, got, want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	// Bytes near the edges of the set: a borrow from one lane must not
	// make a match of the next.
	edges := []byte{0, 1, ' ' - 1, ' ', ' ' + 1, '!', 0x7e, 0x7f, 0x80, 0x81, 0xa0, 0xa1, 0xff, 'a'}
	for range 200000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = edges[r.IntN(len(edges))]
			if r.IntN(2) == 0 {
				b[i] = 0x21 + byte(r.IntN(0x5e)) // printable, not a match
			}
		}
		if got, want := hasSpaceOrControl(b), spaceOrControlBytewise(b); got != want {
			t.Fatalf("hasSpaceOrControl(%q) = %v, want %v", b, got, want)
		}
	}
}

func lowerASCIIBytewise(b []byte) bool {
	for i, c := range b {
		if c >= 0x80 {
			return false
		}
		b[i] = lower(c)
	}
	return true
}

func TestLowerASCIIWordwise(t *testing.T) {
	check := func(in []byte) {
		t.Helper()
		got, want := append([]byte(nil), in...), append([]byte(nil), in...)
		okGot, okWant := lowerASCII(got), lowerASCIIBytewise(want)
		if okGot != okWant || string(got) != string(want) {
			t.Fatalf("lowerASCII(%q) = %v, %q; a byte at a time %v, %q", in, okGot, got, okWant, want)
		}
	}
	for n := 1; n <= 20; n++ {
		for pos := 0; pos < n; pos++ {
			for c := range 256 {
				b := []byte("AbCdEfGhIjKlMnOpQrSt")[:n]
				b[pos] = byte(c)
				check(b)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	edges := []byte{'@', 'A', 'B', 'Y', 'Z', '[', '`', 'a', 'z', '{', 0x7f, 0x80, 0xc1, 0xda, 0xff}
	for range 100000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = edges[r.IntN(len(edges))]
		}
		check(b)
	}
}

// TestHashTypeWordwise holds hashType's eight bytes at a time to isHex a
// byte at a time: every byte value in every lane of each digest length,
// in both of hashType's shapes.
func TestHashTypeWordwise(t *testing.T) {
	for _, n := range []int{32, 40, 64, 128} {
		for pos := range 8 {
			for c := range 256 {
				b := make([]byte, n)
				for i := range b {
					b[i] = "0123456789abcdefABCDEF"[i%22]
				}
				b[n-8+pos] = byte(c)
				want := Unknown
				if isHex(byte(c)) {
					want = map[int]Type{32: MD5, 40: SHA1, 64: SHA256, 128: SHA512}[n]
				}
				if got := hashType(b); got != want {
					t.Fatalf("hashType(%q) = %q, want %q", b, got, want)
				}
				if got := hashType(string(b)); got != want {
					t.Fatalf("hashType(string %q) = %q, want %q", b, got, want)
				}
			}
		}
	}
}

// isIPv4Reference is isIPv4 as it was written before its loop was made
// shorter: each part's value checked at each digit.
func isIPv4Reference(s string) bool {
	if len(s) < 7 || len(s) > 15 {
		return false
	}
	parts, v, digits := 0, 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || parts == 4 {
				return false
			}
			parts++
			v, digits = 0, 0
			continue
		}
		c := s[i]
		if !isDigit(c) || digits == 3 || (digits == 1 && v == 0) {
			return false
		}
		v = v*10 + int(c-'0')
		if v > 255 {
			return false
		}
		digits++
	}
	return parts == 4
}

// TestIsIPv4Reference holds isIPv4 to isIPv4Reference on random strings of
// digits, dots and a few other bytes, and on the edges of each part.
func TestIsIPv4Reference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "0123456789.....0125/:a\xff"
	check := func(s string) {
		if got, want := isIPv4(s), isIPv4Reference(s); got != want {
			t.Fatalf("isIPv4(%q) = %v, want %v", s, got, want)
		}
		if got, want := isIPv4([]byte(s)), isIPv4Reference(s); got != want {
			t.Fatalf("isIPv4([]byte %q) = %v, want %v", s, got, want)
		}
	}
	for range 300000 {
		b := make([]byte, 5+r.IntN(13))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(string(b))
	}
	for _, p := range []string{"0", "00", "01", "9", "10", "99", "100", "199", "249", "250", "255", "256", "260", "300", "999", "1000", ""} {
		for _, s := range []string{p + ".1.1.1", "1." + p + ".1.1", "1.1." + p + ".1", "1.1.1." + p, "1.1.1.1." + p, "1.1." + p} {
			check(s)
		}
	}
}

// TestSpacesEndTokens: every byte hasSpaceOrControl looks for is a hard
// separator, which ends a token, so token's URLs need not be asked again
// (splitURLIn with spaces false).
func TestSpacesEndTokens(t *testing.T) {
	for c := range 256 {
		if hasSpaceOrControl([]byte{byte(c)}) && class[c]&cHard == 0 {
			t.Errorf("byte %#x: hasSpaceOrControl finds it, but it does not end a token", c)
		}
	}
}
