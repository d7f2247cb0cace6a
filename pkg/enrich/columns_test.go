package enrich

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/ioc"
)

func TestDetectColumns(t *testing.T) {
	col := func(cells ...string) []string { return cells }
	tests := []struct {
		name  string
		cells []string
		want  ioc.Type // "" = not taken
	}{
		{"ipv4", col("203.0.113.5", "198.51.100.7", "192.0.2.1"), ioc.IPv4},
		{"ipv6", col("2001:db8::1", "2001:db8::2"), ioc.IPv6},
		{"domain", col("login-update.example.net", "nothing.example.org", "a.example.com"), ioc.Domain},
		{"url", col("http://a.example.com/x", "https://b.example.org/?q=1"), ioc.URL},
		{"md5", col("44d88612fea8a8f36de82e1278abb02f", "0000000000000000000000000000000a"), ioc.MD5},
		{"sha1", col("3395856ce81f2b7382dee72602f798b642f14140"), ioc.SHA1},
		{"sha256", col("275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f"), ioc.SHA256},
		{"cve", col("CVE-2021-44228", "CVE-2014-0160"), ioc.CVE},
		{"email", col("alice@example.com", "bob@example.org"), ioc.Email},
		{"defanged domains", col("evil[.]example[.]com", "bad[.]example[.]net"), ioc.Domain},
		{"empty cells do not count", col("203.0.113.5", "", "", "", ""), ioc.IPv4},
		{"most of one type", col("203.0.113.5", "198.51.100.7", "n/a"), ioc.IPv4},
		{"half is not most", col("203.0.113.5", "n/a"), ""},
		{"free text with indicators", col("blocked 203.0.113.5", "allowed 198.51.100.7 to example.com", "203.0.113.9"), ""},
		{"one free-text cell in three is free text", col("203.0.113.5", "198.51.100.7", "see ticket 42"), ""},
		{"user agents", col("Mozilla/5.0 (X11; Linux x86_64)", "curl/8.5.0"), ""},
		{"timestamps", col("2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z"), ""},
		{"numbers", col("443", "80", "8080"), ""},
		{"actions", col("allowed", "blocked", "allowed"), ""},
		{"file names", col("invoice.pdf", "update.zip"), ""},
		{"all empty", col("", ""), ""},
		{"hashes of several kinds", col("44d88612fea8a8f36de82e1278abb02f", "", "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f"), ioc.MD5},
		{"addresses of both kinds", col("203.0.113.5", "2001:db8::1", "n/a"), ioc.IPv4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows [][]string
			for _, c := range tt.cells {
				rows = append(rows, []string{"x", c})
			}
			cols := DetectColumns([]string{"id", "c"}, rows)
			switch {
			case tt.want == "" && len(cols) > 0:
				t.Errorf("took %+v, want none", cols)
			case tt.want != "" && (len(cols) != 1 || cols[0].Name != "c" || cols[0].Index != 1 || cols[0].Type != tt.want):
				t.Errorf("took %+v, want c as %s", cols, tt.want)
			}
		})
	}
}

