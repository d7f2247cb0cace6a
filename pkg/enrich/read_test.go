package enrich

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// readAll reads every record of in, and checks that the records' bytes
// put together are the input again, byte for byte.
func readAll(t *testing.T, in string, f Format) []Record {
	t.Helper()
	rd := NewReader(strings.NewReader(in), f)
	var recs []Record
	var again bytes.Buffer
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		again.Write(rec.Raw)
		again.WriteString(rec.End)
		recs = append(recs, rec)
	}
	if again.String() != in {
		t.Errorf("records put together:\n%q\nwant the input:\n%q", again.String(), in)
	}
	return recs
}

func TestReaderRecords(t *testing.T) {
	tests := []struct {
		name  string
		f     Format
		in    string
		cells [][]string
		lines []int
	}{
		{"plain", CSV, "a,b\n1,2\n", [][]string{{"a", "b"}, {"1", "2"}}, []int{1, 2}},
		{"no final line end", CSV, "a,b\n1,2", [][]string{{"a", "b"}, {"1", "2"}}, []int{1, 2}},
		{"CRLF", CSV, "a,b\r\n1,2\r\n", [][]string{{"a", "b"}, {"1", "2"}}, []int{1, 2}},
		{"quoted comma", CSV, "a,b\n\"x, y\",2\n", [][]string{{"a", "b"}, {"x, y", "2"}}, []int{1, 2}},
		{"quoted line ends", CSV, "a,b\n\"x\r\ny\nz\",2\n3,4\n", [][]string{{"a", "b"}, {"x\r\ny\nz", "2"}, {"3", "4"}}, []int{1, 2, 5}},
		{"doubled quote", CSV, "a\n\"say \"\"hi\"\"\"\n", [][]string{{"a"}, {`say "hi"`}}, []int{1, 2}},
		{"doubled quote then line end", CSV, "a\n\"\"\"\n\"\n", [][]string{{"a"}, {"\"\n"}}, []int{1, 2}},
		{"stray quote in unquoted cell", CSV, "a,b\n5\" disk,x\n1,2\n", [][]string{{"a", "b"}, {`5" disk`, "x"}, {"1", "2"}}, []int{1, 2, 3}},
		{"empty cells", CSV, "a,b,c\n,,\n", [][]string{{"a", "b", "c"}, {"", "", ""}}, []int{1, 2}},
		{"TSV quotes are text", TSV, "a\tb\n\"x\ty\n", [][]string{{"a", "b"}, {`"x`, "y"}}, []int{1, 2}},
		{"NDJSON", NDJSON, "{\"a\":1}\n\n{\"b\":\"x\\ny\"}\r\n", [][]string{{`{"a":1}`}, {""}, {`{"b":"x\ny"}`}}, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := readAll(t, tt.in, tt.f)
			if len(recs) != len(tt.cells) {
				t.Fatalf("%d records, want %d", len(recs), len(tt.cells))
			}
			for i, rec := range recs {
				got := []string{string(rec.Raw)}
				if tt.f != NDJSON {
					got = Cells(rec.Raw, tt.f)
				}
				if strings.Join(got, "|") != strings.Join(tt.cells[i], "|") || len(got) != len(tt.cells[i]) {
					t.Errorf("record %d: cells %q, want %q", i, got, tt.cells[i])
				}
				if rec.Line != tt.lines[i] {
					t.Errorf("record %d: line %d, want %d", i, rec.Line, tt.lines[i])
				}
			}
			if last := recs[len(recs)-1]; last.Offset != int64(len(tt.in)) {
				t.Errorf("last offset %d, want %d", last.Offset, len(tt.in))
			}
		})
	}
}

// A record longer than the reader's buffer (and than 1 MiB) is one record.
func TestReaderLongRecord(t *testing.T) {
	long := strings.Repeat("x,\"\n", 1<<19) // 2 MiB of commas, quotes, line ends
	in := "a,b\n\"" + strings.ReplaceAll(long, `"`, `""`) + "\",203.0.113.5\n1,2\n"
	recs := readAll(t, in, CSV)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	if cells := Cells(recs[1].Raw, CSV); len(cells) != 2 || cells[0] != long || cells[1] != "203.0.113.5" {
		t.Errorf("the long record's cells are wrong (%d cells)", len(cells))
	}
}

// A quote that never closes ends the run with a clear error, not with the
// whole file in memory.
func TestReaderUnclosedQuote(t *testing.T) {
	rd := NewReader(strings.NewReader("a\n\"never closed\n"+strings.Repeat("x\n", 1000)), CSV)
	rd.MaxRecord = 1000
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := rd.Next()
	if err == nil || !strings.Contains(err.Error(), "line 2 is longer than 1000 bytes") {
		t.Errorf("err = %v", err)
	}
}

func TestSniff(t *testing.T) {
	tests := map[string]Format{
		"a,b\n1,2\n":              CSV,
		"\ufeffa,b\n":             CSV,
		"a\tb\tc\n1\t2\t3\n":      TSV,
		"msg\tip\n\"a, b, c\"\t1": TSV,
		"{\"a\":1}\n":             NDJSON,
		"\ufeff  {\"a\":1}\n":     NDJSON,
		"only_one_column\nx\n":    CSV,
	}
	for in, want := range tests {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestFields(t *testing.T) {
	fields, err := Fields([]byte(`{"n":12345678901234567890,"s":"a\"b","o":{"x":[1]},"z":null}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fields {
		got = append(got, f.Name+"="+string(f.Value)+"="+Text(f.Value))
	}
	want := `n=12345678901234567890=12345678901234567890|s="a\"b"=a"b|o={"x":[1]}={"x":[1]}|z=null=`
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	for _, bad := range []string{`[1]`, `{"a":1} {"b":2}`, `{"a":`, `"x"`, `not json`} {
		if _, err := Fields([]byte(bad)); err == nil {
			t.Errorf("Fields(%s): no error", bad)
		}
	}
}

// A leading byte order mark is no part of the first record, whatever the
// format: the first record is read and enriched like the others.
func TestLeadingBOM(t *testing.T) {
	tests := map[string]string{
		"csv":    "ip,n\n203.0.113.66,1\n",
		"tsv":    "ip\tn\n203.0.113.66\t1\n",
		"ndjson": `{"ip":"203.0.113.66","n":1}` + "\n",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			for _, names := range [][]string{nil, {"ip"}} {
				out, sink, err := enrichString(t, "\ufeff"+in, runOpts{names: names})
				if err != nil {
					t.Fatal(err)
				}
				if len(sink.BadRows) > 0 || !strings.Contains(out, Matched) {
					t.Errorf("columns %v: the first record was not enriched (bad rows %v):\n%s", names, sink.BadRows, out)
				}
			}
		})
	}
}
