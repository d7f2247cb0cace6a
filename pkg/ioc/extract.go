package ioc

// The extractor reads text a line at a time: it refangs the line, cuts it
// into tokens at white space and at characters that never occur inside an
// indicator (quotes, angle brackets, pipes, ...), finds URLs with a scheme
// in each token, and cuts the rest into words at the remaining punctuation
// (brackets, commas, '=', ...). Each word is then classified by the few
// characters that matter (/ @ : .), so most prose words are dismissed after
// one look at their bytes. No regular expressions are involved.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// Indicator is one indicator found in text: its normalized value and type.
type Indicator struct {
	Value string
	Type  Type
	// FromURL is set on a URL's host reported on its own (ExtractOptions'
	// URLHosts): the URL it was taken from.
	FromURL string
}

// URLHost is the host of a URL as an indicator of its own, normalized,
// and its type (a domain or an address); "" when the host is neither (a
// single-label name such as http://intranet/).
func URLHost(u string) (string, Type) {
	p, ok := splitURL(u)
	if !ok || p.hostEnd <= p.host {
		return "", Unknown
	}
	h := u[p.host:p.hostEnd]
	if len(h) > 2 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	h = strings.TrimSuffix(h, ".")
	switch t := Detect(h); t {
	case Domain, IPv4, IPv6:
		return Normalize(h, t), t
	}
	return "", Unknown
}

// extractor finds the candidates in one line at a time and keeps them, in
// order and repeats included, for a merger to de-duplicate and report:
// several extractors may then work on different parts of a report at once.
type extractor struct {
	want  uint16 // bit per type; 0 = all
	marks []int  // offsets in l where refang rewrote something
	l     []byte // the refanged line

	found  []candidate // what the lines processed since the last merge hold
	vals   []byte      // their normalized values, back to back
	hashes []hash128   // the hashes of the first of them, if computed (hashFound)

	// refanged: l is the line refanged (refang), not the line as read.
	refanged bool
	anchors  anchorScan  // the line's anchors
	win      *lineWindow // searchLines's masks
	cur      lineCursor  // searchLines's lines
	scratch  [2][]byte   // refangLine's buffers
	inv      []byte      // dropInvisibleInWords's buffer
	// invisible: the text being processed holds an invisible character
	// somewhere (hasInvisible), so each line is looked at for them.
	invisible bool
	// controls: the text holds a NUL or an ESC somewhere (hasControls),
	// so each line is read as a terminal shows it (dropTerminalControls).
	controls bool
	ctl      []byte // dropTerminalControls's buffer
	long     []byte // cutLong's buffer
	// minWord and words are the type table's word rules (minWordLen,
	// wordRows), looked up once.
	minWord int
	words   []*TypeInfo
	// named: the word being classified follows "Name/" (a detection name
	// such as Win32/Korplug.TC, a MIME or language prefix): what looks
	// like a domain in it is the rest of a name.
	named bool
}

// candidate is an indicator found and normalized, not yet de-duplicated;
// its value ends at end in the extractor's vals.
type candidate struct {
	typ Type
	end int
}

func newExtractor(types []Type) *extractor {
	e := &extractor{minWord: minWordLen(), words: wordRows()}
	for _, t := range types {
		e.want |= typeBit(t)
	}
	return e
}

func typeBit(t Type) uint16 {
	for i, u := range AllTypes {
		if u == t {
			return 1 << i
		}
	}
	return 0
}

// wordByte marks what may appear inside a word: letters, digits and the
// punctuation of host names, addresses and paths. Non-ASCII letters too.
var wordByte = func() (w [256]bool) {
	for c := 0; c < 256; c++ {
		w[c] = c >= utf8.RuneSelf || isAlnum(byte(c))
	}
	for _, c := range ".-_@:%+/" {
		w[c] = true
	}
	return w
}()

