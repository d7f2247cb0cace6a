package ioc

import (
	"strings"
	"testing"
)

// TestKnownTLDTables: the tables and the search in tldList's runs give a
// set's answer, the set of tldList's lines and specialTLDs, for every TLD
// (in either case), every two- and three-letter word, and each TLD with a
// letter added or changed.
func TestKnownTLDTables(t *testing.T) {
	known := map[string]bool{}
	for _, tld := range append(strings.Fields(tldList), specialTLDs[:]...) {
		known[tld] = true
	}
	check := func(w string) {
		want := known[strings.ToLower(w)]
		if len(w) >= 5 && strings.HasPrefix(strings.ToLower(w), "xn--") {
			want = true
		}
		if got := isKnownTLD(w); got != want {
			t.Errorf("isKnownTLD(%q) = %v, the map says %v", w, got, want)
		}
		if got := isKnownTLD([]byte(w)); got != want {
			t.Errorf("isKnownTLD([]byte(%q)) = %v, the map says %v", w, got, want)
		}
	}
	for tld := range known {
		check(tld)
		check(strings.ToUpper(tld))
		check(tld + "x")
		check(tld[:len(tld)-1] + "q")
	}
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			check(string([]rune{a, b}))
			for c := 'a'; c <= 'z'; c++ {
				check(string([]rune{a, b, c}))
			}
		}
	}
	for _, w := range []string{"pdf", "exe", "Example", "com", "COM", "onion", "internal", "x1", "1x", "é.", "co-", "g", "İnt", "cOmİ", "\u0130nt", "com\ncomcast", "onİon", "한국", "닷컴x"} {
		check(w)
	}
}

// TestFileExtTable: the two-letter table gives the map's answer for every
// extension (in either case), each with a letter added or changed, and
// every two- and three-letter word.
func TestFileExtTable(t *testing.T) {
	exts := fileExts()
	check := func(w string) {
		_, want := exts[strings.ToLower(w)]
		if got := isFileExt(w); got != want {
			t.Errorf("isFileExt(%q) = %v, the map says %v", w, got, want)
		}
		if got := isFileExt([]byte(w)); got != want {
			t.Errorf("isFileExt([]byte(%q)) = %v, the map says %v", w, got, want)
		}
	}
	for e := range exts {
		check(e)
		check(strings.ToUpper(e))
		check(e + "x")
		check(e[:len(e)-1] + "q")
	}
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			check(string([]rune{a, b}))
			for c := 'a'; c <= 'z'; c++ {
				check(string([]rune{a, b, c}))
			}
		}
	}
}

// TestVersionWordsLowerCase: versionBefore compares a word's letters,
// lower-cased by setting 0x20, with versionWords as they are.
func TestVersionWordsLowerCase(t *testing.T) {
	for _, v := range versionWords {
		for i := 0; i < len(v); i++ {
			if v[i] < 'a' || v[i] > 'z' {
				t.Errorf("versionWords: %q is not lower-case ASCII letters", v)
			}
		}
	}
}
