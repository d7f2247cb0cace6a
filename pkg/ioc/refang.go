package ioc

import "math/bits"

// Refanging is done by two passes over the text, repeated until neither
// changes anything (which also makes Refang idempotent, whatever nesting a
// writer came up with):
//
//   - the separator pass rewrites bracketed or escaped separators: [.] (.)
//     {.} [dot] [ . ] [.  .] \. to '.', [@] (at) to '@', [:] to ':', [://]
//     and [/] to themselves unbracketed, " . " between host labels, and the
//     ideographic and full-width full stops between ASCII letters;
//   - the scheme pass rewrites defanged schemes (hxxp, hXXps, h**p, h__p,
//     hxtp, fxp, ...) followed by ':' and a slash-like pair, and the
//     ":\\" and ":__" separators after any scheme.
//
// Each pass copies nothing until its first change, so text that was never
// defanged costs one read and no allocation.

// maxRefangRounds bounds the fixed-point loop; every change shrinks the text
// or removes a defanged scheme, so real input settles in two or three rounds.
const maxRefangRounds = 16

// Refang undoes the usual ways of defanging an indicator (see RULES.md). It
// leaves text that was never defanged untouched, and returns s itself, without
// allocating, when nothing changes. Refang(Refang(s)) == Refang(s).
func Refang(s string) string {
	if !mayBeDefanged(s) {
		return s
	}
	var buf []byte
	out := s
	for range maxRefangRounds {
		b, changedA := separatorPass(out, 0, buf[:0], nil)
		if changedA {
			out = string(b)
			buf = b
		}
		b, changedB := schemePass(out, buf[:0], nil)
		if changedB {
			out = string(b)
			buf = b
		}
		if !changedA && !changedB {
			break
		}
	}
	return out
}

// refangLine is Refang for the extractor: it returns the refanged line
// (line itself when nothing changes) and records in marks the output offsets
// where something was rewritten, so that the extractor can tell a defanged
// name from a file name. Offsets are exact for the first round; nested
// defangs that need more rounds are rare enough for approximate marks.
// The passes write into the two scratch buffers in turn, so that a report
// with a defang on every line does not allocate per line; the result lives
// in one of them until the next call.
func refangLine(line []byte, marks *[]int, scratch *[2][]byte) []byte {
	*marks = (*marks)[:0]
	// No mayBeDefanged look first: the extractor only calls this after it
	// saw a defang, and the passes change nothing on a line without one.
	cur, in := line, -1 // in: the scratch buffer cur lives in, -1 for line
	for round := range maxRefangRounds {
		m := marks
		if round > 0 {
			m = nil
		}
		out := 1 - max(in, 0)
		from := 0
		if round == 1 {
			from = sameBefore(cur, *marks)
		}
		a, changedA := separatorPass(cur, from, scratch[out][:0], m)
		scratch[out] = a[:0]
		if changedA {
			cur, in = a, out
			out = 1 - out
		}
		b, changedB := schemePass(cur, scratch[out][:0], m)
		scratch[out] = b[:0]
		if changedB {
			cur, in = b, out
		}
		if !changedA && !changedB {
			break
		}
	}
	return cur
}

// sameBefore returns where the separator pass of refangLine's second
// round may start on line, the first round's output, marks its rewrites:
// every rewrite it could make is at or after that point, so the text
// before it, usually most of the line, is not read again.
//
// The first round changed nothing before the first mark m, so line[:m]
// is the first round's input there, and the pass, which changed nothing
// at the separators it stopped at before m, would change nothing at them
// again if what it reads from each is before m. From a separator at p it
// reads p-2 to p+10 (bracketToken's longest token and the bytes around
// it) and runs of label bytes (letters, digits, '-', '_') that start by
// p+10, and 3 bytes past such a run. So the start is put 16 bytes before
// the label run that reaches m-4 (a run that starts earlier ends before
// it), and then before any spaces, because the pass looks at the byte
// before a dot for " . " only when it started before that byte.
func sameBefore(line []byte, marks []int) int {
	m := len(line)
	for _, k := range marks {
		m = min(m, k)
	}
	x := m - 5
	for x >= 0 && class[line[x]]&cLabel != 0 {
		x--
	}
	from := x - 16
	if from <= 0 {
		return 0
	}
	for from > 0 && line[from-1] == ' ' {
		from--
	}
	return from
}