// anchor marks the bytes every indicator has one of, its type's anchors
// in the type table (. : @ / for host names, addresses, URLs and emails,
// '-' and digits for CVE IDs and hashes: a digest with no digit among 32
// hex digits is a 1-in-10^13 event), non-ASCII (IDN), and the bytes that
// may start a defang. The scanner skips everything else without looking
// at words at all.
var anchor = func() (a [256]bool) {
	for _, r := range typeTable {
		for i := 0; i < len(r.anchors); i++ {
			a[r.anchors[i]] = true
		}
	}
	for _, c := range "[](){}\\" {
		a[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		a[c] = true
	}
	return a
}()

func (e *extractor) processLine(raw []byte) {
	e.lineIn(raw, nil, 0)
}

// lineIn is processLine for a line whose anchors masks holds from bit off
// of masks[0] on (a lineWindow's), or has yet to find (nil); then, while
// e.cur is on, for each line after it that ends in the window.
func (e *extractor) lineIn(raw []byte, masks []uint64, off uint) {
	for {
		if e.controls {
			if r := dropTerminalControls(raw, e.ctl); len(r) != len(raw) {
				raw, e.ctl, masks = r, r, nil
			}
		}
		if e.invisible {
			if r := dropInvisibleInWords(raw, e.inv); len(r) != len(raw) {
				raw, e.inv, masks = r, r, nil
			}
		}
		e.l = raw
		e.marks = e.marks[:0]
		e.refanged = false
		if masks == nil {
			e.anchors.reset(raw)
		} else {
			e.anchors.hold(len(raw), masks, off)
		}
		for i := 0; ; {
			// l[:done] is dealt with, and l[done:i] holds no anchor below.
			// The line and whether it is refanged are read from e each
			// time round, and done is i here: a value the loop may change
			// would be stored at its head each time round, to be there
			// after the calls below.
			done := i
			l := e.l
			n := len(l)
			if vectorScan {
				i = e.anchors.next(i)
			} else {
				i = nextAnchorSWAR(l, i)
			}
			if i >= n {
				break
			}
			if l[i] == '.' && (i+1 == n || l[i+1] < utf8.RuneSelf && class[l[i+1]]&cHard != 0) && (i-done < 31 || (i+1 == n || quietEnd[l[i+1]]) && i-wordStart(l, done, i) < 31) && i > 0 && l[i-1] != ' ' && !(opensDot(l[i-1]) && (angleDot(l, i) || bracketDot(l, i))) {
				// A word that ends a sentence ("report."): its token is the
				// dot and the letters before it, short, with no digit, defang
				// or other punctuation, so it is no candidate. When the anchor
				// before is far, the word's start is looked for, and what
				// follows must start no defang (defangAfter).
				i++
				continue
			}
			if quietAnchor[l[i]] {
				if t, ok := e.quietToken(i, done); ok {
					i = t
					continue
				}
			}
			if !e.refanged && mayDefangAt(l, i) && e.defangCase(i) {
				i = e.refang(raw, done)
				continue
			}
			if l[i] >= utf8.RuneSelf || class[l[i]]&cHard == 0 {
				s, t, defanged, worth, seen := e.scanToken(i, done, !e.refanged)
				if defanged {
					i = e.refang(raw, done)
					continue
				}
				if t-s >= 9 && isDigit(l[s]) && e.spacedCVE(s, t) {
					worth = false
				}
				if worth {
					if seen&sOther == 0 {
						e.labelWord(s, t, seen)
					} else {
						e.token(s, t)
					}
				}
				if t > i {
					i = t - 1
				}
			}
			i++
		}
		if !e.cur.on {
			return
		}
		a, end, ok := e.cur.next(e.win)
		if !ok {
			return
		}
		raw, masks = e.cur.line(e.win, a, end)
		off = uint(a & 63)
	}
}

// refang refangs the line once a defang is seen in it, when raw[:done] has
// been dealt with, starts the anchor scan on the refanged line and
// returns where scanning goes on in it: the start of the token holding the first byte refang
// changed, or of the one holding raw[done], whichever comes first. The
// tokens before it are the same bytes in both lines (and hold no mark),
// so scanning them again would only find what was found already.
func (e *extractor) refang(raw []byte, done int) int {
	e.l, e.refanged = refangLine(raw, &e.marks, &e.scratch), true
	e.anchors.reset(e.l)
	// Where raw and e.l first differ, up to done: most often they do not
	// before it (the token that holds the defang starts there), which one
	// vectorized comparison tells.
	p := min(done, len(raw), len(e.l))
	if !bytes.Equal(raw[:p], e.l[:p]) {
		p = commonPrefix(raw[:p], e.l)
	}
	for _, m := range e.marks {
		p = min(p, m)
	}
	// Back to just after a hard ASCII separator, where every token scan,
	// whatever it started from, stops.
	for l := e.l[:p]; p > 0 && (l[p-1] >= utf8.RuneSelf || class[l[p-1]]&cHard == 0); {
		p--
	}
	return p
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// defangAt tells whether l[i] starts something refang would rewrite; it
// asks the same questions as the refang passes.
func (e *extractor) defangAt(i int) bool {
	return mayDefangAt(e.l, i) && e.defangCase(i)
}

// mayDefangAt is false for the bytes defangAt answers false for at once:
// those no defang starts with, and the dots that follow neither a space nor
// a bracket (most dots). processLine asks it inline, before a call.
func mayDefangAt(l []byte, i int) bool {
	return defangLead[l[i]] && (l[i] != '.' || i > 0 && dotOpener[l[i-1]])
}

// defangCase is defangAt for a byte defangLead marks.
func (e *extractor) defangCase(i int) bool {
	l := e.l
	n := len(l)
	switch c := l[i]; c {
	case '[', '(', '{':
		if j, _, _ := bracketToken(l, i); j > 0 || bracketDot(l, i+1) {
			return true
		}
		return c == '[' && i > 0 && i+2 < n && l[i+1] == '.' && isAlnum(l[i-1]) && isAlnum(l[i+2])
	case ']':
		return i >= 2 && i+1 < n && l[i-1] == '.' && isAlnum(l[i-2]) && isAlnum(l[i+1]) || bracketDot(l, i+1)
	case ')', '}':
		return bracketDot(l, i+1)
	case '\\':
		return i > 0 && i+2 < n && l[i+1] == '.' && isAlnum(l[i-1]) && isAlnum(l[i+2]) ||
			escapedSlash(l, i) || escapedBracketDot(l, i) > 0
	case '.':
		if i == 0 || l[i-1] != ' ' && !opensDot(l[i-1]) {
			return false // most dots follow a letter or a digit
		}
		if angleDot(l, i) || bracketDot(l, i) {
			return true
		}
		return i > 0 && i+2 < n && l[i-1] == ' ' && l[i+1] == ' ' && i >= 2 && isAlnum(l[i-2]) && spacedDotContinues(l, i+2)
	case ':':
		if i+2 >= n {
			return false
		}
		if (l[i+1] == '\\' && l[i+2] == '\\') || (l[i+1] == '_' && l[i+2] == '_') {
			return true
		}
		if _, _, ok := bracketedScheme(l, i); ok && l[i+1] == '/' && l[i+2] == '/' {
			return true
		}
		s := i
		for s > 0 && isSchemeByte(l[s-1]) {
			s--
		}
		_, defanged := fangScheme(l[s:i])
		return defanged
	case 0xe3, 0xef:
		return i > 0 && i+3 < n && isWideStop(l[i], l[i+1], l[i+2]) && isAlnum(l[i-1]) && isAlnum(l[i+3])
	}
	return false
}

// defangAfter tells whether the hard separator l[t] that ends a token
// starts a defang that joins the token to what follows (http://example{.}com,
// https://host\/x, 1<.>1): the token must then be read refanged, not as
// the piece before the separator.
func (e *extractor) defangAfter(t int) bool {
	if l := e.l; t < len(l) && afterLead[l[t]] {
		return e.defangAfterCase(t)
	}
	return false // most tokens end at a space: answered inline
}

// defangAfterCase is defangAfter for a byte afterLead marks.
func (e *extractor) defangAfterCase(t int) bool {
	l := e.l
	switch l[t] {
	case '\\', '{', '}':
		return e.defangAt(t)
	case '<':
		return t+1 < len(l) && l[t+1] == '.' && angleDot(l, t+1)
	}
	return false
}

// Bits of scanClass, what scanToken gathers about a token in one lookup
// per byte.
const (
	sStop    = 1 << iota // a hard separator, or non-ASCII, which it leaves to tokenAround and look
	sDigit               // 0-9
	sTrigger             // cTrigger
	sOther               // not a letter, digit, '.', '-' or '_'
	sPunct               // cPunct
	sJoin                // '-' or '_': in a label, but no letter or digit
)

// scanTable is &scanClass in a variable, which scanToken loads once.
var scanTable = &scanClass

var scanClass = func() (t [256]uint8) {
	for c := range 256 {
		k := class[c]
		if c >= utf8.RuneSelf || k&cHard != 0 {
			t[c] |= sStop
		}
		if k&cDigit != 0 {
			t[c] |= sDigit
		}
		if k&cTrigger != 0 {
			t[c] |= sTrigger
		}
		if k&cLabel == 0 && c != '.' {
			t[c] |= sOther
		}
		if k&cPunct != 0 {
			t[c] |= sPunct
		}
		if c == '-' || c == '_' {
			t[c] |= sJoin
		}
	}
	return t
}()

// scanToken is tokenAround and look in one pass over the token holding
// l[i], for the common case of an ASCII token; a token with other bytes
// is passed on to them. seen is the scanClass bits of the token's bytes:
// without sOther, it is made of letters, digits, '.', '-' and '_' only (a
// label token, for labelWord, which the other bits tell more of); a token
// with other bytes has sOther.
func (e *extractor) scanToken(i, from int, askDefang bool) (s, t int, defanged, worth bool, seen uint8) {
	l := e.l[:len(e.l):len(e.l)] // its capacity is no register in the loops
	// The table through a pointer held in a register: its address, a
	// constant, would be loaded again for each byte.
	tab := scanTable
	_ = tab[0] // one nil check, not one a byte
	// l[i] is no hard separator (processLine asks). Its trigger bit is
	// kept apart: processLine has asked about l[i], the defang questions
	// below are for the other bytes, and in most tokens that hold a
	// trigger ("(see", the ':' of a URL) it is l[i], the anchor.
	first := tab[l[i]]
	if first&sStop != 0 {
		return e.slowToken(i, from, askDefang) // non-ASCII
	}
	// l[i]'s other bits are those of a byte that is not a trigger: every
	// trigger is sOther (or a stop) too, and the bit is of no use after.
	seen = first &^ sTrigger
	// The loops stop at a stop and look at it after: which stop it is
	// (non-ASCII, for slowToken) would hold one more register in them.
	before := l[from:i] // indexed from its end: no bounds check in the loop
	j := len(before) - 1
	for j >= 0 {
		k := tab[before[j]]
		if k&sStop != 0 {
			break
		}
		seen |= k
		j--
	}
	if j >= 0 && before[j] >= utf8.RuneSelf {
		return e.slowToken(i, from, askDefang)
	}
	s = from + j + 1
	t = i + 1
	for t < len(l) {
		k := tab[l[t]]
		if k&sStop != 0 {
			break
		}
		seen |= k
		t++
	}
	var after byte // the hard separator that ends the token; 0 at the line's end
	if t < len(l) {
		if after = l[t]; after >= utf8.RuneSelf {
			return e.slowToken(i, from, askDefang)
		}
	}
	// What may start a defang is told from the bytes at hand, and the
	// calls that look closer are made only then: a call here, on the path
	// of every token, would have what lives across it saved each time.
	if askDefang && (seen&sTrigger != 0 || s != i && l[s] == '.' && s > 0 && l[s-1] == ' ' ||
		closesDefang(after)) && e.defangIn(i, s, t, seen) {
		return s, t, true, false, sOther
	}
	if t-s >= 32 {
		return s, t, false, true, seen
	}
	// A punct makes the token worth a look unless it is the only one and
	// ends the token ("report."); the loops do not count them, which would
	// cost them a register: only a token that ends with one is read again.
	if seen&sPunct != 0 && (tab[l[t-1]]&sPunct == 0 || hasPunct(l[s:t-1])) {
		// A short label token (setup.exe, e.g., 2.1.0) is settled here,
		// with no call of labelWord, which would save its state to make
		// the calls it may make.
		worth = seen&sOther != 0 || t-s >= e.minWord || len(e.marks) != 0 || !shortSettled(l[s:t])
		return s, t, false, worth, seen
	}
	return s, t, false, t-s >= e.minWord && seen&sDigit != 0, seen
}

// defangIn is scanToken's question whether the token l[s:t], which holds
// l[i], holds a defang or is joined by one to what follows. seen is what
// its bytes but l[i] are.
func (e *extractor) defangIn(i, s, t int, seen uint8) bool {
	l := e.l
	if seen&sTrigger != 0 {
		for j := s; j < t; j++ {
			if class[l[j]]&cTrigger != 0 && j != i && e.defangAt(j) {
				return true
			}
		}
	}
	// A dot only starts a defang after a space (" . "), and inside a
	// token it has none before it but at its start.
	if s != i && l[s] == '.' && s > 0 && l[s-1] == ' ' && e.defangAt(s) {
		return true
	}
	return t < len(l) && closesDefang(l[t]) && e.defangAfter(t)
}

func (e *extractor) slowToken(i, from int, askDefang bool) (s, t int, defanged, worth bool, seen uint8) {
	s, t = e.tokenAround(i, from)
	defanged, worth = e.look(s, t, askDefang)
	return s, t, defanged, worth, sOther
}

// tokenAround returns the token holding l[i], not reaching back before
// from: the run of ASCII bytes that are not hard separators and non-ASCII
// letters, digits and marks (IDN) around it. Other Unicode (curly quotes,
// ideographic punctuation, spaces) separates tokens.
func (e *extractor) tokenAround(i, from int) (int, int) {
	l := e.l
	s := i
	for s > from {
		c := l[s-1]
		if c < utf8.RuneSelf {
			if class[c]&cHard != 0 {
				break
			}
			s--
			continue
		}
		r, size := utf8.DecodeLastRune(l[from:s])
		if r == utf8.RuneError || !isLetterRune(r) {
			break
		}
		s -= size
	}
	t := i
	for t < len(l) {
		c := l[t]
		if c < utf8.RuneSelf {
			if class[c]&cHard != 0 {
				break
			}
			t++
			continue
		}
		r, size := utf8.DecodeRune(l[t:])
		if r == utf8.RuneError || !isLetterRune(r) {
			break
		}
		t += size
	}
	return s, t
}

// look reads the token l[s:t] once for two questions. Does it hold a
// defang (asked only before the line is refanged)? Is it worth a closer
// look? Most tokens that reach it are not: no indicator lacks one of
// . : @ / inside it, except hashes (32 characters or more) and CVE IDs (13
// or more, with digits); a word that merely ends a sentence ("in 2024.")
// is no candidate either.
func (e *extractor) look(s, t int, askDefang bool) (defanged, worth bool) {
	l := e.l
	var seen uint8
	puncts, last := 0, 0
	for j := s; j < t; j++ {
		c := l[j]
		k := class[c]
		if k&cPunct != 0 {
			puncts++
			last = j
		}
		seen |= k
		// A dot only starts a defang after a space (" . "), and inside a
		// token it has none before it.
		if askDefang && (k&cTrigger != 0 || c == '.' && j > 0 && l[j-1] == ' ') && e.defangAt(j) {
			return true, false
		}
	}
	if askDefang && e.defangAfter(t) {
		return true, false
	}
	if t-s >= 32 {
		return false, true
	}
	if seen&cPunct != 0 && !(puncts == 1 && last == t-1) {
		return false, true
	}
	return false, t-s >= e.minWord && seen&cDigit != 0
}

// nextAnchorSWAR is nextAnchor without the vector scan (scan.go): the
// fallback, and the reference the vector scan is tested against. It looks
// at eight bytes at a time for bytes in a superset of the anchors, ( to @,
// [ to ], { to } and non-ASCII, which letters and spaces, the bulk of
// prose, are not in; a byte so found is then checked against the table.
func nextAnchorSWAR(l []byte, i int) int {
	const ones = 0x0101010101010101
	const high = 0x8080808080808080
	for i+8 <= len(l) {
		x := binary.LittleEndian.Uint64(l[i:])
		// With every high bit set, subtracting c from a byte borrows from
		// nothing, and leaves its high bit set exactly when the byte's low
		// seven bits are c or more.
		h := x | high
		m := (h-0x28*ones)&^(h-0x41*ones) | (h-0x5b*ones)&^(h-0x5e*ones) | (h-0x7b*ones)&^(h-0x7e*ones) | x
		m &= high
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)>>3
		if anchor[l[j]] {
			return j
		}
		i = j + 1
	}
	for i < len(l) && !anchor[l[i]] {
		i++
	}
	return i
}

var schemeSep = []byte("://")

func (e *extractor) token(a, b int) {
	l := e.l
	for a < b {
		k := bytes.Index(l[a:b], schemeSep)
		if k < 0 {
			break
		}
		k += a
		s := k
		for s > a && (isAlnum(l[s-1]) || l[s-1] == '+' || l[s-1] == '-') {
			s--
		}
		for s < k && class[l[s]]&cAlpha == 0 {
			s++
		}
		if k-s < 2 {
			e.plain(a, k)
			a = k + 3
			continue
		}
		e.plain(a, s)
		end := e.urlEnd(s, k+3, b)
		if end < b && l[end] == ',' && allDigits(l[k+3:end]) {
			// http://192,168,0,1: an address written with commas, not
			// the URL http://192 followed by a list.
			a = b
			break
		}
		// l[s:end] is part of a token: no white space or control in it.
		if p, ok := splitURLIn(l[s:end], false); ok && p.hostEnd > p.host && !gluedScheme(l[s:k]) {
			e.emitURL(s, end, p)
		}
		// A URL that is refused is skipped whole: a piece of it
		// (tcp://a.a/test.com's test.com) is no indicator of its own.
		a = end
	}
	e.plain(a, b)
}

// gluedScheme reports whether a scheme is http or https with letters glued
// before it ("--~Chttp://"): the text is mangled there, and neither the
// made-up scheme nor a guess at where the real one starts is reported.
func gluedScheme(w []byte) bool {
	n := len(w)
	for _, real := range [...]string{"http", "https"} {
		if n > len(real) && class[w[n-len(real)-1]]&cAlpha != 0 && foldsTo(w[n-len(real):], real) {
			return true
		}
	}
	return false
}

// foldsTo is strings.EqualFold(string(w), lower) for lower-case ASCII
// letters of lower's length: a non-ASCII rune would take two bytes or
// more for the one ASCII letter it may fold to, so w must be ASCII too,
// and a byte matches a lower-case letter with 0x20 set just when it is
// that letter in either case.
func foldsTo(w []byte, lower string) bool {
	if len(w) != len(lower) {
		return false
	}
	for i := range len(lower) {
		if w[i]|0x20 != lower[i] {
			return false
		}
	}
	return true
}

// urlEnd finds where a URL that starts at l[start] and goes on at l[i]
// ends, before b: at a comma (CSV), at a ')' or ']' it did not open
// (markdown, prose), before a "++" that closes the "++" before start
// (AsciiDoc's passthrough, `++http://a.example/x++`), and before trailing
// sentence punctuation.
func (e *extractor) urlEnd(start, i, b int) int {
	l := e.l[:b] // j < len(l): no bounds check in the loop
	paren, brack, open := 0, 0, 0
	j := i
scan:
	for ; j < b; j++ {
		// Most of a URL's bytes are none of the five: one lookup each.
		for j < len(l) && !urlEndByte[l[j]] {
			j++
		}
		if j == b {
			break
		}
		switch l[j] {
		case '(':
			paren++
		case ')':
			if paren == 0 {
				break scan
			}
			paren--
		case '[':
			if brack == 0 {
				open = j
			}
			brack++
		case ']':
			if brack == 0 {
				break scan
			}
			brack--
		case ',':
			break scan
		}
	}
	if brack > 0 {
		// A '[' that no ']' closes is no part of a URL (RFC 3986 keeps
		// brackets for IPv6 hosts): what follows is link text, as in
		// AsciiDoc's https://a.example/x[the report].
		j = open
	}
	if plusOpened(l, start) && j-i >= 2 && l[j-1] == '+' && l[j-2] == '+' {
		j -= 2
	}
	for j > i && isTrailingPunct(l[j-1]) {
		j--
	}
	return j
}

// urlEndByte marks the bytes urlEnd stops at to look closer.
var urlEndByte = [256]bool{'(': true, ')': true, '[': true, ']': true, ',': true}

// plusOpened reports whether "++" comes right before l[start]: the value
// is enclosed like `++x++`, and its closing "++" is no part of it. A '+'
// inside a value (?q=a+b, /c++) is kept when nothing opened one.
func plusOpened(l []byte, start int) bool {
	return start >= 2 && l[start-1] == '+' && l[start-2] == '+'
}

func isTrailingPunct(c byte) bool {
	switch c {
	case '.', ',', ';', ':', '!', '?', '*', '(', '[':
		return true
	}
	return false
}

// plain handles text without a scheme: it cuts it into words.
func (e *extractor) plain(a, b int) {
	l := e.l
	for i := a; i < b; {
		if !wordByte[l[i]] {
			i++
			continue
		}
		j := i + 1
		for j < b && wordByte[l[j]] {
			j++
		}
		i = e.word(i, j, b)
	}
}

// labelWord is token for a token made of ASCII letters, digits, '.', '-'
// and '_' only (most words of prose that reach token: invoice.pdf, e.g.,
// 2.1.0, digests): it holds no scheme and is one word, which word would
// trim of its leading and trailing punctuation and classify by its dots.
// seen is scanToken's bits for it: in such a token sPunct is a dot.
func (e *extractor) labelWord(ws, end int, seen uint8) {
	if seen&(sPunct|sJoin) == 0 {
		// Letters and digits only (a digest): nothing to trim, no dot to
		// look for (scanToken has read every byte), one run.
		e.alnumWord(ws, end)
		return
	}
	l := e.l
	keep := keepUnderscore(l, ws, end)
	for ws < end && !isAlnum(l[ws]) && !(keep && l[ws] == '_' && ws+1 < end && isAlnum(l[ws+1])) {
		ws++
	}
	for end > ws && !isAlnum(l[end-1]) {
		end--
	}
	if end <= ws {
		return
	}
	if seen&sPunct == 0 || end-ws >= 32 && bytes.IndexByte(l[ws:end], '.') < 0 {
		// No dot inside: scanToken saw none, or a long word (a digest
		// ending a sentence) holds none in the vector search's few
		// instructions, where a loop would take several a byte.
		if seen&sJoin == 0 {
			e.alnumWord(ws, end)
		} else {
			e.bareWord(ws, end)
		}
		return
	}
	// From the end: the last dot is what dottedWord wants, and in a file
	// name (invoice.pdf) or a version (2.1.0) it is near the end.
	for k := end - 1; k > ws; k-- {
		if l[k] == '.' {
			if end-ws < e.minWord && !isDigit(l[k+1]) && len(e.marks) == 0 {
				// Most dotted words of prose (setup.exe, e.g): the TLD
				// tables say the last label is none, and the word is too
				// short for a bare word's value, so dottedWord would find
				// nothing. It is not called to say so.
				if noTLDStarts(l[k+1 : end]) {
					return
				}
				if known, sure := tldByTables(l[k+1 : end]); sure && !known {
					return
				}
			}
			e.dottedWordAt(ws, end, k+1)
			return
		}
	}
	e.bareWord(ws, end)
}

// word classifies l[ws:we] and returns where scanning goes on: past we when
// a URL without a scheme takes in what follows its path (query, fragment).
func (e *extractor) word(ws, we, limit int) int {
	l := e.l
	keep := keepUnderscore(l, ws, we)
	for ws < we && l[ws] < utf8.RuneSelf && !isAlnum(l[ws]) {
		if l[ws] == '/' {
			return we // a path: /usr/lib/x.so, ./run.sh
		}
		if l[ws] == ':' && ws+1 < we && l[ws+1] == ':' {
			break // ::ffff:192.0.2.1
		}
		if l[ws] == '@' && ws+1 < we && isAlnum(l[ws+1]) && ws > 0 && isLocalByte(l[ws-1]) {
			break // user!@a.example, ****@yahoo.com, -@a.example: an address, whole or refused, not its domain
		}
		if keep && l[ws] == '_' && ws+1 < we && isAlnum(l[ws+1]) {
			break // _jabber._tcp.example.com
		}
		if pctEncoded(l, ws, we) {
			ws += 2 // %2Fhost.com: the '/' of a URL in a query, encoded
		}
		ws++
	}
	end := we
	for end > ws && isWordTrail(l[end-1]) {
		end--
	}
	if end <= ws {
		return we
	}
	slash, at, colon, dot, pct := -1, -1, -1, false, -1
	for i := ws; i < end; i++ {
		switch l[i] {
		case '%':
			if pct < 0 {
				pct = i
			}
		case '/':
			if slash < 0 {
				slash = i
			}
		case '@':
			if at < 0 {
				at = i
			}
		case ':':
			if colon < 0 {
				colon = i
			}
		case '.':
			dot = true
		}
	}
	if pct > ws && (slash < 0 || pct < slash) {
		// An encoded separator in what would be the host (host.com%2Fpath,
		// host.com%3A443) ends it there: the host is one word and the
		// rest another.
		for p := pct; p < we && l[p] != '/'; p++ {
			if pctEncoded(l, p, we) && class[hexByte(l[p+1], l[p+2])]&cLabel == 0 {
				e.word(ws, p, p)
				return e.word(p+3, we, limit)
			}
		}
	}
	if at < 0 && gluedBefore(l, ws) {
		return we // ya*hoo.com, x!evil.example.com: a piece of a longer word
	}
	switch {
	case slash >= 0:
		return e.slashWord(ws, end, slash, we, limit)
	case at >= 0:
		e.atWord(ws, end, at)
	case colon >= 0:
		e.colonWord(ws, end)
	case dot:
		e.dottedWord(ws, end)
	default:
		e.bareWord(ws, end)
	}
	return we
}

// keepUnderscore tells whether a leading '_' of the word l[a:b] belongs to
// it (a service label, _jabber._tcp.example.com) rather than to Markdown
// emphasis around it (_evil.example_), which also ends with one.
func keepUnderscore(l []byte, a, b int) bool {
	return b > a && l[b-1] != '_' && l[a] == '_'
}

// pctEncoded reports whether l[i:b] starts with a percent-encoded byte.
func pctEncoded(l []byte, i, b int) bool {
	return i+2 < b && l[i] == '%' && isHex(l[i+1]) && isHex(l[i+2])
}

func hexByte(a, b byte) byte { return unhex(a)<<4 | unhex(b) }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func isWordTrail(c byte) bool {
	switch c {
	case '.', '-', '_', '@', '%', '+':
		return true
	}
	return false
}

// pieces classifies the parts of l[a:b] between sep bytes, for words that
// turned out to be several things glued together (ip:1.2.3.4, and/or).
func (e *extractor) pieces(a, b int, sep byte) {
	p := a
	for k := a; k <= b; k++ {
		if k == b || e.l[k] == sep {
			if k > p {
				e.word(p, k, k)
			}
			p = k + 1
		}
	}
}

// slashWord: an address with a prefix length is a CIDR block,
// host[:port]/path is a URL without a scheme (its query and fragment may
// follow), host[:port]/ with nothing after the slash is the host; anything
// else is split at slashes.
func (e *extractor) slashWord(ws, end, slash, we, limit int) int {
	l := e.l
	// An address block, also at the end of a sentence ("203.0.113.0/24."):
	// a range, never the URL 203.0.113.0/24 nor its network address.
	// An address with a prefix length out of range (10.0.0.0/33) is a
	// refused block, and none of its pieces is reported.
	if end-slash-1 >= 1 && end-slash-1 <= 3 && allDigits(l[slash+1:end]) && onlyDots(l[end:we]) &&
		(isIPv4(l[ws:slash]) || isIPv6(l[ws:slash])) {
		if isCIDR(l[ws:end]) && !e.versionBefore(ws) {
			e.emit(ws, end, CIDR)
		}
		return we
	}
	if slash+1 < end && l[slash+1] == '/' {
		if uend, ok := e.colonlessURL(ws, slash, limit); ok {
			return uend
		}
	}
	if e.hostOK(ws, slash) {
		uend := e.urlEnd(ws, slash, limit)
		if uend == slash+1 {
			// example.com/ as an address bar shows it: the host.
			e.word(ws, slash, slash)
			return we
		}
		e.emit(ws, uend, URL)
		return uend
	}
	e.slashPieces(ws, end)
	return we
}

// colonlessURL reads a word whose scheme lost its colon (http//host/x,
// hxxps//host/x: l[ws:slash] is the scheme, l[slash:] starts with "//")
// as the URL with its colon put back, by the rule a pasted value follows
// (missingColon): only for http and https, defanged or not, and only when
// what follows the "//" is a domain or an address, so that "see http//"
// or http//intranet/x invents nothing. It returns where the URL ends.
func (e *extractor) colonlessURL(ws, slash, limit int) (int, bool) {
	l := e.l
	scheme := schemeWord(l[ws:slash])
	if scheme == "" {
		return 0, false
	}
	h := slash + 2
	uend := e.urlEnd(ws, h, limit)
	he := h
	for he < uend && l[he] != '/' && l[he] != '?' && l[he] != '#' {
		he++
	}
	if he == h || !e.hostOK(h, he) {
		return 0, false
	}
	var buf [256]byte
	v := append(append(append(buf[:0], scheme...), "://"...), l[h:uend]...)
	if p, ok := splitURL(v); !ok || p.hostEnd <= p.host {
		return 0, false
	}
	e.emitRaw(v, URL)
	return uend, true
}

// schemeWord returns the scheme a word stands for when it is http or
// https, defanged (hxxp, hXXps, h**p) or not, and "" otherwise: the schemes
// whose lost colon is put back, in a pasted value and in free text.
func schemeWord[T string | []byte](w T) string {
	if len(w) < 4 || len(w) > 5 {
		return ""
	}
	var b [5]byte
	for i := 0; i < len(w); i++ {
		b[i] = lower(w[i])
	}
	switch s := string(b[:len(w)]); s {
	case "http", "https":
		return s
	}
	if s, ok := fangScheme(w); ok && (s == "http" || s == "https") {
		return s
	}
	return ""
}

// slashPieces classifies the parts of a word split at slashes. A part
// after a dotless name (Win32/Korplug.TC, HTML/Phishing.Agent.CC, the
// detection names of a report's file tables) is no domain unless its
// writer defanged it: .TC and .CC are country domains, and the name is a
// product's label. An address, a hash or a URL there is still one.
func (e *extractor) slashPieces(a, b int) {
	p := a
	for k := a; k <= b; k++ {
		if k == b || e.l[k] == '/' {
			if k > p {
				e.named = p > a && isName(e.l[a:p-1]) && !e.marked(p, k)
				e.word(p, k, k)
				e.named = false
			}
			p = k + 1
		}
	}
}

// isName reports whether the text before a slash is a word with a letter
// and no dot: Win32, Trojan:Win32, MSIL, JS.
func isName(w []byte) bool {
	if i := bytes.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:]
	}
	letter := false
	for _, c := range w {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '_' || c == '-' || c == ':':
		default:
			return false
		}
	}
	return letter
}

