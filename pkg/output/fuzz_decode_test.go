package output

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/api"
)

// The path a server's bytes take to the user: api.DecodeSearch, then every
// printer. Whatever the bytes, nothing panics, a decoded response renders
// without error, table output holds no control byte, JSON output stays JSON,
// and an error message that quotes the server is one short clean line.

func addBodySeeds(f *testing.F) {
	matches, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `null`, `"x"`, `{"results":null}`, `{"results":{}}`, `{"results":[null,1,"x",[]]}`,
		`{"query":1,"results":[{"count":"12","preview":[{"a":{"b":[1,2.5e400]}}]}]}`,
		`{"results":[{"count":123456789012345678901234567890,"preview":[{"":null}]}]}`,
		"{\"query\":\"\x1b]8;;http://evil.test/\x07x\",\"results\":[{\"label\":\"\u202eexe.fdp\",\"matched_value\":\"\xff\xfe\",\"detail_url\":\"\u009b2J\"}]}",
		"{\"results\":[{\"preview\":[{\"\x1b[1mkey\":\"a\\u0000b\\u001b[31m\\u202e\\ud800\"}]}]}",
		"{\"query\":\"x\"}\r\t", "0\r", `{"query":"x"`, `{"query":"x",}`, "\xef\xbb\xbf{}", `<html><title>502</title></html>`,
	} {
		f.Add([]byte(s))
	}
}

// renderAll prints rec in every format and returns each output by name.
func renderAll(t *testing.T, rec Record) map[string][]byte {
	t.Helper()
	outs := map[string][]byte{}
	for _, c := range []struct {
		name  string
		opts  Options
		multi bool
	}{
		{"table", Options{}, false},
		{"table preview", Options{Preview: true, Color: true}, false},
		{"table multi", Options{Preview: true, Color: true}, true},
		{"json", Options{Format: JSON}, false},
		{"json tty", Options{Format: JSON, TTY: true, Preview: true}, false},
		{"json multi", Options{Format: JSON}, true},
		{"ndjson", Options{Format: NDJSON}, true},
		{"ndjson tty", Options{Format: NDJSON, TTY: true}, true},
		{"csv", Options{Format: CSV, Preview: true}, true},
		{"csv tty", Options{Format: CSV, TTY: true}, false},
	} {
		var b bytes.Buffer
		c.opts.Out = &b
		p, err := NewSearchPrinter(c.opts, c.multi)
		if err != nil {
			t.Fatal(err)
		}
		recs := []Record{rec}
		if c.multi {
			recs = append(recs, Record{Query: "second", Err: errEvil}, rec)
		}
		for _, r := range recs {
			if err := p.Add(r); err != nil && rec.Err == nil {
				t.Errorf("%s: Add: %v", c.name, err)
			}
		}
		if err := p.Close(); err != nil {
			t.Errorf("%s: Close: %v", c.name, err)
		}
		outs[c.name] = b.Bytes()
	}
	return outs
}

func FuzzDecodeAndRender(f *testing.F) {
	addBodySeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := api.DecodeSearch(body)
		rec := Record{Input: "in", Query: "q", Resp: resp, Err: err}
		if err != nil {
			rec.Resp = nil
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") || utf8.RuneCountInString(msg) > 400 {
				t.Errorf("error message is not one short line: %q", msg)
			}
			assertTerminalSafe(t, []byte(msg))
		} else if resp == nil {
			t.Fatal("no response and no error")
		}
		outs := renderAll(t, rec)
		for _, name := range []string{"table", "table preview", "table multi"} {
			assertTerminalSafe(t, outs[name])
		}
		for _, name := range []string{"json tty", "ndjson tty", "csv tty"} {
			assertNoTerminalControls(t, outs[name])
		}
		if !json.Valid(outs["json"]) || !json.Valid(outs["json multi"]) {
			t.Errorf("json output does not parse:\n%s\n%s", outs["json"], outs["json multi"])
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(outs["ndjson"], []byte("\n")), []byte("\n")) {
			if !json.Valid(line) {
				t.Errorf("ndjson line does not parse: %q", line)
			}
		}
	})
}

// FuzzEventsRender: any events body prints in every format without a panic,
// and its table holds no control byte.
func FuzzEventsRender(f *testing.F) {
	addBodySeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, o := range []Options{{}, {Color: true}, {Format: JSON}, {Format: JSON, TTY: true}, {Format: NDJSON}, {Format: CSV}, {Format: CSV, TTY: true}} {
			var b bytes.Buffer
			o.Out = &b
			err := PrintEvents(o, body)
			if err != nil {
				if json.Valid(body) {
					t.Errorf("%s: valid JSON refused: %v", o.Format, err)
				}
				continue
			}
			switch {
			case o.Format == "" || o.Format == Table:
				assertTerminalSafe(t, b.Bytes())
			case o.TTY:
				assertNoTerminalControls(t, b.Bytes())
			}
		}
	})
}
