package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/failure"
)

func TestScanSearchCounts(t *testing.T) {
	cases := map[string]int{
		`{"results":[]}`: 0,
		`{"results":[{"a":[1,2,{"results":[1]}]},{"b":"]},"}, null, 3]}`: 4,
		` { "query" : "results", "results" : [ {} ] } `:                  1,
		`{"nested":{"results":[1,2,3]},"results":[1,2]}`:                 2,
		`{"results":"none"}`:                     0,
		`{"results":null}`:                       0,
		`{"query":"x"}`:                          0,
		`{"res\"ults":[1],"results":[[],[],[]]}`: 3,
		// Item 7 of issue 16: keys are compared as encoding/json decodes them.
		`{"\u0072esults":[{},{}]}`:                2,
		`{"RESULTS":[{}]}`:                        1,
		`{"Results":[{}],"results":[{},{}]}`:      2,
		`{"results":[{},{}],"RESULTS":[{}]}`:      1,
		`{"reſults":[{},{},{}]}`:                  3, // U+017F folds to s
		`{"results":[{},{}],"results":null}`:      0,
		`{"results":[{},{}],"results":"x"}`:       2, // a type error leaves the field as it was
		`{"results":[{},{}],"results":{"a":[1]}}`: 2,
		`{"resultsx":[{}],"result":[{}]}`:         0,
		`{"results":[1,"2",[3],{"4":4}]}`:         4,
	}
	for body, want := range cases {
		got, _, err := ScanSearch([]byte(body))
		if err != nil || got != want {
			t.Errorf("ScanSearch(%s) = %d, %v; want %d", body, got, err, want)
		}
		if typed := typedCount(t, []byte(body)); typed != want {
			t.Errorf("encoding/json counts %d in %s; the table above is wrong", typed, body)
		}
	}
}

// Item 8 of issue 16: white space of any length around the object.
func TestScanSearchLeadingSpace(t *testing.T) {
	body := []byte(strings.Repeat(" \r\n\t", 100) + `{"results":[{}]}` + strings.Repeat("\n", 300))
	n, compact, err := ScanSearch(body)
	if err != nil || n != 1 || compact {
		t.Errorf("ScanSearch = %d, %v, %v; want 1, false, nil", n, compact, err)
	}
	r, err := DecodeSearch(body)
	if err != nil || r.ResultCount() != 1 {
		t.Errorf("DecodeSearch: %v", err)
	}
}

