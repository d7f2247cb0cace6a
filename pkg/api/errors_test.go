package api

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tilookup/tilookup/pkg/sanitize"
)

// latin1Page is a 503 page as an old proxy sends it: ISO-8859-1 umlauts and
// stray 0xff bytes before the title, which lower-casing would widen.
func latin1Page() []byte {
	return []byte("<!DOCTYPE html><html><head>\n<!-- Gr\xfc\xdfe aus M\xfcnchen \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff -->\n" +
		"<title>503 Dienst nicht verf\xfcgbar &amp; \xc4rger</title></head><body>" + strings.Repeat("\xe4", 300) + "</body></html>")
}

func TestHTMLTitleFromNonUTF8Page(t *testing.T) {
	cases := []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"latin1 declared", "text/html; charset=ISO-8859-1", latin1Page(), "HTML page: 503 Dienst nicht verfügbar & Ärger"},
		{"no charset", "text/html", latin1Page(), "HTML page: 503 Dienst nicht verf\ufffdgbar & \ufffdrger"},
		{"upper-case tags", "", []byte("<HTML><TITLE>Gateway Timeout</TITLE></HTML>"), "HTML page: Gateway Timeout"},
		{"İ before the title", "text/html", []byte(strings.Repeat("İ", 50) + "<title>right</title>"), "HTML page: right"},
		{"title near the end", "text/html", []byte(strings.Repeat("\xff", 200) + "<title>x</title>"), "HTML page: x"},
		{"unterminated title", "text/html", []byte("\xff\xff<title>never closed"), "an HTML page"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerpt(tc.contentType, tc.body); got != tc.want {
				t.Errorf("excerpt = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStatusErrorQuotesHTMLTitle(t *testing.T) {
	e := statusError(OpSearch, 503, "text/html; charset=iso-8859-1", latin1Page())
	if want := "search: 503 Service Unavailable: HTML page: 503 Dienst nicht verfügbar & Ärger; the service failed; try again later"; e.Error() != want {
		t.Errorf("got  %q\nwant %q", e.Error(), want)
	}
}

// FuzzExcerpt: whatever the body, the excerpt does not panic, is one safe
// line within maxExcerpt runes, and a page's plain title is quoted whole.
func FuzzExcerpt(f *testing.F) {
	f.Add("text/html", string(latin1Page()), "Service Unavailable")
	f.Add("text/html; charset=latin1", "\xff\xfe<TITLE x=1>", "t")
	f.Add("application/json", `{"error":{"message":"no"}}`, "x")
	f.Fuzz(func(t *testing.T, contentType, prefix, title string) {
		got := excerpt(contentType, []byte(prefix))
		checkExcerpt(t, got)
		if strings.Contains(strings.ToLower(prefix), "<title") || strings.ContainsAny(title, "<&") ||
			strings.TrimSpace(title) == "" || !utf8.ValidString(title) || sanitize.Line(title) != title || utf8.RuneCountInString(title) > 100 {
			return
		}
		page := prefix + "<html><title>" + title + "</title></html>"
		got = excerpt("text/html", []byte(page))
		checkExcerpt(t, got)
		if want := "HTML page: " + strings.TrimSpace(title); got != want {
			t.Errorf("excerpt(%q) = %q, want %q", page, got, want)
		}
	})
}

func checkExcerpt(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\x1b") || utf8.RuneCountInString(s) > maxExcerpt {
		t.Fatalf("excerpt %q is not one safe line of at most %d runes", s, maxExcerpt)
	}
	for _, r := range s {
		if sanitize.IsUnsafe(r) {
			t.Fatalf("excerpt %q holds %U", s, r)
		}
	}
}
