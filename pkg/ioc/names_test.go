package ioc

import (
	"strings"
	"testing"
)

// checkNames holds a name test, in both its shapes, to want: for every
// name of names (in either case), each with a letter added or changed,
// every two- and three-letter word, and the words of more.
func checkNames(t *testing.T, what string, names []string, want func(string) bool, inString func(string) bool, inBytes func([]byte) bool, more ...string) {
	t.Helper()
	check := func(w string) {
		if got, want := inString(w), want(w); got != want {
			t.Errorf("%s(%q) = %v, want %v", what, w, got, want)
		}
		if got, want := inBytes([]byte(w)), want(w); got != want {
			t.Errorf("%s([]byte(%q)) = %v, want %v", what, w, got, want)
		}
	}
	for _, n := range names {
		check(n)
		check(strings.ToUpper(n))
		check(n + "x")
		check(n[:len(n)-1] + "q")
	}
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			check(string([]rune{a, b}))
			for c := 'a'; c <= 'z'; c++ {
				check(string([]rune{a, b, c}))
			}
		}
	}
	for _, w := range more {
		check(w)
	}
}

// TestKnownTLDTables: the tables and the search in tldList's runs give the
// answer of the set of tldList's lines and specialTLDs (and of any
// A-label).
func TestKnownTLDTables(t *testing.T) {
	names := append(strings.Fields(tldList), specialTLDs[:]...)
	known := map[string]bool{}
	for _, tld := range names {
		known[tld] = true
	}
	want := func(w string) bool {
		lw := strings.ToLower(w)
		return known[lw] || len(w) >= 5 && strings.HasPrefix(lw, "xn--")
	}
	checkNames(t, "isKnownTLD", names, want, isKnownTLD[string], isKnownTLD[[]byte],
		"pdf", "exe", "Example", "com", "COM", "onion", "internal", "x1", "1x", "é.", "co-", "g", "İnt", "cOmİ", "\u0130nt", "com\ncomcast", "onİon", "한국", "닷컴x")
}

// TestFileExtTable: the two-letter table gives the map's answer.
func TestFileExtTable(t *testing.T) {
	exts := fileExts()
	var names []string
	for e := range exts {
		names = append(names, e)
	}
	want := func(w string) bool {
		_, ok := exts[strings.ToLower(w)]
		return ok
	}
	checkNames(t, "isFileExt", names, want, isFileExt[string], isFileExt[[]byte])
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
