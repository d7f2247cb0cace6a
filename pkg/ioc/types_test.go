package ioc

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestTypeTable: one row per type of AllTypes, in its order, each mapped
// everywhere: a type added without its row, or a row left incomplete, fails
// here rather than falling silently out of a STIX bundle or MISP event.
func TestTypeTable(t *testing.T) {
	if len(Types()) != len(AllTypes) {
		t.Fatalf("%d rows for %d types", len(Types()), len(AllTypes))
	}
	for i, r := range Types() {
		if r.Type != AllTypes[i] {
			t.Errorf("row %d is %s, want %s (the order of AllTypes)", i, r.Type, AllTypes[i])
		}
		if r.Strategy == "" || r.STIX.Type == "" || r.MISP.Type == "" || r.MISP.Category == "" || len(r.MISP.Matches) == 0 {
			t.Errorf("%s: incomplete row %+v", r.Type, r)
		}
		if got, ok := Info(r.Type); !ok || got.Type != r.Type {
			t.Errorf("Info(%s) = %+v, %v", r.Type, got, ok)
		}
		if !slices.Contains(FromMISP(r.MISP.Type), r.Type) {
			t.Errorf("%s: FromMISP(%s) = %v, misses the type's own attribute", r.Type, r.MISP.Type, FromMISP(r.MISP.Type))
		}
	}
	if _, ok := Info(Unknown); ok || Strategy(Unknown) != "none" {
		t.Errorf("Unknown has a row or a strategy")
	}
}

// TestTypeMappings pins the mappings that other tools read: STIX 2.1
// object types and hash keys, MISP attribute types.
func TestTypeMappings(t *testing.T) {
	for _, tc := range []struct {
		typ              Type
		stix, algo, misp string
		sco              bool
	}{
		{MD5, "file", "MD5", "md5", true},
		{SHA1, "file", "SHA-1", "sha1", true},
		{SHA256, "file", "SHA-256", "sha256", true},
		{SHA512, "file", "SHA-512", "sha512", true},
		{IPv4, "ipv4-addr", "", "ip-dst", true},
		{IPv6, "ipv6-addr", "", "ip-dst", true},
		{Domain, "domain-name", "", "domain", true},
		{URL, "url", "", "url", true},
		{CVE, "vulnerability", "", "vulnerability", false},
		{Email, "email-addr", "", "email-src", true},
	} {
		r, _ := Info(tc.typ)
		if r.STIX.Type != tc.stix || r.STIX.HashAlgo != tc.algo || r.STIX.SCO != tc.sco || r.MISP.Type != tc.misp {
			t.Errorf("%s: %+v", tc.typ, r)
		}
	}
	if got := FromMISP("ip-src"); !slices.Equal(got, []Type{IPv4, IPv6}) {
		t.Errorf("FromMISP(ip-src) = %v", got)
	}
	if got := FromMISP("ip-dst|port"); got != nil {
		t.Errorf("FromMISP of a composite type = %v: the caller splits it", got)
	}
}

