package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var lookedUp = time.Date(2026, 11, 22, 17, 5, 9, 123456789, time.UTC)

// hostileLabel tries every way out of a Markdown table cell: a pipe, code,
// an image, HTML, a link, emphasis, an entity, a bare URL, a line break.
const hostileLabel = "Evil | feed `x` ![x](http://attacker.example/p.png) <img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold** &lt;b&gt; www.attacker.example\nsecond line"

func decode(t *testing.T, body string) *api.SearchResponse {
	t.Helper()
	resp, err := api.DecodeSearch([]byte(body))
	if err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return resp
}

const c2Match = `{"query":"198.51.100.7","detected_type":"ipv4","strategy":"exact","results":[
 {"resource":"c2","label":"Botnet C2 servers","group":"network","matched_column":"ip","matched_value":"198.51.100.7","count":3,"detail_url":"https://ti.example/r/c2?q=198.51.100.7"},
 {"resource":"scan","label":"Mass scanners","group":"network","matched_column":"src","matched_value":"198.51.100.7","count":12,"detail_url":"https://ti.example/r/scan?q=198.51.100.7"}]}`

func oneValue(t *testing.T) *report.Report {
	return &report.Report{Title: "198.51.100.7", Time: lookedUp, Indicators: []report.Indicator{
		{Value: "198.51.100.7", Type: "ipv4", Resp: decode(t, c2Match)},
	}}
}

func severalValues(t *testing.T) *report.Report {
	return &report.Report{Title: "Search of 4 values", Time: lookedUp, Indicators: []report.Indicator{
		{Value: "198.51.100.7", Type: "ipv4", Resp: decode(t, c2Match)},
		{Value: "https://login-update.example.net/verify?id=1", Type: "url", Resp: decode(t, `{"query":"https://login-update.example.net/verify?id=1","detected_type":"url","results":[
 {"resource":"phish","label":"Phishing URLs","group":"web","count":1,"detail_url":"https://ti.example/r/phish?id=9"}]}`)},
		{Value: "quiet.example.org", Type: "domain", Resp: decode(t, `{"query":"quiet.example.org","detected_type":"domain","results":[]}`)},
		{Value: "CVE-2021-44228", Type: "cve", Resp: decode(t, `{"query":"CVE-2021-44228","detected_type":"cve","results":[
 {"resource":"kev","label":"Known exploited vulnerabilities","group":"vuln","count":1,"detail_url":"https://ti.example/r/kev/CVE-2021-44228"}]}`)},
	}}
}

// triageRun is a triage-shaped report: a title naming the file, every
// status, skipped values, and a hostile server.
func triageRun(t *testing.T) *report.Report {
	hostile := `{"query":"evil.example","detected_type":"domain","results":[
 {"resource":"x|y","label":` + jsonString(hostileLabel) + `,"group":"<b>grp</b>","count":7,"detail_url":"javascript:alert(1)"},
 {"resource":"z","label":"Pipes | in ) the (url","group":"g","count":1,"detail_url":"https://ti.example/d?q=a|b)&lt;x&gt;` + "`" + `"}]}`
	return &report.Report{Title: "Triage of report.txt", Time: lookedUp, Indicators: []report.Indicator{
		{Value: "evil.example", Type: "domain", Resp: decode(t, hostile)},
		{Value: "44d88612fea8a8f36de82e1278abb02f", Type: "md5", Resp: decode(t, `{"query":"44d88612fea8a8f36de82e1278abb02f","detected_type":"md5","results":[
 {"resource":"mal","label":"Malware hashes","group":"files","count":2,"detail_url":"https://ti.example/r/mal?h=44d8"}]}`)},
		{Value: "user@phish.example", Type: "email", Resp: decode(t, `{"query":"user@phish.example","detected_type":"email","results":[]}`)},
		{Value: "odd-thing", Type: "unknown", Resp: decode(t, `{"query":"odd-thing","detected_type":"unknown","unsupported_reason":"not a <known> | type","results":[]}`)},
		{Value: "203.0.113.9", Type: "ipv4", Err: failure.New(failure.Server, "503 Service Unavailable: the service failed; try again later")},
	}, Skipped: []report.Skipped{
		{Value: "10.0.0.1", Type: "ipv4", Reason: "private address"},
		{Value: "example.com", Type: "domain", Reason: "allow-list (docs | *examples*)"},
	}}
}

func jsonString(s string) string { return jcsString(s) }

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/export -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./pkg/export -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// On a terminal a document passes the sanitiser (JSON as the same value
// with \u escapes); piped, its bytes are unchanged.
func TestWriteSanitizesOnATerminal(t *testing.T) {
	hostile := "evil\u202e\u200bgpj.exe\x1b]8;;x\x07"
	doc := map[bool]string{
		true:  `{"name":"` + strings.ReplaceAll(strings.ReplaceAll(hostile, "\x1b", `\u001b`), "\x07", `\u0007`) + `"}` + "\n",
		false: "| `" + hostile + "` | domain |\n",
	}
	for _, isJSON := range []bool{true, false} {
		for _, tty := range []bool{false, true} {
			var b bytes.Buffer
			err := Write(&b, tty, isJSON, func(w io.Writer) error { _, err := io.WriteString(w, doc[isJSON]); return err })
			if err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if !tty {
				if out != doc[isJSON] {
					t.Errorf("json=%v piped: changed to %q", isJSON, out)
				}
				continue
			}
			for _, r := range out {
				if r != '\n' && sanitize.IsUnsafe(r) {
					t.Errorf("json=%v on a terminal: %U in %q", isJSON, r, out)
				}
			}
			if isJSON {
				var a, b map[string]string
				if json.Unmarshal([]byte(out), &a) != nil || json.Unmarshal([]byte(doc[true]), &b) != nil || a["name"] != b["name"] {
					t.Errorf("the JSON value changed: %q", out)
				}
			}
		}
	}
}

// TestDocumentsSayHowManyMore is issue 28: a run keeps the first
// api.KeptResults results of each answer (10M results cost 6 GB in md and
// stix), and every document says how many more resources it leaves out.
func TestDocumentsSayHowManyMore(t *testing.T) {
	const n = api.KeptResults + 123
	var b bytes.Buffer
	b.WriteString(`{"query":"198.51.100.7","detected_type":"ipv4","results":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"resource":"r","label":"Feed","count":1}`)
	}
	b.WriteString("]}")
	r := &report.Report{Title: "many", Time: lookedUp, Indicators: []report.Indicator{
		{Value: "198.51.100.7", Type: "ipv4", Resp: report.Lean(decode(t, b.String()))},
	}}
	const more = "123 more resources (-o json has them all)"

	md := markdown(t, r, true)
	if rows := bytes.Count([]byte(md), []byte("| Feed |")); rows != api.KeptResults {
		t.Errorf("md lists %d resources, want %d", rows, api.KeptResults)
	}
	if !bytes.Contains([]byte(md), []byte("| … "+more+" | | |\n")) {
		t.Errorf("md does not say how many more:\n%.400s", md[len(md)-400:])
	}
	var stix bytes.Buffer
	if err := STIX(&stix, r, STIXOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(stix.Bytes(), []byte("; and "+more)) {
		t.Error("stix does not say how many more")
	}
	raw, _ := writeMISP(t, r, MISPOptions{})
	if !bytes.Contains(raw, []byte("; and "+more)) {
		t.Error("misp does not say how many more")
	}
}