// mayBeDefanged is a quick look for anything either pass could rewrite: one
// branch-free pass gathers the byte classes present, and the only defang
// made of common bytes, " . ", is searched for on its own.
func mayBeDefanged[T string | []byte](s T) bool {
	var seen uint8
	for i := 0; i < len(s); i++ {
		seen |= class[s[i]]
	}
	return seen&cTrigger != 0 || hasSubstr(s, " . ") || hasSubstr(s, "<.>")
}

// writer builds the output of a pass lazily: nothing is copied until the
// first change.
type writer[T string | []byte] struct {
	src     T
	dst     []byte
	from    int // src[from:] is not yet copied
	writing bool
	marks   *[]int
}

// replace drops src[i:j] and writes repl in its place.
func (w *writer[T]) replace(i, j int, repl string) {
	if !w.writing {
		w.writing = true
		w.dst = append(w.dst, w.src[:i]...)
	} else {
		w.dst = append(w.dst, w.src[w.from:i]...)
	}
	if w.marks != nil {
		*w.marks = append(*w.marks, len(w.dst))
	}
	w.dst = append(w.dst, repl...)
	w.from = j
}

// dropSpaceBefore removes the space s[i-1] from the output, for defangs
// written with spaces around them ("example [.] com"). It reports false,
// changing nothing, when that byte was already consumed by an earlier
// rewrite.
func (w *writer[T]) dropSpaceBefore(i int) bool {
	if w.writing && w.from > i-1 {
		return false
	}
	if !w.writing {
		w.writing = true
		w.dst = append(w.dst, w.src[:i-1]...)
	} else {
		w.dst = append(w.dst, w.src[w.from:i-1]...)
	}
	w.from = i
	return true
}

func (w *writer[T]) finish() ([]byte, bool) {
	if !w.writing {
		return w.dst, false
	}
	return append(w.dst, w.src[w.from:]...), true
}

// separatorPass rewrites defanged separators, from s[start] on (the text
// before it is copied as it is); see the comment at the top.
func separatorPass[T string | []byte](s T, start int, dst []byte, marks *[]int) ([]byte, bool) {
	w := writer[T]{src: s, dst: dst, marks: marks}
	n := len(s)
	var scan spanScan
	for i := start; i < n; i++ {
		// Spaces are everywhere in prose, so " . " is looked for from its
		// dot: the space before it is looked at here unless an earlier
		// rewrite consumed it (i is then past it).
		from := i
		if j, ok := scan.held(i); ok {
			i = j // most separator starts are a few bytes apart: no call
		} else {
			i = nextSepStartIn(&scan, s, i)
		}
		if i >= n {
			break
		}
		c := s[i]
		if c == '.' {
			if i > 0 && opensDot(s[i-1]) && (angleDot(s, i) || bracketDot(s, i)) && (!w.writing || w.from <= i-1) {
				w.replace(i-1, i+2, ".") // 1<.>1
				i++
				continue
			}
			if i-1 >= from && s[i-1] == ' ' {
				i--
				c = ' '
			} else {
				continue
			}
		}
		switch c {
		case '[', '(', '{':
			if j, repl, spaced := bracketToken(s, i); j > 0 {
				if spaced && w.dropSpaceBefore(i) {
					j++ // the space after the token
				}
				w.replace(i, j, repl)
				i = j - 1
			} else if c == '[' && i+2 < n && s[i+1] == '.' && i > 0 && isAlnum(s[i-1]) && isAlnum(s[i+2]) {
				w.replace(i, i+2, ".") // example[.com
				i++
			}
		case '\\':
			if i > 0 && i+2 < n && s[i+1] == '.' && isAlnum(s[i-1]) && isAlnum(s[i+2]) {
				w.replace(i, i+2, ".") // example\.com
				i++
			} else if escapedSlash(s, i) {
				w.replace(i, i+2, "/") // https:\/\/host\/x.php, JSON's escape
				i++
			} else if j := escapedBracketDot(s, i); j > 0 {
				w.replace(i, j, ".") // evil\[.\]example, Markdown's escape
				i = j - 1
			}
		case ' ':
			if i > 0 && i+3 < n && s[i+1] == '.' && s[i+2] == ' ' && isAlnum(s[i-1]) && spacedDotContinues(s, i+3) {
				w.replace(i, i+3, ".") // example . com
				i += 2
			}
		case 0xe3, 0xef:
			if i > 0 && i+3 < n && isWideStop(s[i], s[i+1], s[i+2]) && isAlnum(s[i-1]) && isAlnum(s[i+3]) {
				w.replace(i, i+3, ".")
				i += 2
			}
		case ']':
			if i >= 2 && i+1 < n && s[i-1] == '.' && isAlnum(s[i-2]) && isAlnum(s[i+1]) && (!w.writing || w.from <= i-1) {
				w.replace(i-1, i+1, ".") // example.]com
			}
		}
	}
	return w.finish()
}

