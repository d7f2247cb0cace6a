package ioc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	"", "hxxps://evil[.]example[.]com/x", "198.51.100[.]7", "user[@]example.com",
	"user [at] example [dot] com", "example . com", "http:\\\\a.example.com\\b", "[[.]]",
	"44D88612FEA8A8F36DE82E1278ABB02F", "cve-2021-44228", "[2001:db8::1]:443",
	"fe80::1%eth0", "::ffff:192.0.2.1", "http://[2001:db8::1]:8080/", "bücher.example.",
	"example。com", "a[:]", "h**p[:]//x(.)io", "version 1.2.3.4", "10.0.0.0/8",
	// issue 24's rules
	"foo[-]bar.com", "xxxxs://a.example/", "[http]://a.example/x", `https:\/\/a.example\/x`,
	`evil\[.\]example\[.\]com`, "1<.>1<.>1<.>1", "foo].[com", "2001:db8:bad:c0de[:]:66",
	"cve 2014-1001", "_jabber._tcp.example.com", "%2Fhost.com", "host.com%2F", "tcp://a.a/test.com",
	"http://192,168,0,1", "--~Chttp://host/", "203.0.113.0/24.", "2001:db8::/32", "10.0.0.0/33",
	// issue 28: invisible characters inside words, NUL, UTF-16 bytes read as text
	"ev\u200bil1.example", "ma\u00adlware.example.com", "198.51\u2060.100.7", "a\u200b\u00ad\u2060",
	"\u00ad\u200b", "ev\x00il.example", "\xff\xfee\x00v\x00i\x00l\x00.\x00c\x00o\x00m\x00",
	// issue 38: line ends, NUL and a terminal's ESC sequences
	"evil.example\r\nb.example\rc.example", "\x1b[1;31mevil.example\x1b[0m 198.51\x1b[m.100.7",
	"\x1b]8;;https://a.example/x\x1b\\link\x1b]8;;\x07", "\x1b(Bev\x00il.example\x1b", "\x1b[", "\x1b]0;unterminated",
	// issue 39: a URL with and without its scheme
	"pastebin.com/raw/w6BVFFWQ https://pastebin.com/raw/w6BVFFWQ", "https://a.example/x a.example/x hxxp://a.example/x",
	// IPv6 is defanged: the round trip through "[:]"
	"2001:db8:bad:c0de::66", "::ffff:198.51.100.7", "fe80::1", "2001:db8::", "::1",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
}

// addDocuments seeds with the extraction documents too; only FuzzExtract
// wants them: minimising a large input costs the others their minute.
func addDocuments(f *testing.F) {
	addSeeds(f)
	docs, _ := filepath.Glob("testdata/extract/*.txt")
	for _, d := range docs {
		if b, err := os.ReadFile(d); err == nil {
			f.Add(string(b))
		}
	}
}

func FuzzRefang(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		r := Refang(s)
		if rr := Refang(r); rr != r {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, r, rr)
		}
		if len(r) > len(s) {
			t.Fatalf("Refang(%q) = %q grew", s, r)
		}
	})
}

// FuzzRefangLine holds the extractor's refangLine, whose second round
// starts where the first one's rewrites make it worth reading again
// (sameBefore), to refangEveryRound.
func FuzzRefangLine(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{
		"see (the) report [[.]] and then some words here a[[.]]b.example",
		"words words words words words words x.y [ . ] ex[.]ample [.]. com",
		"some long prose before it all: evil-example-name-with-labels(.)com[.]",
		"text text text text text text text text text text a . b [.]com . org",
		"(/(/))", "a-long-label-before-it(/(/))",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var marks []int
		var scratch [2][]byte
		if got, want := string(refangLine([]byte(s), &marks, &scratch)), refangEveryRound(s); got != want {
			t.Fatalf("refangLine(%q) = %q, not %q", s, got, want)
		}
	})
}

// refangEveryRound is Refang without its first look (refangLine is only
// asked about a line with a defang in it): both passes over the whole
// text in every round.
func refangEveryRound(s string) string {
	for range maxRefangRounds {
		a, changedA := separatorPass(s, 0, nil, nil)
		if changedA {
			s = string(a)
		}
		b, changedB := schemePass(s, nil, nil)
		if changedB {
			s = string(b)
		}
		if !changedA && !changedB {
			break
		}
	}
	return s
}

func FuzzDetect(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		typ := Detect(s)
		n := Normalize(s, typ)
		if got := Detect(n); got != typ {
			t.Fatalf("Detect(%q) = %s but Detect(Normalize) = %s (%q)", s, typ, got, n)
		}
		if nn := Normalize(n, typ); nn != n {
			t.Fatalf("Normalize not idempotent: %q -> %q -> %q", s, n, nn)
		}
		// A value that itself looks defanged (a URL whose scheme is "hxxp")
		// cannot survive the round trip; every other one must.
		if typ != Unknown && Refang(n) == n && Refang(Defang(n, typ)) != n {
			t.Fatalf("Refang(Defang(%q)) = %q", n, Refang(Defang(n, typ)))
		}
	})
}

func FuzzPrepare(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, refang := range []bool{false, true} {
			v, typ, err := Prepare(s, refang)
			if err != nil {
				continue
			}
			if v == "" || len(v) > MaxLen || !utf8.ValidString(v) {
				t.Fatalf("Prepare(%q) = %q", s, v)
			}
			for _, r := range v {
				// A tab is white space to Validate, as a space is (a value
				// pasted from a spreadsheet may hold one): kept, like a space.
				if unicode.IsControl(r) && r != '\t' {
					t.Fatalf("Prepare(%q) = %q holds control character %U", s, v, r)
				}
			}
			if Detect(v) != typ && !(typ == Unknown && Detect(v) == Domain && isFileName(v)) {
				t.Fatalf("Prepare(%q) = %q, %s but Detect says %s", s, v, typ, Detect(v))
			}
		}
	})
}

func FuzzExtract(f *testing.F) {
	addDocuments(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkExtracted(t, extractAll([]byte(s)))
	})
}

// A line end after the last line changes nothing, unless that line is
// long enough to be cut: the command line reads each input with a "\n"
// after it, and ExtractText, which reads a file mapped into memory,
// cannot add one.
func FuzzFinalLineEnd(f *testing.F) {
	addDocuments(f)
	f.Fuzz(func(t *testing.T, s string) {
		want := extractWith(t, strings.NewReader(s), ExtractOptions{}, 1, blockSize)
		got := extractWith(t, strings.NewReader(s+"\n"), ExtractOptions{}, 1, blockSize)
		if !slices.Equal(got, want) {
			t.Fatalf("%q and the same with a final line end: %v, then %v", s, want, got)
		}
	})
}
