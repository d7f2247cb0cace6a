package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestSearchStatuses(t *testing.T) {
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	base := srv.URL
	long := strings.Repeat("a", MaxQueryLen+1)
	tests := []struct {
		name   string
		c      call
		status int
		code   string
	}{
		{"ok", call{url: searchURL(base, eicarMD5), token: DemoToken}, 200, ""},
		{"ok with limit", call{url: searchURL(base, eicarMD5, "limit=1"), token: DemoToken}, 200, ""},
		{"ok limit bounds low", call{url: searchURL(base, eicarMD5, "limit=1"), token: DemoToken}, 200, ""},
		{"ok limit bounds high", call{url: searchURL(base, eicarMD5, "limit=100"), token: DemoToken}, 200, ""},
		{"no-permission token searches", call{url: searchURL(base, eicarMD5), token: NoPermissionToken}, 200, ""},
		{"no-events token searches", call{url: searchURL(base, eicarMD5), token: NoEventsToken}, 200, ""},
		{"unknown value is still 200", call{url: searchURL(base, "not an indicator"), token: DemoToken}, 200, ""},
		{"no token", call{url: searchURL(base, eicarMD5)}, 401, "unauthorized"},
		{"wrong token", call{url: searchURL(base, eicarMD5), token: "nope"}, 401, "unauthorized"},
		{"basic scheme", call{url: searchURL(base, eicarMD5), headers: map[string]string{"Authorization": "Basic " + DemoToken}}, 401, "unauthorized"},
		{"cookie is not enough for search", call{url: searchURL(base, eicarMD5), cookie: DemoToken}, 401, "unauthorized"},
		{"auth before params", call{url: base + searchPath}, 401, "unauthorized"},
		{"missing q", call{url: base + searchPath, token: DemoToken}, 400, "bad_request"},
		{"missing q with limit", call{url: base + searchPath + "?limit=5", token: DemoToken}, 400, "bad_request"},
		{"empty q", call{url: base + searchPath + "?q=", token: DemoToken}, 400, "bad_request"},
		{"blank q", call{url: searchURL(base, "   "), token: DemoToken}, 400, "bad_request"},
		{"q twice", call{url: base + searchPath + "?q=a.example&q=b.example", token: DemoToken}, 400, "bad_request"},
		{"q too long", call{url: searchURL(base, long), token: DemoToken}, 400, "bad_request"},
		{"limit not a number", call{url: searchURL(base, eicarMD5, "limit=ten"), token: DemoToken}, 400, "bad_request"},
		{"limit empty", call{url: searchURL(base, eicarMD5, "limit="), token: DemoToken}, 400, "bad_request"},
		{"limit zero", call{url: searchURL(base, eicarMD5, "limit=0"), token: DemoToken}, 400, "bad_request"},
		{"limit negative", call{url: searchURL(base, eicarMD5, "limit=-1"), token: DemoToken}, 400, "bad_request"},
		{"limit too big", call{url: searchURL(base, eicarMD5, "limit=101"), token: DemoToken}, 400, "bad_request"},
		{"limit float", call{url: searchURL(base, eicarMD5, "limit=2.5"), token: DemoToken}, 400, "bad_request"},
		{"raw semicolon", call{url: base + searchPath + "?q=a;b", token: DemoToken}, 400, "bad_request"},
		{"magic 500", call{url: searchURL(base, InternalErrorQuery), token: DemoToken}, 500, "internal_error"},
		{"POST", call{method: "POST", url: searchURL(base, eicarMD5), token: DemoToken}, 405, "method_not_allowed"},
		{"DELETE", call{method: "DELETE", url: searchURL(base, eicarMD5), token: DemoToken}, 405, "method_not_allowed"},
		{"trailing slash", call{url: base + searchPath + "/?q=x", token: DemoToken}, 404, "not_found"},
		{"unknown path", call{url: base + "/api/ti/resources", token: DemoToken}, 404, "not_found"},
		{"events path on search host", call{url: base + eventsPath, token: DemoToken}, 404, "not_found"},
		{"root", call{url: base + "/", token: DemoToken}, 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, http.DefaultClient, tt.c)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d; body %s", r.resp.StatusCode, tt.status, r.body)
			}
			if tt.status != 200 {
				checkErrorBody(t, r, tt.status, tt.code)
			}
			switch tt.status {
			case 401:
				if r.resp.Header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
			case 405:
				if got := r.resp.Header.Get("Allow"); got != "GET" {
					t.Errorf("Allow = %q, want GET", got)
				}
			}
		})
	}
}