// sepStart marks the bytes the separator pass stops at: the defang
// triggers but ':' (the scheme pass's), and '.' for " . ".
var sepStart = func() (t [256]bool) {
	for c := range 256 {
		t[c] = class[c]&cTrigger != 0 && c != ':' || c == '.'
	}
	return t
}()

// nextSepStartSWAR is nextSepStart without the vector scan (scan.go).
// Like nextAnchorSWAR, it looks at eight bytes at a time for a superset of
// the bytes sepStart marks: ( . [ \ ] { and non-ASCII.
func nextSepStartSWAR[T string | []byte](s T, i int) int {
	const ones = 0x0101010101010101
	const high = 0x8080808080808080
	for i+8 <= len(s) {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// See nextAnchorSWAR: a range test for each of ( . [-] {.
		h := x | high
		m := (h-0x28*ones)&^(h-0x29*ones) | (h-0x2e*ones)&^(h-0x2f*ones) |
			(h-0x5b*ones)&^(h-0x5e*ones) | (h-0x7b*ones)&^(h-0x7c*ones) | x
		m &= high
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)>>3
		if sepStart[s[j]] {
			return j
		}
		i = j + 1
	}
	for i < len(s) && !sepStart[s[i]] {
		i++
	}
	return i
}

// escapedSlash reports whether s[i:] is "\/" inside a word: JSON writes
// every '/' of a URL that way. Nothing else reads "\/" as anything but a
// slash.
func escapedSlash[T string | []byte](s T, i int) bool {
	return i > 0 && i+1 < len(s) && s[i+1] == '/' && (isAlnum(s[i-1]) || s[i-1] == ':' || s[i-1] == '/' || s[i-1] == '.' || s[i-1] == '-' || s[i-1] == '_')
}

// escapedBracketDot returns the end of a bracketed dot whose brackets are
// escaped with backslashes, as Markdown needs ("evil\[.\]example"), between
// name characters, or 0.
func escapedBracketDot[T string | []byte](s T, i int) int {
	if i == 0 || i+5 >= len(s) || !isAlnum(s[i-1]) || !isAlnum(s[i+5]) {
		return 0
	}
	if s[i+1] != '[' && s[i+1] != '(' && s[i+1] != '{' || s[i+2] != '.' || s[i+3] != '\\' || !closes(s[i+1], s[i+4]) {
		return 0
	}
	return i + 5
}