// Detection reads the records of the export itself: a CSV's header names
// the columns, an NDJSON's fields in order of first appearance.
func TestOpenDetects(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
	}{
		{"csv", "time,src_ip,msg,dest\n1,203.0.113.5,hello world,a.example.com\n2,198.51.100.1,x y,b.example.org\n", "src_ip:1 dest:3"},
		{"tsv", "time\tsrc_ip\n1\t203.0.113.5\n", "src_ip:1"},
		{"ndjson", `{"t":1,"msg":"a b"}` + "\n" + `{"t":2,"hash":"44d88612fea8a8f36de82e1278abb02f","n":5}` + "\n", "hash:-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, layout, err := Open(strings.NewReader(tt.in), Auto, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range layout.Columns {
				got = append(got, c.Name+":"+itoa(c.Index))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("columns %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name, in string
		names    []string
		want     string
	}{
		{"empty", "", nil, "the input is empty"},
		{"blank", " \n\n", nil, "the input is empty"},
		{"no indicator column", "a,b\nx,y\n", nil, "no column of indicators found in the first 100 records; name them with --column NAME"},
		{"no indicator field", `{"a":"x y"}`, nil, "no field of indicators"},
		{"unknown column", "a,b\nx,y\n", []string{"c"}, `no column "c" in the header; the columns are: a, b`},
		{"unknown field", `{"a":"x","b":{"c":1}}`, []string{"c"}, `no field "c" in the first 100 records; the fields are: a, b`},
		{"unknown nested field", `{"a":"x","b":{"c":1}}`, []string{"b.d"}, `no field "b.d" in the first 100 records`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Open(strings.NewReader(tt.in), Auto, tt.names, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	return string(rune('0' + n))
}

// The notice names a column of mixed hashes or addresses by its family.
func TestDetectColumnsKind(t *testing.T) {
	for _, tt := range []struct {
		cells []string
		kind  string
	}{
		{[]string{"44d88612fea8a8f36de82e1278abb02f", "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f"}, "hashes"},
		{[]string{"203.0.113.5", "2001:db8::1"}, "addresses"},
		{[]string{"203.0.113.5", "198.51.100.7"}, "ipv4"},
		{[]string{"203.0.113.5", "2001:db8::1", "evil.example.com"}, "addresses"},
		{[]string{"203.0.113.5", "evil.example.com", "http://evil.example.com/x"}, "mixed"},
	} {
		var rows [][]string
		for _, c := range tt.cells {
			rows = append(rows, []string{c})
		}
		if cols := DetectColumns([]string{"c"}, rows); len(cols) != 1 || cols[0].Kind != tt.kind {
			t.Errorf("%q: %+v, want kind %s", tt.cells, cols, tt.kind)
		}
	}
}

// An analyst's column of indicators mixes types of several families, most
// often defanged: it is taken although no one type, nor one family, is
// most of it. Each type's cell is its example from ioc's table, defanged.
func TestDetectColumnsMixed(t *testing.T) {
	for _, types := range [][]ioc.Type{{ioc.URL, ioc.IPv4, ioc.Domain}, ioc.AllTypes} {
		var rows [][]string
		for _, typ := range types {
			info, _ := ioc.Info(typ)
			rows = append(rows, []string{"10.0.0.5", ioc.Defang(info.Example, typ)})
		}
		rows = append(rows, []string{"10.0.0.6", "n/a"}) // a stray non-indicator does not matter
		// One cell each: the tie goes to the first in ioc's order.
		first := ioc.AllTypes[slices.IndexFunc(ioc.AllTypes, func(t ioc.Type) bool { return slices.Contains(types, t) })]
		cols := DetectColumns([]string{"src", "indicator"}, rows)
		if len(cols) != 2 || cols[1].Name != "indicator" || cols[1].Kind != "mixed" || cols[1].Type != first {
			t.Errorf("%v: took %+v, want src and indicator (mixed, %s first)", types, cols, first)
		}
	}
}

// A column of private addresses is a column of indicators: its cells come
// back "skipped", and a public address past the sample is looked up.
// Leaving it out on the sample's word dropped that address unsaid.
func TestDetectColumnsPrivate(t *testing.T) {
	var rows [][]string
	for _, ip := range []string{"10.0.0.5", "192.168.1.1", "10.0.0.7"} {
		rows = append(rows, []string{ip})
	}
	if cols := DetectColumns([]string{"src"}, rows); len(cols) != 1 || cols[0].Name != "src" {
		t.Errorf("took %+v, want src", cols)
	}
}

// An Elastic (ECS) export nests its fields: detection looks into nested
// objects and names a field as --column names it, so that reading the
// name back (Lookup) gives the value detected. An array is one cell, as
// --column reads it: several addresses are no indicator, one is.
func TestOpenDetectsNested(t *testing.T) {
	info := func(typ ioc.Type) string { i, _ := ioc.Info(typ); return i.Example }
	tests := []struct {
		name, in string
		want     []string
	}{
		{"ecs", `{"@timestamp":"2024-05-01T10:00:00Z","destination":{"ip":"` + info(ioc.IPv4) + `","port":443},"url":{"full":"` + ioc.Defang(info(ioc.URL), ioc.URL) + `"},"event":{"original":"a b"}}`,
			[]string{"destination.ip", "url.full"}},
		{"deeper", `{"threat":{"indicator":{"file":{"hash":{"sha256":"` + info(ioc.SHA256) + `"}}}}}`,
			[]string{"threat.indicator.file.hash.sha256"}},
		{"several in an array", `{"related":{"ip":["` + info(ioc.IPv4) + `","` + info(ioc.IPv6) + `"]}}`, nil},
		{"one in an array", `{"related":{"hosts":["` + info(ioc.Domain) + `"]}}`, []string{"related.hosts"}},
		{"a dotted key beside a nested one", `{"a.b":"` + info(ioc.IPv4) + `","a":{"b":"x y"}}`, []string{"a.b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, layout, err := Open(strings.NewReader(tt.in+"\n"), Auto, nil, nil)
			if len(tt.want) == 0 {
				if err == nil {
					t.Errorf("took %+v, want none", layout.Columns)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			fields, _ := Fields([]byte(tt.in))
			for _, c := range layout.Columns {
				got = append(got, c.Name)
				v, ok := Lookup(fields, c.Name)
				if _, typ, err := ioc.Prepare(Text(v), true); !ok || err != nil || typ != c.Type {
					t.Errorf("--column %s reads %s (%v), not the %s detected", c.Name, v, err, c.Type)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("columns %q, want %q", got, tt.want)
			}
		})
	}
}

// A hostile record costs a bounded walk: nesting is read maxDepth levels
// deep (deeper needs --column), and at most maxLeaves fields of a record
// are counted.
func TestOpenDetectsBounded(t *testing.T) {
	ip := func() string { i, _ := ioc.Info(ioc.IPv4); return i.Example }()
	nest := func(levels int) string {
		return strings.Repeat(`{"a":`, levels-1) + `{"ip":"` + ip + `"}` + strings.Repeat("}", levels-1)
	}
	if _, layout, err := Open(strings.NewReader(nest(maxDepth)+"\n"), Auto, nil, nil); err != nil || len(layout.Columns) != 1 || strings.Count(layout.Columns[0].Name, ".") != maxDepth-1 {
		t.Errorf("%d levels: %v, %v; want the field found", maxDepth, layout, err)
	}
	if _, _, err := Open(strings.NewReader(nest(maxDepth+1)+"\n"), Auto, nil, nil); err == nil {
		t.Errorf("%d levels: a field found beyond maxDepth", maxDepth+1)
	}
	if _, _, err := Open(strings.NewReader(nest(10_000)+"\n"), Auto, nil, nil); err == nil {
		t.Errorf("10,000 levels: a field found")
	}
	// maxLeaves members that are no indicator, then one that is: not read.
	var b strings.Builder
	b.WriteString("{")
	for i := range maxLeaves {
		fmt.Fprintf(&b, `"k%d":{"v":%d},`, i, i)
	}
	b.WriteString(`"ip":"` + ip + `"}` + "\n")
	if _, _, err := Open(strings.NewReader(b.String()), Auto, nil, nil); err == nil {
		t.Errorf("a field after %d others found", maxLeaves)
	}
	// The bound is each record's: the next record is read in full.
	next := `{"ip":"` + ip + `"}` + "\n"
	if _, layout, err := Open(strings.NewReader(b.String()+next), Auto, nil, nil); err != nil || len(layout.Columns) != 1 || layout.Columns[0].Name != "ip" {
		t.Errorf("the record after a wide one: %v; want ip found", err)
	}
}

// What enrich adds (tl_C_status … tl_C_url, the "tilookup" field and its
// members) is never detected as a column of the export's: tl_C_url holds
// the service's own links.
func TestDetectColumnsLeavesOutAdded(t *testing.T) {
	info, _ := ioc.Info(ioc.URL)
	var names []string
	for _, suffix := range addedSuffixes {
		names = append(names, addedPrefix+"src_"+suffix)
	}
	names = append(names, addedField+".src.detail_url", "tl_url")
	row := make([]string, len(names))
	for i := range row {
		row[i] = info.Example
	}
	cols := DetectColumns(names, [][]string{row, row})
	if len(cols) != 1 || cols[0].Name != "tl_url" {
		t.Errorf("took %+v, want tl_url alone (a column of the export's that only looks like enrich's)", cols)
	}
}