// The demo token is public, so the sandbox names it to help newcomers; a
// token chosen through Options must never be echoed.
func TestSearch401HintsOnlyTheDemoToken(t *testing.T) {
	for _, tc := range []struct {
		token    string
		wantHint bool
	}{{"", true}, {"custom-secret", false}} {
		srv := httptest.NewServer(NewSearchHandler(Options{Token: tc.token}))
		r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, eicarMD5), token: "wrong"})
		srv.Close()
		if got := strings.Contains(string(r.body), DemoToken); got != tc.wantHint {
			t.Errorf("Token %q: hint shown = %v, want %v: %s", tc.token, got, tc.wantHint, r.body)
		}
		if strings.Contains(string(r.body), "custom-secret") {
			t.Errorf("the configured token leaked: %s", r.body)
		}
	}
	srv := httptest.NewServer(NewSearchHandler(Options{Token: "custom-secret"}))
	defer srv.Close()
	if r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, eicarMD5), token: "custom-secret"}); r.resp.StatusCode != 200 {
		t.Errorf("configured token refused: %d", r.resp.StatusCode)
	}
	if r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, eicarMD5), token: DemoToken}); r.resp.StatusCode != 401 {
		t.Errorf("demo token accepted although Options.Token is set: %d", r.resp.StatusCode)
	}
}

func TestSearchDetection(t *testing.T) {
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	tests := []struct {
		q, typ, strategy string
		wantResults      bool
	}{
		{eicarMD5, "md5", "exact_hash", true},
		{strings.ToUpper(eicarMD5), "md5", "exact_hash", true},
		{eicarSHA1, "sha1", "exact_hash", true},
		{eicarSHA256, "sha256", "exact_hash", true},
		{eicarSHA512, "sha512", "exact_hash", true},
		{hotIPv4, "ipv4", "exact_ip", true},
		{hotIPv6, "ipv6", "exact_ip", true},
		{"2001:DB8:BAD:C0DE:0:0:0:66", "ipv6", "exact_ip", true},
		{hotDomain, "domain", "exact_domain", true},
		{"LOGIN-UPDATE.Example.NET.", "domain", "exact_domain", true},
		{hotURL, "url", "exact_url", true},
		{"cve-2021-44228", "cve", "exact_cve", true},
		{hotEmail, "email", "exact_email", true},
		{"  " + eicarMD5 + "  ", "md5", "exact_hash", true},
		{"0000000000000000000000000000000f", "md5", "exact_hash", false},
		{"192.0.2.254", "ipv4", "exact_ip", false},
		{"nothing-here.example.org", "domain", "exact_domain", false},
		{"hello world", "unknown", "none", false},
		{"44d88612", "unknown", "none", false},
		{"CVE-21-1", "unknown", "none", false},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, tt.q), token: DemoToken})
			if r.err != nil || r.resp.StatusCode != 200 {
				t.Fatalf("status %v %v: %s", r.err, r.resp.StatusCode, r.body)
			}
			a := decodeSearch(t, r.body)
			if a.Query == nil || *a.Query != tt.q {
				t.Errorf("query = %v, want %q echoed as sent", a.Query, tt.q)
			}
			if a.DetectedType != tt.typ || a.Strategy != tt.strategy {
				t.Errorf("detected_type, strategy = %q, %q; want %q, %q", a.DetectedType, a.Strategy, tt.typ, tt.strategy)
			}
			if a.UnsupportedReason == nil {
				t.Fatal("unsupported_reason missing")
			}
			if unsupported := tt.typ == "unknown"; unsupported != (*a.UnsupportedReason != "") {
				t.Errorf("unsupported_reason = %q for type %s", *a.UnsupportedReason, tt.typ)
			}
			if (len(a.Results) > 0) != tt.wantResults {
				t.Errorf("%d results, want some: %v", len(a.Results), tt.wantResults)
			}
			if !strings.Contains(string(r.body), `"results":[`) {
				t.Errorf("results must be an array, even empty: %s", r.body)
			}
		})
	}
}