// bracketDot reports whether the dot at s[i] is wrapped in brackets that
// do not pair up ("foo].[com", "www[.[example", "foo}.{com") between name
// characters; the pairs ("[.]") are bracketToken's.
func bracketDot[T string | []byte](s T, i int) bool {
	return i >= 2 && i+2 < len(s) && isBracket(s[i-1]) && isBracket(s[i+1]) && isAlnum(s[i-2]) && isAlnum(s[i+2])
}

func isBracket(c byte) bool {
	switch c {
	case '[', ']', '(', ')', '{', '}':
		return true
	}
	return false
}

// opensDot tells whether c, the byte before a '.', can start a defanged
// dot, "<.>" or a bracket's ("[.]", "foo].[com"): angleDot and bracketDot
// are false without it. It is asked first because most dots follow a
// letter or a digit, and a call to either costs more than the test.
func opensDot(c byte) bool { return c == '<' || isBracket(c) }

// angleDot reports whether the dot at s[i] is written "<.>" between name
// characters (1<.>1<.>1<.>1), as some mail gateways defang.
func angleDot[T string | []byte](s T, i int) bool {
	return i >= 2 && i+2 < len(s) && s[i-1] == '<' && s[i+1] == '>' && isAlnum(s[i-2]) && isAlnum(s[i+2])
}

func isWideStop(a, b, c byte) bool {
	return (a == 0xe3 && b == 0x80 && c == 0x82) || // U+3002 ideographic full stop
		(a == 0xef && b == 0xbc && c == 0x8e) || // U+FF0E full-width full stop
		(a == 0xef && b == 0xbd && c == 0xa1) // U+FF61 half-width ideographic full stop
}

// bracketToken recognises a defang wrapped in brackets starting at s[i]:
// its end j, what it stands for, and whether it is written with a space on
// both sides between two name characters ("user [at] example [dot] com"),
// in which case the caller drops those spaces too. j is 0 when s[i] starts
// no defang.
func bracketToken[T string | []byte](s T, i int) (j int, repl string, spaced bool) {
	n := len(s)
	if i+1 < n && s[i+1] != ' ' && !bracketLead(s[i+1]) {
		// Most brackets in prose ("(see", "[1]") are dismissed here.
		return 0, "", false
	}
	k := i + 1
	for k < n && k-i <= 8 && s[k] != ']' && s[k] != ')' && s[k] != '}' {
		k++
	}
	if k >= n || k-i > 8 || !closes(s[i], s[k]) {
		return 0, "", false
	}
	var innerBuf [8]byte
	inner := innerBuf[:0]
	for p := i + 1; p < k; p++ {
		if s[p] != ' ' {
			inner = append(inner, lower(s[p]))
		}
	}
	j = k + 1
	before := byte(0)
	if i > 0 {
		before = s[i-1]
	}
	after := byte(0)
	if j < n {
		after = s[j]
	}
	switch string(inner) { // a new case must start with a byte bracketLead takes
	case ".", "dot", ",":
		if string(inner) == "," && !(isAlnum(before) && isAlnum(after)) {
			return 0, "", false
		}
		repl = "."
	case "@", "at":
		if string(inner) == "at" && !nearName(s, i, j) {
			return 0, "", false
		}
		repl = "@"
	case ":":
		// In an IPv6 address ("c0de[:]:66", "db8[:]bad") it sits between
		// hex digits or before the second colon of "::".
		v6 := isHex(before) && (after == ':' || isHex(after))
		if after != '/' && after != '\\' && !isDigit(after) && !v6 {
			return 0, "", false // Python's a[:] and friends
		}
		repl = ":"
	case "-":
		// foo[-]bar.com is foo-bar.com; read as anything else, the
		// defang would leave bar.com, a different real domain.
		if !isAlnum(before) || !isAlnum(after) {
			return 0, "", false
		}
		repl = "-"
	case "://", ":/", "//", "/":
		if string(inner) == ":/" {
			repl = "://"
		} else {
			repl = string(inner)
		}
		if repl == "/" && s[i] == '(' && (before == ' ' || after == ' ' || before == 0 || after == 0) {
			return 0, "", false // "and (/) or" in prose
		}
	default:
		return 0, "", false
	}
	if (repl == "." || repl == "@") && before == ' ' && after == ' ' &&
		i >= 2 && isNameByte(s[i-2]) && j+1 < n && isAlnum(s[j+1]) {
		spaced = true
	}
	return j, repl, spaced
}