// TestMISPDefaults: each row's attribute type exists in MISP, its
// category and to_ids are MISP's own defaults, and the category allows the
// type (MISP's describeTypes, testdata/misp).
func TestMISPDefaults(t *testing.T) {
	b, err := os.ReadFile("testdata/misp/describeTypes.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Result struct {
			SaneDefaults map[string]struct {
				Category string `json:"default_category"`
				ToIDs    int    `json:"to_ids"`
			} `json:"sane_defaults"`
			Mappings map[string][]string `json:"category_type_mappings"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for _, r := range Types() {
		def, ok := d.Result.SaneDefaults[r.MISP.Type]
		if !ok || def.Category != r.MISP.Category || (def.ToIDs == 1) != r.MISP.ToIDs {
			t.Errorf("%s: %s %q to_ids %v; MISP says %+v (known: %v)", r.Type, r.MISP.Type, r.MISP.Category, r.MISP.ToIDs, def, ok)
		}
		if !slices.Contains(d.Result.Mappings[r.MISP.Category], r.MISP.Type) {
			t.Errorf("%s: MISP's category %q does not allow %s", r.Type, r.MISP.Category, r.MISP.Type)
		}
	}
}

// TestTypeRowsExamples derives its fixtures from the table: each row's
// example is detected as its type, is canonical, survives defanging, and
// is extracted from prose, plain and defanged, as its type.
func TestTypeRowsExamples(t *testing.T) {
	for _, r := range Types() {
		ex := r.Example
		if got := Detect(ex); got != r.Type {
			t.Errorf("%s: Detect(%q) = %s", r.Type, ex, got)
		}
		if got := Normalize(ex, r.Type); got != ex {
			t.Errorf("%s: Normalize(%q) = %q: the example is not canonical", r.Type, ex, got)
		}
		if v, typ, err := Prepare(Defang(ex, r.Type), true); err != nil || v != ex || typ != r.Type {
			t.Errorf("%s: Prepare(Defang(%q)) = %q, %s, %v", r.Type, ex, v, typ, err)
		}
		// Every value a chat or ticket system could link (all but hashes
		// and CVE IDs) must come out defanged, and Refang must undo it.
		if d := Defang(ex, r.Type); r.Family != "hash" && r.Family != "cve" && (d == ex || Refang(d) != ex) {
			t.Errorf("%s: Defang(%q) = %q, Refang of it %q", r.Type, ex, d, Refang(d))
		}
		for _, text := range []string{"seen: " + ex + " today", "seen: " + Defang(ex, r.Type) + " today"} {
			var got []Indicator
			if err := ExtractReader(strings.NewReader(text), nil, func(in Indicator) error { got = append(got, in); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Value != ex || got[0].Type != r.Type {
				t.Errorf("%s: extract %q = %+v", r.Type, text, got)
			}
			only := typesExcept(r.Type)
			if err := ExtractReader(strings.NewReader(text), only, func(in Indicator) error {
				t.Errorf("%s: extract %q with --types %v reported %+v", r.Type, text, only, in)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func typesExcept(x Type) []Type {
	var out []Type
	for _, r := range Types() {
		if r.Type != x {
			out = append(out, r.Type)
		}
	}
	return out
}

// TestAnchors: every row's example holds one of its anchors, and every
// anchor is a byte nextAnchor's word-at-a-time filter lets through.
func TestAnchors(t *testing.T) {
	for _, r := range Types() {
		if r.anchors == "" || !strings.ContainsAny(r.Example, r.anchors) {
			t.Errorf("%s: example %q holds none of its anchors %q", r.Type, r.Example, r.anchors)
		}
		for i := 0; i < len(r.anchors); i++ {
			c := r.anchors[i]
			line := []byte("abcdefghijklmnop")
			line[9] = c
			if got := nextAnchor(line, 0); got != 9 {
				t.Errorf("%s: anchor %q is not found by nextAnchor (at %d)", r.Type, c, got)
			}
		}
	}
}

// TestDetectRanks: the detection order is a total order of the table.
func TestDetectRanks(t *testing.T) {
	seen := map[int]Type{}
	for _, r := range Types() {
		if u, dup := seen[r.detectRank]; dup {
			t.Errorf("%s and %s share detect rank %d", r.Type, u, r.detectRank)
		}
		seen[r.detectRank] = r.Type
		if r.is == nil || r.normalize == nil || r.Pivot.DOT == "" || r.Pivot.MermaidOpen == "" || r.Family == "" {
			t.Errorf("%s: incomplete row", r.Type)
		}
	}
}

// Detect's shortcuts (one length switch for the digest rows, a row's
// claims) give what trying every row in rank order gives.
func TestDetectShortcuts(t *testing.T) {
	byRank := func(s string) Type {
		for _, r := range byDetectRank() {
			if r.is(s) {
				return r.Type
			}
		}
		return Unknown
	}
	values := append([]string{}, fuzzSeeds...)
	for _, r := range Types() {
		values = append(values, r.Example, strings.ToUpper(r.Example), r.Example+"/x", "http://"+r.Example, r.Example+"://")
		for _, c := range r.needs {
			if !strings.ContainsRune(r.Example, c) {
				t.Errorf("%s needs %q, which its example %q lacks", r.Type, c, r.Example)
			}
		}
		if r.digest != (hashType(r.Example) == r.Type) {
			t.Errorf("%s: digest is %v, but hashType(%q) = %s", r.Type, r.digest, r.Example, hashType(r.Example))
		}
	}
	needed := map[rune]bool{}
	for _, r := range Types() {
		for _, c := range r.needs {
			needed[c] = true
		}
	}
	if len(needed) > 8 {
		t.Errorf("%d distinct needed bytes do not fit detection's 8 bits", len(needed))
	}
	for _, s := range values {
		if s != "" && Detect(s) != byRank(s) {
			t.Errorf("Detect(%q) = %s, every row in rank order says %s", s, Detect(s), byRank(s))
		}
	}
}

// isLocalByte's bit masks hold exactly RFC 5322's atext and the dot.
func TestIsLocalByte(t *testing.T) {
	for c := range 256 {
		want := isAlnum(byte(c)) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", byte(c)) >= 0
		if got := isLocalByte(byte(c)); got != want {
			t.Errorf("isLocalByte(%q) = %v, want %v", byte(c), got, want)
		}
	}
}