// expectedMatches is the brute-force answer: a scan over the raw data, to
// hold the index to.
func expectedMatches(t *testing.T, q string) map[string]int {
	t.Helper()
	ds := mustDataset(t)
	typ := detectType(q)
	key := normalize(q, typ)
	out := map[string]int{}
	for _, res := range ds.resources {
		for _, raw := range res.Records {
			var rec map[string]any
			if err := json.Unmarshal(raw, &rec); err != nil {
				t.Fatal(err)
			}
			for _, col := range res.Columns {
				if v, ok := rec[col].(string); ok && normalize(v, detectType(v)) == key {
					out[res.ID]++
					break
				}
			}
		}
	}
	return out
}

func TestSearchEICARAcrossGroups(t *testing.T) {
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	for _, q := range []string{eicarMD5, eicarSHA1, eicarSHA256, eicarSHA512} {
		t.Run(q[:8], func(t *testing.T) {
			r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, q), token: DemoToken})
			a := decodeSearch(t, r.body)
			want := expectedMatches(t, q)
			groups := map[string]bool{}
			got := map[string]int{}
			for _, res := range a.Results {
				n, _ := res.Count.Int64()
				got[res.Resource] = int(n)
				groups[res.Group] = true
				if res.MatchedValue != q || res.MatchedColumn == "" || res.Label == "" {
					t.Errorf("%s: matched %q in %q, label %q", res.Resource, res.MatchedValue, res.MatchedColumn, res.Label)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("matches = %v, want %v", got, want)
			}
			if q != eicarSHA512 && (len(got) < 3 || len(groups) < 2) {
				t.Errorf("EICAR %s: %d resources in %d groups; want at least 3 in 2", q, len(got), len(groups))
			}
		})
	}
}

func TestSearchPreviewBoundedAndCountExact(t *testing.T) {
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	want := expectedMatches(t, hotDomain)
	if want["passive_dns"] <= DefaultLimit {
		t.Fatalf("data set: %s needs more than %d passive DNS records to test the bound, has %d", hotDomain, DefaultLimit, want["passive_dns"])
	}
	for _, limit := range []int{0, 1, 3, 10, 100} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			var extra []string
			effective := DefaultLimit
			if limit != 0 {
				extra = []string{fmt.Sprint("limit=", limit)}
				effective = limit
			}
			r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, hotDomain, extra...), token: DemoToken})
			a := decodeSearch(t, r.body)
			if len(a.Results) != len(want) {
				t.Fatalf("%d results, want %d", len(a.Results), len(want))
			}
			for _, res := range a.Results {
				n, _ := res.Count.Int64()
				if int(n) != want[res.Resource] {
					t.Errorf("%s: count %d, want %d", res.Resource, n, want[res.Resource])
				}
				if len(res.Preview) != min(effective, int(n)) {
					t.Errorf("%s: %d preview records, want %d", res.Resource, len(res.Preview), min(effective, int(n)))
				}
			}
		})
	}
}

