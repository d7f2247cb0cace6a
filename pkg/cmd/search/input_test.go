package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/lookup"
)

// read returns every value of a stream as "text" or "text!" for an error.
func read(t *testing.T, stream string) []string {
	t.Helper()
	in := newInputs(&inputPlan{args: []string{"-"}}, strings.NewReader(stream))
	var got []string
	for {
		v, ok, err := in.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return got
		}
		if v.err != nil {
			got = append(got, v.text+"!")
		} else {
			got = append(got, v.text)
		}
	}
}

func TestLineRules(t *testing.T) {
	long := strings.Repeat("a", maxLine+10)
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"plain, blank, comments, CRLF, BOM", "\xef\xbb\xbfa\r\n\n# note\n  b  \r\n#c\nd", []string{"a", "b", "d"}},
		{"over-long line", "x\n" + long + "\ny\n", []string{"x", strings.Repeat("a", 40) + "…!", "y"}},
		{"ndjson of extract", `{"value":"1.2.3.4","type":"ipv4"}` + "\n" + `{"value":"x.example","type":"domain"}` + "\n", []string{"1.2.3.4", "x.example"}},
		{"json array, one element a line", "[\n{\"value\":\"a\",\"type\":\"domain\"},\n{\"value\":\"b\",\"type\":\"domain\"}\n]\nc\n", []string{"a", "b", "c"}},
		{"json array on one line", `[{"value":"a"},{"value":"b"}]`, []string{"a", "b"}},
		{"pretty-printed", "[\n  {\n    \"value\": \"a\",\n    \"type\": \"x\"\n  },\n  {\n    \"value\": \"b\"\n  }\n]\n", []string{"a", "b"}},
		{"array of strings", `["a", "b"]`, []string{"a", "b"}},
		{"detect records and its error record", `[{"input":"x","value":"a","type":"domain"},{"input":"","error":{"kind":"input","message":"empty value"}}]`, []string{"a", "!"}},
		{"object without value", `{"type":"ipv4"}` + "\nz", []string{`{"type":"ipv4"}!`, "z"}},
		{"number element", `[{"value":"a"}, 5]`, []string{"a", "5!"}},
		{"braces inside strings", `{"value":"a}]{[","type":"x"}`, []string{"a}]{["}},
		{"unfinished JSON at the end", "[\n{\"value\":\"a\"},\n{\"value\":", []string{"a", `{"value":` + "\n!"}},
		{"extract's CSV", "value,type\n203.0.113.66,ipv4\n\"a,b\",unknown\n", []string{"203.0.113.66", "a,b"}},
		{"detect's CSV with an error row", "input,value,type\nX.COM,x.com,domain\n,,error: empty value\n", []string{"x.com", "!"}},
		{"detect's table", "INPUT    VALUE    TYPE\n1.2.3.4  1.2.3.4  ipv4\na b      a b      unknown\n                  error: empty value\nx.com    x.com    domain\n", []string{"1.2.3.4", "a b", "!", "x.com"}},
		{"a CSV row that is not (value, type) is read as its line", "value,type\n1.2.3.4,5.6.7.8\nfoo, bar\nx.example,ipv4\n203.0.113.66,ipv4\n", []string{"1.2.3.4,5.6.7.8", "foo, bar", "x.example,ipv4", "203.0.113.66"}},
		{"a header only counts on the first line", "a.example\nvalue,type\n", []string{"a.example", "value,type"}},
		{"an unterminated object does not swallow the next values", "{\"value\": \"198.51.100.7\"\n198.51.100.8\n44d88612fea8a8f36de82e1278abb02f\n", []string{"{\"value\": \"198.51.100.7\"\n!", "198.51.100.8", "44d88612fea8a8f36de82e1278abb02f"}},
		{"bracketed values are values", "[192.0.2.1\n[TLP:AMBER] indicators\n[2001:db8::1]:443\n[evil.example]\nx.example\n", []string{"[192.0.2.1", "[TLP:AMBER] indicators", "[2001:db8::1]:443", "[evil.example]", "x.example"}},
		{"text after an object", `{"value":"a"} junk` + "\nb", []string{"a", `{"value":"a"} junk!`, "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(t, tc.in)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestLongJSONArrayUsesOneElementOfMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("[\n")
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"value":"h.example","type":"domain"}`)
	}
	b.WriteString("\n]\n")
	in := newInputs(&inputPlan{args: []string{"-"}}, strings.NewReader(b.String()))
	n := 0
	for {
		v, ok, err := in.next()
		if err != nil || !ok {
			break
		}
		if v.err != nil {
			t.Fatal(v.err)
		}
		n++
		if c := cap(in.cur.json.buf); c > 4096 {
			t.Fatalf("the splitter holds %d bytes: more than one element", c)
		}
	}
	if n != 20000 {
		t.Fatalf("%d values", n)
	}
}

// A row under a value,type header that is not (value, type) is the item
// its line is without the header (sent whole, or the several-indicators
// error record): its second value is never dropped.
func TestCSVRowOfTwoValuesIsItsLine(t *testing.T) {
	first := func(stream string) lookup.Item {
		v, ok, err := newInputs(&inputPlan{args: []string{"-"}}, strings.NewReader(stream)).next()
		if err != nil || !ok {
			t.Fatalf("%q: no value (%v)", stream, err)
		}
		return prepare(v, true)
	}
	for _, row := range []string{"1.2.3.4,5.6.7.8", "foo, bar", "a.example, b.example"} {
		with, without := first("value,type\n"+row+"\n"), first(row+"\n")
		if with.Input != row || with.Value != without.Value || with.Type != without.Type || fmt.Sprint(with.Err) != fmt.Sprint(without.Err) {
			t.Fatalf("%q: with the header %+v, without %+v", row, with, without)
		}
	}
	if it := first("value,type\na.example, b.example\n"); it.Err == nil || !strings.Contains(it.Err.Error(), "several indicators") {
		t.Fatalf("two domains in a row: %+v, want the several-indicators error", it)
	}
}
