package ioc

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Byte classes, looked up in one table so that the scanners touch each byte
// once.
const (
	cDigit   = 1 << iota // 0-9
	cHex                 // 0-9 a-f A-F
	cAlpha               // a-z A-Z
	cLabel               // may appear in a host label: alnum, '-', '_'
	cHard                // always ends a token in free text
	cSpace               // ASCII white space
	cTrigger             // may start a defang (refang looks closer)
	cPunct               // . : @ / make a token worth a closer look
)

// class is built by a function, not init, so that other package-level
// tables built from it (wordByte) see it filled in.
var class = func() (class [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		class[c] |= cDigit | cHex | cLabel
	}
	for c := 'a'; c <= 'z'; c++ {
		class[c] |= cAlpha | cLabel
		class[c-'a'+'A'] |= cAlpha | cLabel
	}
	for c := 'a'; c <= 'f'; c++ {
		class[c] |= cHex
		class[c-'a'+'A'] |= cHex
	}
	class['-'] |= cLabel
	class['_'] |= cLabel
	for _, c := range " \t\r\n\v\f" {
		class[c] |= cSpace | cHard
	}
	for c := 0; c < 0x20; c++ {
		class[c] |= cHard
	}
	class[0x7f] |= cHard
	for _, c := range "\"'<>`|{}\\^" {
		class[c] |= cHard
	}
	// '{' and '\\' are hard in text but also open defangs ({.}, example\.com);
	// refang runs before tokenising, so both roles are served.
	for _, c := range "[({\\:]" {
		class[c] |= cTrigger
	}
	for _, c := range ".:@/" {
		class[c] |= cPunct
	}
	// Lead bytes of the ideographic and full-width full stops.
	class[0xe3] |= cTrigger
	class[0xef] |= cTrigger
	return class
}()

func isDigit(c byte) bool { return class[c]&cDigit != 0 }
func isHex(c byte) bool   { return class[c]&cHex != 0 }
func isAlnum(c byte) bool { return class[c]&(cDigit|cAlpha) != 0 }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasUpperASCII reports whether s needs lower-casing in its ASCII part.
func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// toLower lower-cases s, returning s itself when nothing changes, so that
// normalising an already-normal value does not allocate.
func toLower(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
	}
	if !hasUpperASCII(s) {
		return s
	}
	return strings.ToLower(s)
}

// isLetterRune is what a non-ASCII host label may be made of: letters,
// digits and combining marks (IDN).
func isLetterRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}