func TestSearchAwkwardCharactersArriveIntact(t *testing.T) {
	for _, c := range []string{" ", "&", "#", "%"} {
		if !strings.Contains(hotURL, c) {
			t.Fatalf("hotURL lacks %q", c)
		}
	}
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, hotURL), token: DemoToken})
	a := decodeSearch(t, r.body)
	if *a.Query != hotURL || a.DetectedType != "url" {
		t.Fatalf("query %q typed %s, want %q as url", *a.Query, a.DetectedType, hotURL)
	}
	got := map[string]bool{}
	for _, res := range a.Results {
		got[res.Resource] = true
		if res.MatchedValue != hotURL {
			t.Errorf("%s matched %q", res.Resource, res.MatchedValue)
		}
	}
	if !got["phishing_urls"] || !got["ioc_feed"] {
		t.Errorf("URL matched in %v, want phishing_urls and ioc_feed", got)
	}
}

func TestSearchPassesBigNumbersExactly(t *testing.T) {
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, eicarMD5), token: DemoToken})
	if !strings.Contains(string(r.body), `"sighting_id":9007199254740993`) {
		t.Errorf("big integer not passed through byte for byte: %s", r.body)
	}
}

func TestSearchDetailURL(t *testing.T) {
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	r := do(t, http.DefaultClient, call{url: searchURL(srv.URL, hotURL), token: DemoToken})
	a := decodeSearch(t, r.body)
	for _, res := range a.Results {
		if !strings.HasPrefix(res.DetailURL, srv.URL+"/ti/resources/"+res.Resource+"?q=") {
			t.Errorf("detail_url %q not under %s", res.DetailURL, srv.URL)
		}
		u, err := url.Parse(res.DetailURL)
		if err != nil || u.Query().Get("q") != hotURL {
			t.Errorf("detail_url %q does not carry q intact (%v)", res.DetailURL, err)
		}
		d := do(t, http.DefaultClient, call{url: res.DetailURL}) // a browser sends no token
		var page struct {
			Resource string            `json:"resource"`
			Count    int               `json:"count"`
			Records  []json.RawMessage `json:"records"`
		}
		if err := json.Unmarshal(d.body, &page); err != nil || d.resp.StatusCode != 200 {
			t.Fatalf("detail page %d: %v: %s", d.resp.StatusCode, err, d.body)
		}
		n, _ := res.Count.Int64()
		if page.Resource != res.Resource || page.Count != int(n) || len(page.Records) != int(n) {
			t.Errorf("detail page for %s: %d records, want %d", res.Resource, page.Count, n)
		}
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/ti/resources/no_such_resource?q=x.example", 404},
		{"/ti/resources/ioc_feed", 400},
	} {
		if d := do(t, http.DefaultClient, call{url: srv.URL + tc.path}); d.resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d", tc.path, d.resp.StatusCode, tc.status)
		}
	}
}

// A browser (Accept: text/html) gets the detail page as HTML for a person:
// the records' fields in their order, every value escaped, no script.
func TestSearchDetailPageForABrowser(t *testing.T) {
	srv := httptest.NewServer(NewSearchHandler(Options{}))
	defer srv.Close()
	u := srv.URL + "/ti/resources/malware_samples?q=44d88612fea8a8f36de82e1278abb02f"
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, ct)
	}
	if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Error("no CSP")
	}
	md5 := strings.Index(page, "<th>md5</th><td>44d88612fea8a8f36de82e1278abb02f</td>")
	sha1 := strings.Index(page, "<th>sha1</th>")
	if md5 < 0 || sha1 < md5 || !strings.Contains(page, "lives only as long as the sandbox") {
		t.Errorf("page:\n%s", page)
	}
	if strings.Contains(page, "<script") {
		t.Error("a script in the page")
	}

	esc := detailHTML(detailResponse{Label: `<script>alert(1)</script>`, Query: `"&<>`, Count: 1,
		Records: []json.RawMessage{json.RawMessage(`{"<b>k</b>":"<img src=x onerror=alert(1)>","n":[1,2]}`)}})
	for _, bad := range []string{"<script>", "<b>k", "<img"} {
		if strings.Contains(string(esc.body), bad) {
			t.Errorf("%q reached the page unescaped", bad)
		}
	}
	if !strings.Contains(string(esc.body), "<td>[1,2]</td>") {
		t.Errorf("a non-string value: %s", esc.body)
	}
}