func onlyDots(s []byte) bool {
	for _, c := range s {
		if c != '.' {
			return false
		}
	}
	return true
}

func allDigits(s []byte) bool {
	for _, c := range s {
		if !isDigit(c) {
			return false
		}
	}
	return len(s) > 0
}

// hostOK accepts the host[:port] of a URL without a scheme.
func (e *extractor) hostOK(a, b int) bool {
	h := e.l[a:b]
	if c := indexByte(h, ':'); c >= 0 {
		if !validPort(h[c+1:]) {
			return false
		}
		b = a + c
		h = h[:c]
	}
	return isIPv4(h) || e.domainOK(a, b)
}

// domainOK is the extractor's stricter domain test: a delegated TLD that is
// not also a common file extension, unless the writer defanged the name.
func (e *extractor) domainOK(a, b int) bool {
	h := e.l[a:b]
	if !isDomain(h, false) {
		return false
	}
	if e.marked(a, b) {
		return true
	}
	tld := h[bytes.LastIndexByte(h, '.')+1:]
	return isKnownTLD(tld) && !isFileExt(tld)
}

func (e *extractor) marked(a, b int) bool {
	for _, m := range e.marks {
		if a <= m && m < b {
			return true
		}
	}
	return false
}

// atWord: local@domain is an email address (and nothing else: its domain is
// not reported on its own); otherwise the parts around '@' are words.
func (e *extractor) atWord(ws, end, at int) {
	l := e.l
	de := at + 1
	for de < end && (l[de] == '.' || l[de] >= utf8.RuneSelf || class[l[de]]&cLabel != 0) {
		de++
	}
	for de > at+1 && (l[de-1] == '.' || l[de-1] == '-') {
		de--
	}
	ls, refused := localPart(l, at, de)
	// A refused address (masked, mangled, or no local part) is neither
	// its domain nor the tail of its local part.
	if refused && de > at+1 {
		return
	}
	// domainOK checks the domain as isEmail would, and more.
	if ls < at && e.domainOK(at+1, de) {
		if ls > ws {
			e.word(ws, ls, ls)
		}
		e.emit(ls, de, Email)
		if de < end {
			e.word(de, end, end)
		}
		return
	}
	e.pieces(ws, end, '@')
}

