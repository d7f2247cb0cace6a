package ioc

import (
	"strings"
	"sync"
	"sync/atomic"
)

// The name tables are built on first use, not at start-up: every run of the
// binary pays for package initialisation, and most commands never look at a
// TLD (shell completion runs the binary on every TAB).
var (
	fileExts = sync.OnceValue(buildFileExts)
	// Filled by buildTLDTables from tldList: tld2 has the two-letter TLDs;
	// tldAt3 has, for the first three letters of the longer ones, where
	// in tldList the run of TLDs that start with them begins (plus one; 0
	// for none), so that most dotted words in prose (file.pdf, setup.exe,
	// obj.method) are dismissed with one lookup, and the others compared
	// with the few TLDs of their run. No map: building one took more
	// instructions than extracting a megabyte.
	tld2      [26 * 26]bool
	tldAt3    [26 * 26 * 26]uint16
	tldOnce   sync.Once
	tldTables atomic.Bool // set once tld2 and tldAt3 are filled
)

// tldList's offsets fit in tldAt3.
const _ = uint16(len(tldList))

// specialTLDs are special-use names (RFC 6761, RFC 7686) that show up in
// reports: Tor services, documentation examples, internal Active
// Directory domains. They are known TLDs too.
var specialTLDs = [...]string{"onion", "example", "test", "invalid", "local", "internal"}

// tldList is the root zone (tlds.go). Free text is full of dotted words
// that are no host names (e.g., i.e., obj.method), so the extractor only
// reports domains under a delegated TLD; Detect, which is given a value the
// analyst means as an indicator, only checks the syntax. tldList is sorted,
// so the TLDs that start with the same three letters are together.
func buildTLDTables() {
	for i := 0; i < len(tldList); {
		j := i + strings.IndexByte(tldList[i:], '\n')
		t := tldList[i:j]
		if k, ok := letterIndex(t, 2); ok && len(t) == 2 {
			tld2[k] = true
		}
		if k, ok := letterIndex(t, 3); ok && tldAt3[k] == 0 {
			tldAt3[k] = uint16(i + 1)
		}
		i = j + 1
	}
	for _, t := range specialTLDs {
		if k, ok := letterIndex(t, 3); ok && tldAt3[k] == 0 {
			// No run in tldList: the offset of its first '\n', where the
			// comparison with a run stops at once.
			tldAt3[k] = 1
		}
	}
	tldTables.Store(true)
}

// letterIndex numbers the first n bytes of t (n <= 3), lower-cased, when
// they are ASCII letters: the index in tld2 (n = 2) or tldAt3 (n = 3).
func letterIndex[T string | []byte](t T, n int) (int, bool) {
	if len(t) < n {
		return 0, false
	}
	k := 0
	for i := range n {
		// c|0x20 is a lower-case letter just when c is a letter: one
		// unsigned comparison, not lower's and two more.
		d := (t[i] | 0x20) - 'a'
		if d >= 26 {
			return 0, false
		}
		k = k*26 + int(d)
	}
	return k, true
}

func isKnownTLD[T string | []byte](t T) bool {
	if known, sure := tldByTables(t); sure {
		return known
	}
	var buf [63]byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c >= 0x80 {
			return knownUnicodeTLD(strings.ToLower(string(t)))
		}
		if (c|0x20)-'a' >= 26 {
			return false // every ASCII TLD is letters only
		}
		buf[i] = c | 0x20
	}
	return knownASCIITLD(buf[:len(t)])
}

// knownASCIITLD looks for w, three lower-case ASCII letters or more whose
// first three tldAt3 has, in its run of tldList, then among specialTLDs.
func knownASCIITLD(w []byte) bool {
	v := tldAt3[(int(w[0]-'a')*26+int(w[1]-'a'))*26+int(w[2]-'a')]
	for i := int(v) - 1; i < len(tldList); {
		line := tldList[i:] // ends with '\n', which no letter of w is
		if line[0] != w[0] || line[1] != w[1] || line[2] != w[2] {
			break // past the run
		}
		n := 3
		for n < len(w) && line[n] == w[n] {
			n++
		}
		if n == len(w) && line[n] == '\n' {
			return true
		}
		if n == len(w) || line[n] > w[n] {
			break // sorted: every TLD from here on is after w
		}
		for line[n] != '\n' {
			n++
		}
		i += n + 1
	}
	for _, s := range specialTLDs {
		if string(w) == s {
			return true
		}
	}
	return false
}