func TestScanSearchErrors(t *testing.T) {
	for body, want := range map[string]string{
		"":                 "search: 200 OK: the service answered with an empty body",
		" \n\t ":           "search: 200 OK: the service answered with an empty body",
		`[{"results":[]}]`: "search: 200 OK: the response is not a JSON object: [{\"results\":[]}]",
		`"results"`:        "the response is not a JSON object",
		`{"results":[1,]}`: "the response is not valid JSON: invalid character ']' looking for beginning of value",
		`{"a":1}{"b":2}`:   "the response is not valid JSON: invalid character '{' after top-level value",
		`{"a":01}`:         "not valid JSON",
		`{"a":"\x01"}`:     "not valid JSON",
		`{"a":"\q"}`:       "not valid JSON",
		`{"a":tru}`:        "not valid JSON",
		`{"a":1,}`:         "not valid JSON",
		`{"a" 1}`:          "not valid JSON",
		`{"a":[1 2]}`:      "not valid JSON",
		`{"a":{"b":1]}`:    "not valid JSON",
		`{"a":-}`:          "not valid JSON",
		`{"a":1.}`:         "not valid JSON",
		`{"a":1e}`:         "not valid JSON",
		`{"a":"\u12"}`:     "not valid JSON",
		`{"results":[{}]`:  "not valid JSON",
		strings.Repeat("{\"a\":", 9999) + "1" + strings.Repeat("}", 9999):             "",
		strings.Repeat("{\"a\":", 10000) + "1" + strings.Repeat("}", 10000):           "",
		strings.Repeat("{\"a\":", 10001) + "1" + strings.Repeat("}", 10001):           "exceeded max depth",
		`{"results":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + "}":   "",
		`{"results":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}": "exceeded max depth",
	} {
		_, _, err := ScanSearch([]byte(body))
		if want == "" {
			if err != nil || !json.Valid([]byte(body)) {
				t.Errorf("ScanSearch(%.40q): %v (json.Valid %v)", body, err, json.Valid([]byte(body)))
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || failure.KindOf(err) != failure.Decode {
			t.Errorf("ScanSearch(%.40q) = %v; want a decode error holding %q", body, err, want)
		}
	}
}

// typedCount is what the typed path counts: encoding/json into
// SearchResponse. ok is false when decoding stopped early (a string that is
// not a number where a count is expected), so the count is partial.
func typedCountOK(body []byte) (n int, ok bool) {
	var r SearchResponse
	err := json.Unmarshal(body, &r)
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) {
		return 0, false
	}
	return len(r.Results), true
}

func typedCount(t *testing.T, body []byte) int {
	t.Helper()
	n, ok := typedCountOK(body)
	if !ok {
		t.Fatalf("encoding/json stopped early on %s", body)
	}
	return n
}

// FuzzScanSearch holds the scan to encoding/json: the same validity
// verdict as json.Valid, the same count as decoding into SearchResponse,
// and compact exactly when json.Compact changes more than the outer space.
func FuzzScanSearch(f *testing.F) {
	for _, s := range []string{
		`{"results":[{"preview":[{"k":"v,]"}]},{}]}`,
		`{"results":[1,"2",[3],{"4":4}],"x":{"results":[]}}`,
		`{"\u0072esults":[{}]}`, `{"RESULTS":[{}],"results":null}`, `{"reſults":[1]}`,
		` {"results" : [ {"count": 1e5} , {} ] }` + "\n", `{"a":"\ud800"}`, `{"a":-0.5E+3}`,
		`{"results":[{},{}],"results":"x"}`, `{"results":[{"count":"12"}]}`, "{\"a\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n, compact, err := ScanSearch(body)
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		wantValid := json.Valid(body) && len(trimmed) > 0 && trimmed[0] == '{'
		if (err == nil) != wantValid {
			t.Fatalf("ScanSearch(%q): err %v, but json.Valid says %v", body, err, json.Valid(body))
		}
		if err != nil {
			return
		}
		if want, ok := typedCountOK(body); ok && n != want {
			t.Fatalf("ScanSearch(%q) counts %d, encoding/json %d", body, n, want)
		}
		var c bytes.Buffer
		if json.Compact(&c, body) != nil {
			t.Fatalf("json.Compact refuses %q", body)
		}
		if needs := !bytes.Equal(c.Bytes(), bytes.TrimSpace(body)); compact != needs {
			t.Fatalf("ScanSearch(%q): compact %v, want %v", body, compact, needs)
		}
	})
}

// sampleAnswer is a search answer as the sandbox sends it: compact, with a
// trailing newline, a few results with previews.
func sampleAnswer() []byte {
	var results []string
	for i := range 4 {
		results = append(results, `{"resource":"malware_samples_`+string(rune('a'+i))+`","label":"Malware samples","group":"files","matched_column":"md5","matched_value":"44d88612fea8a8f36de82e1278abb02f","count":3,"preview":[{"name":"eicar.com","first_seen":"2024-01-02T03:04:05Z","size":68,"tags":["test","eicar"]},{"name":"eicar.txt","first_seen":"2024-01-03T03:04:05Z","size":68,"tags":["test"]}],"detail_url":"https://ti.example/resources/malware_samples?q=44d88612fea8a8f36de82e1278abb02f"}`)
	}
	return []byte(`{"query":"44d88612fea8a8f36de82e1278abb02f","detected_type":"md5","strategy":"exact_hash","unsupported_reason":"","results":[` + strings.Join(results, ",") + "]}\n")
}

