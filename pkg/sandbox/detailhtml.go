package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"strings"
)

// wantsHTML tells a browser (which asks for text/html first) from a
// client that wants the detail page's JSON (curl, scripts, the tests).
func wantsHTML(r *http.Request) bool {
	if r.URL.Query().Get("format") == "json" {
		return false
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// detailHTML renders a detail page for a person: the resource, the query
// and each record as a table of its fields, in the records' own order.
// Written by hand rather than with html/template, whose reflection would
// make every tilookup binary larger and slower to start; every piece of
// data goes through html.EscapeString.
func detailHTML(d detailResponse) reply {
	var b bytes.Buffer
	esc := html.EscapeString
	title := fmt.Sprintf("%s: %s", d.Label, d.Query)
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>` + esc(title) + ` (tilookup sandbox)</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1d2330}
h1{font-size:1.4rem;margin-bottom:.2rem} .meta{color:#5a6275;margin-top:0}
.note{background:#fff6db;border:1px solid #e9d48a;padding:.5rem .8rem;border-radius:4px}
table{border-collapse:collapse;margin:1rem 0 1.5rem;width:100%}
th,td{border:1px solid #d5d9e2;padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:#f2f4f8;width:12rem;font-weight:600} td{font-family:ui-monospace,monospace;word-break:break-all}
</style></head><body>
`)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"meta\">%s &middot; group %s &middot; query <code>%s</code> (%s) &middot; %d %s</p>\n",
		esc(d.Label), esc(d.Resource), esc(d.Group), esc(d.Query), esc(d.DetectedType), d.Count, plural(d.Count, "record"))
	b.WriteString(`<p class="note">Demo data of the tilookup sandbox: documentation-reserved addresses and public facts. This page lives only as long as the sandbox that served it.</p>` + "\n")
	if d.Count == 0 {
		b.WriteString("<p>No record of this resource matches the query.</p>\n")
	}
	for i, rec := range d.Records {
		fmt.Fprintf(&b, "<h2>Record %d</h2>\n<table>\n", i+1)
		for _, f := range orderedFields(rec) {
			fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>\n", esc(f.key), esc(f.value))
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body></html>\n")
	return reply{status: http.StatusOK, header: http.Header{
		"Content-Type": {"text/html; charset=utf-8"},
		// The page shows data: no script of any origin runs in it.
		"Content-Security-Policy": {"default-src 'none'; style-src 'unsafe-inline'"},
	}, body: b.Bytes()}
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

type field struct{ key, value string }

// orderedFields lists a record's top-level fields in the order written: a
// string as itself, anything else as compact JSON.
func orderedFields(rec json.RawMessage) []field {
	dec := json.NewDecoder(bytes.NewReader(rec))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return []field{{"value", string(rec)}}
	}
	var out []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		value := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			value = s
		} else if len(raw) > 0 && (raw[0] == '[' || raw[0] == '{') {
			var c bytes.Buffer
			if json.Compact(&c, raw) == nil {
				value = c.String()
			}
		}
		out = append(out, field{key, value})
	}
	return out
}