// localPart finds the local part of an address whose '@' is l[at] and whose
// domain ends at l[de], and whether what is glued before the '@' makes the
// address a refused one. A local part is the dot-atom RFC 5322 allows
// unquoted: letters, digits and .!#$%&'*+/=?^_`{|}~- (isLocalByte), read
// back from the '@' whatever tokens the extractor cut it into (o'brien@,
// us!er@, a/b@). A byte in no local part ends it: white space, '"',
// brackets, ',', ';', ':' (mailto:, From:), '\' (DOMAIN\user), '@'. What
// text puts around an address is not in it: an opening quote or backtick,
// '{' or '|' ('user@x.com' in quotes, a Markdown table's cell), Markdown's
// emphasis (**user@x.com**), a key before a lone '=' (smtp.mailfrom=user@x.com;
// an SRS address, SRS0=h=t=d=user@x.com, is whole), and leading dots and dashes (an ellipsis, a rule: -----user@x.com). The
// address is refused when the run is glued to a non-ASCII byte (Grüße@),
// holds a '*' (masked: t****.h***@), has no letter or digit (-@, !@) or is
// no dot-atom (a..b@): neither it nor its domain is reported.
func localPart(l []byte, at, de int) (ls int, refused bool) {
	// Back over the run, noting its '=' on the way: one is a key's
	// (from=user@), several an SRS or BATV address's (SRS0=h=t=d=user@).
	p, eq, eqs := at, -1, 0
	for p > 0 {
		k := localRun[l[p-1]]
		if k == 0 {
			break
		}
		p--
		if k == 2 {
			eq = p
			eqs++
		}
	}
	refused = p > 0 && l[p-1] >= utf8.RuneSelf
	for p < at && (l[p] == '\'' || l[p] == '`' || l[p] == '{' || l[p] == '|') {
		p++
	}
	// Markdown's emphasis, **user@x.com** or _user@x.com_: the run of '*'
	// or '_' that opens it (one or two) is closed as long right after the
	// domain. A run nothing closes stays: ***son@x.com is masked.
	if c := l[p]; c == '*' || c == '_' {
		n := 0
		for p+n < at && l[p+n] == c {
			n++
		}
		if n <= 2 && de+n <= len(l) && bytes.Count(l[de:de+n], l[p:p+1]) == n && (de+n == len(l) || l[de+n] != c) {
			p += n
		}
	}
	if eqs == 1 && eq >= p {
		p = eq + 1
	}
	if p == at {
		// Only prose before the '@' ('@example.com' in quotes, key=@x):
		// no address, and nothing glued to its domain.
		return at, refused
	}
	for p < at && (l[p] == '.' || l[p] == '-') {
		p++
	}
	return p, refused || !dotAtom(l[p:at])
}

