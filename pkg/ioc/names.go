package ioc

import (
	"strings"
	"sync"
)

// The name tables are built on first use, not at start-up: every run of the
// binary pays for package initialisation, and most commands never look at a
// TLD (shell completion runs the binary on every TAB).
var (
	tlds      = sync.OnceValue(buildTLDs)
	fileExts  = sync.OnceValue(buildFileExts)
	tldPrefix [26 * 26]bool // filled by buildTLDs
)

// tlds is the root zone (tlds.go). Free text is full of dotted words that
// are no host names (e.g., i.e., obj.method), so the extractor only reports
// domains under a delegated TLD; Detect, which is given a value the analyst
// means as an indicator, only checks the syntax.
func buildTLDs() map[string]struct{} {
	m := make(map[string]struct{}, 1600)
	for _, t := range strings.Fields(tldList) {
		m[t] = struct{}{}
		if t[0] >= 'a' && t[0] <= 'z' && t[1] >= 'a' && t[1] <= 'z' {
			tldPrefix[int(t[0]-'a')*26+int(t[1]-'a')] = true
		}
	}
	// Special-use names (RFC 6761, RFC 7686) that show up in reports: Tor
	// services, documentation examples, internal Active Directory domains.
	for _, t := range []string{"onion", "example", "test", "invalid", "local", "internal"} {
		m[t] = struct{}{}
		tldPrefix[int(t[0]-'a')*26+int(t[1]-'a')] = true
	}
	return m
}

// tldPrefix has the first two letters of every ASCII TLD: most dotted
// words in prose (file.pdf, obj.method) are dismissed without hashing.

func isKnownTLD[T string | []byte](t T) bool {
	if len(t) < 2 || len(t) > 63 {
		return false
	}
	if len(t) >= 5 && lower(t[0]) == 'x' && lower(t[1]) == 'n' && t[2] == '-' && t[3] == '-' {
		return true // an A-label we cannot decode without x/net/idna
	}
	known := tlds()
	if a, b := lower(t[0]), lower(t[1]); a >= 'a' && a <= 'z' && b >= 'a' && b <= 'z' && !tldPrefix[int(a-'a')*26+int(b-'a')] {
		return false
	}
	var buf [63]byte
	for i := 0; i < len(t); i++ {
		if t[i] >= 0x80 {
			_, ok := known[strings.ToLower(string(t))]
			return ok
		}
		buf[i] = lower(t[i])
	}
	_, ok := known[string(buf[:len(t)])]
	return ok
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
	}
	return m
}

func isFileExt[T string | []byte](e T) bool {
	if len(e) > 8 {
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