// knownUnicodeTLD looks for a lower-cased name that is not all ASCII among
// the lines of tldList (the IDN TLDs are there in Unicode).
func knownUnicodeTLD(w string) bool {
	if strings.IndexByte(w, '\n') >= 0 {
		return false
	}
	for _, s := range specialTLDs {
		if w == s {
			return true // lower-casing may make a name ASCII (U+0130 is i)
		}
	}
	return strings.Contains(tldList, "\n"+w+"\n")
}

// tldByTables is isKnownTLD for the names it answers without a search: a
// length out of range, an A-label, two letters, and three letters or more
// that no TLD starts with. sure is false for the others.
func tldByTables[T string | []byte](t T) (known, sure bool) {
	if len(t) < 2 || len(t) > 63 {
		return false, true
	}
	if len(t) >= 5 && lower(t[0]) == 'x' && lower(t[1]) == 'n' && t[2] == '-' && t[3] == '-' {
		return true, true // an A-label we cannot decode without x/net/idna
	}
	if !tldTables.Load() {
		tldOnce.Do(buildTLDTables)
	}
	if len(t) == 2 {
		if k, ok := letterIndex(t, 2); ok {
			return tld2[k], true
		}
	} else if a, b, c := (t[0]|0x20)-'a', (t[1]|0x20)-'a', (t[2]|0x20)-'a'; a < 26 && b < 26 && c < 26 &&
		tldAt3[(int(a)*26+int(b))*26+int(c)] == 0 {
		// letterIndex(t, 3) written out: most dotted words in prose end
		// here (pdf, exe), and a loop of three costs them more than the rest.
		return false, true
	}
	return false, false
}

// noTLDStarts is tldByTables' most common answer, small enough to be
// inlined where a dotted word of prose is dismissed (pdf, exe): w starts
// with three letters that no TLD starts with. It is false until the
// tables are built.
func noTLDStarts(w []byte) bool {
	if len(w) < 3 || !tldTables.Load() {
		return false
	}
	a, b, c := (w[0]|0x20)-'a', (w[1]|0x20)-'a', (w[2]|0x20)-'a'
	return a < 26 && b < 26 && c < 26 && tldAt3[(int(a)*26+int(b))*26+int(c)] == 0
}

// fileExts are extensions that make a dotted word a file name rather than a
// host name in free text, even where they are TLDs too (.zip, .mov, .py,
// .sh, .md, .rs, .so, .ps, .one): invoice.pdf, setup.exe,
// update.zip. A defanged name (update[.]zip) or one inside a URL is a host
// all the same.
func buildFileExts() map[string]struct{} {
	m := make(map[string]struct{}, 128)
	for _, e := range strings.Fields(`
		exe dll sys scr bat cmd ps1 psm1 psd1 vbs vbe js jse mjs wsf wsh hta lnk
		msi msp msu jar class py pyc sh bash zsh rb php phtml asp aspx jsp cgi
		doc docx docm dot dotm xls xlsx xlsm xlsb xlam ppt pptx pptm rtf pdf odt ods
		txt csv tsv log ini cfg conf json xml yml yaml toml html htm xhtml mht css
		zip rar 7z gz tgz tar bz2 xz zst lz lzh cab iso img vhd vhdx dmg apk ipa
		elf bin dat tmp bak old dmp png jpg jpeg gif bmp svg ico tif tiff webp
		mp3 mp4 mov avi mkv wav webm one onepkg chm inf reg cpl ocx drv so dylib ko
		md go c h cpp hpp cs java kt rs swift ts tsx jsx vue lua ps eml msg
		evtx pcap pcapng db sqlite lock pem crt cer der key pfx p12 war ear
		`) {
		m[e] = struct{}{}
		if k, ok := letterIndex(e, 2); ok {
			fileExtAt2[k] = true
		}
	}
	fileExtTable.Store(true)
	return m
}

// fileExtAt2 has the first two letters of the file extensions, filled by
// buildFileExts (then fileExtTable is set): most names isFileExt is asked
// about are TLDs (com, net, org), which it dismisses without the map.
var (
	fileExtAt2   [26 * 26]bool
	fileExtTable atomic.Bool
)

func isFileExt[T string | []byte](e T) bool {
	if len(e) > 8 {
		return false
	}
	if k, ok := letterIndex(e, 2); ok && fileExtTable.Load() && !fileExtAt2[k] {
		return false
	}
	var buf [8]byte
	for i := 0; i < len(e); i++ {
		buf[i] = lower(e[i])
	}
	_, ok := fileExts()[string(buf[:len(e)])]
	return ok
}

// versionWords are the words after which a dotted quad is a version number,
// not an address: "version 1.2.3.4", "v 10.0.17763.1", "build 6.1.7601.2".
var versionWords = []string{"version", "ver", "v", "build", "release", "firmware", "rev", "revision"}