// localRun is 1 for the bytes of a local part (isLocalByte), 2 for '=',
// 0 for the others. '|', '/', '{', '}' and '`' are atext, but in text they
// part what they stand between: a table's cells (|17:36:10|admin@x.org|
// in an AsciiDoc or Markdown table), a path, a template, inline code.
// Read as a local part's, they made up addresses no one wrote
// (10|admin@x.org).
var localRun = func() (t [256]uint8) {
	for c := range 128 {
		if isLocalByte(byte(c)) {
			t[c] = 1
		}
	}
	for _, c := range "|/{}`" {
		t[c] = 0
	}
	t['='] = 2
	return t
}()

// dotAtom is validLocal for a run of local bytes (localRun), and more: a
// local part with a '*' is masked (t****@), one without a letter or digit
// (-@, !@) is none.
func dotAtom(w []byte) bool {
	if len(w) == 0 || len(w) > 64 || w[len(w)-1] == '.' {
		return false // w[0] is no dot: localPart skipped them
	}
	alnum := false
	for i, c := range w {
		switch {
		case c == '*':
			return false
		case c == '.':
			if w[i-1] == '.' {
				return false
			}
		case !alnum:
			alnum = isAlnum(c)
		}
	}
	return alnum
}

// gluedBefore reports whether the word at l[ws] (past the dots, '-' and '_'
// that trimming left before it) is glued to a letter or digit by a byte
// that is in no host name and is no separator of prose, code or logs:
// ! # $ & ' * ? ^ ~ (ya*hoo.com, x!evil.example.com, o'evil.example.com).
// The word is then a piece of a longer token, masked or mangled, and no
// indicator of its own. Those bytes after a value (evil.example.com's,
// **evil.example.com**) and at a word's start (#evil.example.com,
// *.example.com, a wildcard) leave it whole.
func gluedBefore(l []byte, ws int) bool {
	// Most words follow a space: one lookup, inlined, tells.
	return ws >= 2 && glueOrTrim[l[ws-1]] && gluedAt(l, ws)
}