// bracketLead tells the bytes that start what a bracket token may hold
// (spaces aside; see the cases of bracketToken's switch): ".", "dot", ",",
// "@", "at", ":", "-", "://", ":/", "//", "/".
func bracketLead(c byte) bool {
	switch lower(c) {
	case '.', 'd', ',', '@', 'a', ':', '-', '/':
		return true
	}
	return false
}

func closes(open, close byte) bool {
	// Writers mix bracket kinds ("[.)") often enough to accept any pair.
	return (open == '[' || open == '(' || open == '{') && (close == ']' || close == ')' || close == '}')
}

// nearName reports whether the defang s[i:j] sits between name characters,
// possibly with one space on each side, and is followed by a host name (a
// label and a dot, defanged or not), which keeps "meet me (at) noon" intact.
func nearName[T string | []byte](s T, i, j int) bool {
	b := i - 1
	if b >= 0 && s[b] == ' ' {
		b--
	}
	a := j
	if a < len(s) && s[a] == ' ' {
		a++
	}
	if b < 0 || a >= len(s) || !isNameByte(s[b]) || !isAlnum(s[a]) {
		return false
	}
	k := a
	for k < len(s) && class[s[k]]&cLabel != 0 {
		k++
	}
	if k < len(s) && s[k] == ' ' {
		k++
	}
	return k < len(s) && (s[k] == '.' || s[k] == '[' || s[k] == '(' || s[k] == '{')
}

func isNameByte(c byte) bool { return isAlnum(c) || c == '-' || c == '_' || c == '.' || c == '+' }

// spacedDotContinues decides whether "x . y" at s[i:] is a host written with
// spaced dots: the next label must be a known TLD or be followed by another
// dot. Prose like "in version 2 . 0" or "done . Then" is left alone.
func spacedDotContinues[T string | []byte](s T, i int) bool {
	j := i
	for j < len(s) && class[s[j]]&cLabel != 0 {
		j++
	}
	if j == i || !isAlnum(s[i]) {
		return false
	}
	if j+1 < len(s) && s[j] == '.' && isAlnum(s[j+1]) {
		return true
	}
	if j+3 < len(s) && s[j] == ' ' && s[j+1] == '.' && s[j+2] == ' ' && isAlnum(s[j+3]) {
		return true
	}
	return isKnownTLD(s[i:j])
}

// schemePass rewrites defanged URL schemes; see the comment at the top.
func schemePass[T string | []byte](s T, dst []byte, marks *[]int) ([]byte, bool) {
	w := writer[T]{src: s, dst: dst, marks: marks}
	n := len(s)
	for i := 0; i < n; i++ {
		k := indexByte(s[i:], ':')
		if k < 0 {
			break
		}
		i += k
		if i+2 >= n {
			break
		}
		a, b := s[i+1], s[i+2]
		slashes := a == '/' && b == '/'
		if !slashes && !(a == '\\' && b == '\\') && !(a == '_' && b == '_') {
			continue
		}
		if open, scheme, ok := bracketedScheme(s, i); ok && slashes {
			w.replace(open, i, scheme)
			i += 2
			continue
		}
		start := i
		for start > 0 && isSchemeByte(s[start-1]) {
			start--
		}
		if start == i || start > 0 && (isAlnum(s[start-1]) || s[start-1] == '+' || s[start-1] == '-' || s[start-1] == '.') {
			continue
		}
		scheme, defanged := fangScheme(s[start:i])
		if !defanged && (slashes || !knownScheme(s[start:i])) {
			continue
		}
		if defanged {
			w.replace(start, i, scheme)
		}
		if !slashes {
			w.replace(i+1, i+3, "//")
			if a == '\\' {
				// http:\\host\path was written the Windows way throughout.
				k := i + 3
				for ; k < n && s[k] > ' ' && class[s[k]]&cHard == 0 || k < n && s[k] == '\\'; k++ {
					if s[k] == '\\' {
						w.replace(k, k+1, "/")
					}
				}
				i = k - 1
				continue
			}
		}
		i += 2
	}
	return w.finish()
}