// The three-pass path that ScanSearch replaced, kept as the benchmark's
// baseline: json.Valid first, then this count, then json.Compact.

// countResultsBaseline counts the elements of the top-level "results" array of a
// valid JSON object, without decoding anything: 0 when there is no such
// key or it is not an array. body must be valid JSON (json.Valid).
// A repeated key counts as decoding does: the last one wins.
func countResultsBaseline(body []byte) int {
	depth, count := 0, 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '"':
			end := oldSkipString(body, i)
			if depth == 1 && string(body[i+1:end]) == "results" {
				j := oldSkipSpace(body, end+1)
				if j < len(body) && body[j] == ':' {
					j = oldSkipSpace(body, j+1)
					count = oldCountArray(body, j)
					end = j - 1 // go on at the value, so that depth stays right
				}
			}
			i = end
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return count
}

// oldCountArray counts the elements of the array starting at body[i].
func oldCountArray(body []byte, i int) int {
	if i >= len(body) || body[i] != '[' {
		return 0
	}
	j := oldSkipSpace(body, i+1)
	if j < len(body) && body[j] == ']' {
		return 0
	}
	n, depth := 1, 0
	for ; i < len(body); i++ {
		switch body[i] {
		case '"':
			i = oldSkipString(body, i)
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return n
			}
		case ',':
			if depth == 1 {
				n++
			}
		}
	}
	return n
}

// oldSkipString returns the index of the quote closing the string that
// starts at body[i].
func oldSkipString(body []byte, i int) int {
	for i++; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(body) - 1
}

func oldSkipSpace(body []byte, i int) int {
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
		i++
	}
	return i
}

// BenchmarkAnswerOldPath is what each NDJSON answer cost before ScanSearch:
// json.Valid, counting, json.Compact.
func BenchmarkAnswerOldPath(b *testing.B) {
	body := sampleAnswer()
	var out bytes.Buffer
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if !json.Valid(body) {
			b.Fatal("invalid")
		}
		_ = countResultsBaseline(body)
		out.Reset()
		_ = json.Compact(&out, body)
	}
}

// BenchmarkAnswerScanSearch is the one pass, then a trim for NDJSON.
func BenchmarkAnswerScanSearch(b *testing.B) {
	body := sampleAnswer()
	var out bytes.Buffer
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		_, compact, err := ScanSearch(body)
		if err != nil || compact {
			b.Fatal(err, compact)
		}
		out.Reset()
		out.Write(bytes.TrimSpace(body))
	}
}

// Items 7 and 8 of issue 16 through the client: the typed path (table,
// csv) and the raw path (json, ndjson) count the same results, whatever the
// key's spelling, and both accept any amount of leading white space.
func TestSearchAndSearchRawCountAlike(t *testing.T) {
	for body, want := range map[string]int{
		`{"\u0072esults":[{"label":"a"},{"label":"b"}]}`:                2,
		`{"RESULTS":[{"label":"a"}]}`:                                   1,
		strings.Repeat(" ", 100) + "\n" + `{"results":[{"label":"a"}]}`: 1,
		`{"results":[{"count":"not a number"},{}]}`:                     2,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) }))
		c, _ := newClient(t, srv.URL)
		typed, err1 := c.Search(context.Background(), "x", 0)
		raw, err2 := c.SearchRaw(context.Background(), "x", 0)
		srv.Close()
		if err1 != nil || err2 != nil {
			t.Errorf("%s: %v, %v", body, err1, err2)
			continue
		}
		if typed.ResultCount() != want || raw.ResultCount() != want {
			t.Errorf("%s: Search counts %d, SearchRaw %d; want %d", body, typed.ResultCount(), raw.ResultCount(), want)
		}
	}
}