// glueOrTrim marks the bytes gluedBefore looks past or at.
var glueOrTrim = [256]bool{'!': true, '#': true, '$': true, '&': true, '\'': true, '*': true, '?': true, '^': true, '~': true, '.': true, '-': true, '_': true}

// gluedAt is gluedBefore past its first question.
func gluedAt(l []byte, ws int) bool {
	k := ws
	for k > 0 && (l[k-1] == '.' || l[k-1] == '-' || l[k-1] == '_') {
		k--
	}
	if k < 2 {
		return false
	}
	c := l[k-1]
	return c != '.' && c != '-' && c != '_' && glueOrTrim[c] && isAlnum(l[k-2])
}

// colonWord: an IPv6 address, a host:port (reported as the host: without a
// scheme a port is mostly the far end of a connection in a log), or
// key:value pieces.
func (e *extractor) colonWord(ws, end int) {
	l := e.l
	w := l[ws:end]
	if plausibleIPv6(w) {
		e.emit(ws, end, IPv6)
		return
	}
	if c := bytes.LastIndexByte(w, ':'); c > 0 && validPort(w[c+1:]) && indexByte(w[:c], ':') < 0 {
		if isIPv4(w[:c]) {
			e.ipv4(ws, ws+c)
			return
		}
		if e.domainOK(ws, ws+c) {
			e.emit(ws, ws+c, Domain)
			return
		}
	}
	e.pieces(ws, end, ':')
}