// bracketedScheme recognises a scheme in brackets before the ':' at s[i]
// ("[http]://", "(https)://", or the closing one alone, "http]://"): where
// the defang starts and the scheme it stands for. Only http(s) and ftp(s)
// are read so, and only at the start of a word.
func bracketedScheme[T string | []byte](s T, i int) (int, string, bool) {
	if i < 2 || s[i-1] != ']' && s[i-1] != ')' {
		return 0, "", false
	}
	start := i - 1
	for start > 0 && isAlnum(s[start-1]) {
		start--
	}
	word := s[start : i-1]
	scheme, defanged := fangScheme(word)
	if !defanged {
		var b [5]byte
		if len(word) > 5 {
			return 0, "", false
		}
		for k := range len(word) {
			b[k] = lower(word[k])
		}
		switch l := string(b[:len(word)]); l {
		case "http", "https", "ftp", "ftps":
			scheme = l
		default:
			return 0, "", false
		}
	}
	open := start
	if open > 0 && (s[open-1] == '[' || s[open-1] == '(') {
		open--
	}
	if open > 0 && (isAlnum(s[open-1]) || s[open-1] == '.' || s[open-1] == '-' || s[open-1] == '+') {
		return 0, "", false
	}
	return open, scheme, true
}

func isSchemeByte(c byte) bool { return isAlnum(c) || c == '*' || c == '_' }

// fangScheme maps a defanged scheme to the real one: h, two of t/x/*/_,
// p, optional s (but not "http" itself) is http(s); fxp(s) is ftp(s);
// sfxp is sftp.
func fangScheme[T string | []byte](w T) (string, bool) {
	n := len(w)
	if n < 3 || n > 5 {
		return "", false
	}
	var b [5]byte
	for i := 0; i < n; i++ {
		b[i] = lower(w[i])
	}
	l := string(b[:n])
	switch l {
	case "fxp":
		return "ftp", true
	case "fxps":
		return "ftps", true
	case "sfxp":
		return "sftp", true
	}
	// Masked schemes: xxxx is http, xxxxs and xxxxx https.
	switch l {
	case "xxxx":
		return "http", true
	case "xxxxs", "xxxxx":
		return "https", true
	}
	if n >= 4 && l[0] == 'h' && l[3] == 'p' && isFangChar(l[1]) && isFangChar(l[2]) && l[1:3] != "tt" {
		switch l[4:] {
		case "":
			return "http", true
		case "s":
			return "https", true
		}
	}
	return "", false
}

func isFangChar(c byte) bool { return c == 't' || c == 'x' || c == '*' || c == '_' }

// knownScheme lists the schemes whose ":\\" and ":__" misspellings are
// fixed; other words before ":\\" are more likely Windows paths (C:\\).
func knownScheme[T string | []byte](w T) bool {
	if len(w) > 5 {
		return false
	}
	var b [5]byte
	for i := 0; i < len(w); i++ {
		b[i] = lower(w[i])
	}
	switch string(b[:len(w)]) {
	case "http", "https", "ftp", "ftps", "sftp", "tcp", "udp", "ws", "wss", "smb":
		return true
	}
	return false
}
