package ioc

import "unicode/utf8"

// The tables and the test below let processLine pass over most anchors
// of prose without a call: "(see", "appendix)", "well-known" stop the
// anchor scan but hold no indicator and no defang.

// defangLead marks the bytes defangCase may answer true for: those of its
// switch.
var defangLead = func() (t [256]bool) {
	for _, c := range []byte("[({])}\\.:\xe3\xef") {
		t[c] = true
	}
	return t
}()

// dotOpener marks the bytes before a dot that make defangCase look at it:
// a space (" . ") and what opensDot takes ("<.>", "[.]", "foo].[com").
var dotOpener = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == ' ' || opensDot(byte(c))
	}
	return t
}()

// afterLead marks the bytes defangAfterCase may answer true for.
var afterLead = [256]bool{'\\': true, '{': true, '}': true, '<': true}

// quietAnchor marks the anchors quietToken looks at: none of them is a
// digit or one of . : @ /, which make a token worth a closer look.
var quietAnchor = [256]bool{'(': true, ')': true, '-': true}

// plainByte marks the ASCII bytes that are no anchor, end no token, and
// say nothing of a token (no digit, no . : @ /, no defang): letters and
// most of the punctuation of prose.
var plainByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = !anchor[c] && class[c]&(cHard|cDigit|cPunct|cTrigger) == 0
	}
	return t
}()

// quietEnd marks the bytes that end a token for scanToken and start no
// defang after it (defangAfter): white space and the other hard bytes.
var quietEnd = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = class[c]&cHard != 0 && !afterLead[c]
	}
	return t
}()

// quietToken tells whether the anchor l[i], a '(' , ')' or '-', is in a
// token that scanToken would find neither defanged nor worth a look, when
// l[done:i] holds no anchor; t is then where that token ends. It reads the
// plain bytes after l[i] to a white space or the like, in a token shorter
// than a hash. Such a token has no digit nor any of . : @ / (none is in
// l[done:i], which holds no anchor, nor after l[i]); its only defang
// trigger is l[i] itself, and for it the conditions below are those under
// which defangAt answers false: a '(' then starts no bracket token
// (bracketToken) and, followed by a plain byte, no "(.)" (bracketDot).
func (e *extractor) quietToken(i, done int) (t int, ok bool) {
	l := e.l
	n := len(l)
	switch l[i] {
	case '(':
		if i+1 >= n || !plainByte[l[i+1]] || bracketLead(l[i+1]) {
			return 0, false
		}
	case ')':
		if i+3 < n && isBracket(l[i+2]) && bracketDot(l, i+1) { // "x).(y": a byte between brackets
			return 0, false
		}
	}
	t = i + 1
	for t < n && plainByte[l[t]] {
		t++
	}
	if t < n && !quietEnd[l[t]] || t-done >= 32 && t-wordStart(l, done, i) >= 32 {
		return 0, false
	}
	return t, true
}

// wordStart returns where the token ending at l[i] starts, for a token of
// l[done:i], which holds no anchor (so no non-ASCII byte): after the last
// hard byte, or at done. It looks back 32 bytes at most, as far as a caller
// needs to tell a token shorter than a hash.
func wordStart(l []byte, done, i int) int {
	from := max(done, i-32)
	if from >= i {
		return i
	}
	// The bytes looked at as a slice of their own, read from its end: one
	// test a byte and no bounds check.
	w := l[from:i]
	k := len(w)
	for k > 0 && class[w[k-1]]&cHard == 0 {
		k--
	}
	return from + k
}