// plausibleIPv6 is isIPv6 with a guard against words of prose and code that
// happen to parse (dead::beef, Cafe::Babe, ::): at least two groups and a
// digit somewhere.
func plausibleIPv6(w []byte) bool {
	groups, digit := 0, false
	for i := 0; i < len(w); i++ {
		if w[i] != ':' && (i == 0 || w[i-1] == ':') {
			groups++
		}
		if isDigit(w[i]) {
			digit = true
		}
	}
	return groups >= 2 && digit && isIPv6(w)
}

// dottedWord: an IPv4 address, a domain, or a file name whose parts may
// still hold a hash (44d88612fea8a8f36de82e1278abb02f.bin).
func (e *extractor) dottedWord(ws, end int) {
	e.dottedWordAt(ws, end, ws+bytes.LastIndexByte(e.l[ws:end], '.')+1)
}

// dottedWordAt is dottedWord for a caller that has found the word's last
// dot, l[tld-1].
func (e *extractor) dottedWordAt(ws, end, tld int) {
	l := e.l
	if isDigit(l[tld]) {
		if isIPv4(l[ws:end]) {
			if !gluedBefore(l, ws) {
				e.ipv4(ws, end)
			}
			return
		}
	} else if isKnownTLD(l[tld:end]) || e.marked(ws, end) || l[tld] >= utf8.RuneSelf {
		// A call in code (obj.name(), user.id()) is not a host name.
		called := end < len(l) && l[end] == '('
		if e.domainOK(ws, end) && (!called || e.marked(ws, end)) {
			// A label token's word (ya'hoo.com) is not asked by word.
			if !gluedBefore(l, ws) {
				e.emit(ws, end, Domain)
			}
			return
		}
	}
	if end-ws < e.minWord {
		return // too short to hold a bare word's value (a hash, a CVE ID)
	}
	p := ws
	for k := ws; k <= end; k++ {
		if k == end || l[k] == '.' {
			if k > p {
				e.bareWord(p, k)
			}
			p = k + 1
		}
	}
}

func (e *extractor) ipv4(a, b int) {
	if !e.versionBefore(a) {
		e.emit(a, b, IPv4)
	}
}

// versionBefore reports whether the word before l[i] says that what follows
// is a version number ("version 1.2.3.4", "ver. 10.0.0.1", "build: 6.1.7601.2").
func (e *extractor) versionBefore(i int) bool {
	l := e.l
	k := i - 1
	for k >= 0 && (l[k] == ' ' || l[k] == '\t' || l[k] == ':' || l[k] == '=' || l[k] == '.') {
		k--
	}
	end := k + 1
	for k >= 0 && class[l[k]]&cAlpha != 0 {
		k--
	}
	w := l[k+1 : end]
	// w is letters only: w[j]|0x20 is its lower case. Most words differ
	// from every version word in length or first letter, and are not
	// copied to be lower-cased.
next:
	for _, v := range versionWords {
		if len(v) != len(w) {
			continue
		}
		for j := range len(v) {
			if w[j]|0x20 != v[j] {
				continue next
			}
		}
		return true
	}
	return false
}

// bareWord looks in a word without / @ : or . for the types with a word
// rule (the type table): a whole word that is one value (a CVE ID), else
// runs of letters and digits of exactly a value's length (hex digests),
// so that a digest inside a longer hex or alphanumeric run is not one.
func (e *extractor) bareWord(a, b int) {
	l := e.l
	rows := e.words
	for _, r := range rows {
		if !r.word.inRuns && b-a >= r.word.minLen && r.word.match(l[a:b]) {
			e.emit(a, b, r.Type)
			return
		}
	}
	for i := a; i < b; {
		if !isAlnum(l[i]) {
			i++
			continue
		}
		j := i + 1
		for j < b && isAlnum(l[j]) {
			j++
		}
		for _, r := range rows {
			if r.word.inRuns && j-i == r.word.minLen && r.word.match(l[i:j]) {
				e.emit(i, j, r.Type)
				break
			}
		}
		i = j
	}
}

// shortSettled tells that nothing can come of w, a token of letters,
// digits, '.', '-' and '_' too short for a bare word's value, in a line
// without a mark (setup.exe, e.g., 2.1.0): only its last label could make
// it a value, a TLD or the digits that end an address of 7 bytes or more,
// and that label, read from the end, is neither. A word it does not
// settle goes to labelWord, which finds what is settled here again. It
// makes no call.
func shortSettled(w []byte) bool {
	cls := classTable // in a register, not loaded again for each byte
	_ = cls[0]        // one nil check, not one a byte
	b := len(w)
	for b > 0 && cls[w[b-1]]&(cDigit|cAlpha) == 0 {
		b--
	}
	w = w[:b] // ends with a letter or digit, or is empty
	k := len(w) - 1
	for k >= 0 && cls[w[k]]&(cDigit|cAlpha) != 0 {
		k--
	}
	if k < 0 || w[k] != '.' {
		return false
	}
	tld := w[k+1:] // not empty
	if isDigit(tld[0]) {
		return b < 7
	}
	// tldByTables' answers, without its call.
	switch len(tld) {
	case 1:
		return true
	case 2:
		i, ok := letterIndex(tld, 2)
		return ok && tldTables.Load() && !tld2[i]
	}
	return noTLDStarts(tld)
}

// alnumWord is bareWord for a word of ASCII letters and digits only: its
// one run of them is the word itself.
func (e *extractor) alnumWord(a, b int) {
	w := e.l[a:b]
	rows := e.words
	for _, r := range rows {
		if !r.word.inRuns && len(w) >= r.word.minLen && r.word.match(w) {
			e.emit(a, b, r.Type)
			return
		}
	}
	for _, r := range rows {
		if r.word.inRuns && len(w) == r.word.minLen && r.word.match(w) {
			e.emit(a, b, r.Type)
			return
		}
	}
}

// spacedCVE finds a CVE ID written with a space after "CVE" ("CVE
// 2014-1001", as advisories sometimes do) in the token l[s:t] that follows
// it, and reports whether it found one.
func (e *extractor) spacedCVE(s, t int) bool {
	l := e.l
	if s < 4 || l[s-1] != ' ' || lower(l[s-4]) != 'c' || lower(l[s-3]) != 'v' || lower(l[s-2]) != 'e' ||
		s > 4 && (isAlnum(l[s-5]) || l[s-5] == '-') {
		return false
	}
	j := s + 4
	if j >= t || l[j] != '-' || !allDigits(l[s:j]) {
		return false
	}
	k := j + 1
	for k < t && isDigit(l[k]) {
		k++
	}
	if k-j-1 < 4 || k < t && (isAlnum(l[k]) || l[k] == '-') {
		return false
	}
	var buf [64]byte
	v := append(append(buf[:0], "CVE-"...), l[s:k]...)
	if !isCVE(v) {
		return false
	}
	e.emitRaw(v, CVE)
	return true
}

// emit records l[a:b] as a candidate of type t. The types with a
// normalizeASCII are normalized in place in vals; the others, and values
// it refuses, take the general path, which allocates.
func (e *extractor) emit(a, b int, t Type) { e.emitRaw(e.l[a:b], t) }

// emitURL is emit for a URL that splitURL has taken as parts p: it is
// not split again to be normalized.
func (e *extractor) emitURL(a, b int, p urlParts) { e.emitSplit(e.l[a:b], URL, p, true) }

// emitRaw is emit for a value that is not a piece of the line as it is.
func (e *extractor) emitRaw(raw []byte, t Type) { e.emitSplit(raw, t, urlParts{}, false) }

// emitSplit is emitRaw, for a URL split as p when split is true.
func (e *extractor) emitSplit(raw []byte, t Type, p urlParts, split bool) {
	if e.want != 0 && e.want&typeBit(t) == 0 || e.named && t == Domain {
		return
	}
	start := len(e.vals)
	e.vals = append(e.vals, raw...)
	if t == URL && !split {
		p, split = splitURL(raw)
	}
	if t == URL && split {
		if n, ok := normalizeURLBytes(e.vals[start:], p); ok {
			e.vals = e.vals[:start+n]
			e.found = append(e.found, candidate{typ: t, end: len(e.vals)})
			return
		}
	}
	if r := row(t); r == nil || r.normalizeASCII == nil || !r.normalizeASCII(e.vals[start:]) {
		v := Normalize(string(raw), t)
		if t == URL && strings.Contains(v, "&amp;") {
			v = strings.ReplaceAll(v, "&amp;", "&") // copied out of HTML
		}
		e.vals = append(e.vals[:start], v...)
	}
	e.found = append(e.found, candidate{typ: t, end: len(e.vals)})
}

// upperCVE is a CVE ID's normalizeASCII.
func upperCVE(k []byte) bool {
	k[0], k[1], k[2] = 'C', 'V', 'E'
	return true
}

// lowerEmailDomain is an e-mail address's normalizeASCII: the domain
// lower-cased, the local part as it is.
func lowerEmailDomain(k []byte) bool {
	at := bytes.IndexByte(k, '@')
	return lowerASCII(k[at+1:]) && isASCII(k[:at])
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normalizeURLBytes is Normalize for a URL found in free text, which
// splitURL has taken as parts p, in place, with "&amp;" read as '&': it
// lower-cases an ASCII scheme and host and returns the new length. It
// reports false for what needs the general path (an IPv6 or non-ASCII
// host); k may then be partly rewritten.
func normalizeURLBytes(k []byte, p urlParts) (int, bool) {
	if p.hostEnd > p.host && k[p.host] == '[' {
		return 0, false
	}
	if p.scheme > 0 && !lowerASCII(k[:p.scheme]) || !lowerASCII(k[p.host:p.hostEnd]) {
		return 0, false
	}
	n := len(k)
	// Most URLs hold no '&' at all, which the byte search tells in fewer
	// instructions than the search for the entity.
	if i := bytes.IndexByte(k, '&'); i >= 0 {
		j := bytes.Index(k[i:], ampEntity)
		if j < 0 {
			return n, true
		}
		i += j
		// Copied out of HTML: every "&amp;" is '&'.
		w := i
		for i < len(k) {
			if bytes.HasPrefix(k[i:], ampEntity) {
				k[w] = '&'
				w++
				i += len(ampEntity)
				continue
			}
			k[w] = k[i]
			w++
			i++
		}
		n = w
	}
	return n, true
}

var ampEntity = []byte("&amp;")

// lowerASCII lower-cases b in place and reports true when it is all ASCII;
// otherwise it reports false, and b may be partly lower-cased.
func lowerASCII(b []byte) bool {
	// Eight bytes at a time while they are ASCII (digests, host names):
	// 0x20 added to each upper-case letter. A word with a non-ASCII byte
	// is left to the loop below, which stops at it.
	const ones = 0x0101010101010101
	const high = 0x80 * ones
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if x&high != 0 {
			break
		}
		// Bytes under 0x80 carry into no other: the top bit of each is
		// set after the additions when it is >= 'A', and > 'Z'.
		upper := (x + (0x80-'A')*ones) &^ (x + (0x80-'Z'-1)*ones) & high
		binary.LittleEndian.PutUint64(b[i:], x|upper>>2)
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c >= utf8.RuneSelf {
			return false
		}
		b[i] = lower(c)
	}
	return true
}

// closesDefang tells whether the hard separator c may start a defang that
// defangAfter looks at: most tokens end at a space, which it need not be
// called for.
func closesDefang(c byte) bool {
	return c == '\\' || c == '{' || c == '}' || c == '<'
}

// hasPunct tells whether b holds one of . : @ /.
func hasPunct(b []byte) bool {
	for _, c := range b {
		if class[c]&cPunct != 0 {
			return true
		}
	}
	return false
}
