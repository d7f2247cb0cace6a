package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Values the demo data is built around (see data/gen).
const (
	eicarMD5    = "44d88612fea8a8f36de82e1278abb02f"
	eicarSHA1   = "3395856ce81f2b7382dee72602f798b642f14140"
	eicarSHA256 = "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f"
	eicarSHA512 = "cc805d5fab1fd71a4ab352a9c533e65fb2d5b885518f4e565e68847223b8e6b85cb48f3afad842726d99239c9e36505c64b0dc9a061d9e507d833277ada336ab"
	hotIPv4     = "203.0.113.66"
	hotIPv6     = "2001:db8:bad:c0de::66"
	hotDomain   = "login-update.example.net"
	hotEmail    = "billing@invoice-portal.example.com"
	hotURL      = "https://login-update.example.net/secure login/verify.php?acct=42&ref=mail%20link#step 2"
)

// call is one request for the test helpers.
type call struct {
	method  string
	url     string
	token   string // bearer; "" sends none
	cookie  string // jwt cookie; "" sends none
	fault   string // FaultHeader; "" sends none
	headers map[string]string
}

type result struct {
	resp    *http.Response
	body    []byte
	err     error // from the round trip
	readErr error // from reading the body
	elapsed time.Duration
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func do(t *testing.T, client *http.Client, c call) result {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodGet
	}
	req, err := http.NewRequest(c.method, c.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: EventsCookie, Value: c.cookie})
	}
	if c.fault != "" {
		req.Header.Set(FaultHeader, c.fault)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := client.Do(req)
	r := result{resp: resp, err: err}
	if err == nil {
		r.body, r.readErr = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	r.elapsed = time.Since(start)
	return r
}

func searchURL(base, q string, extra ...string) string {
	u := base + searchPath + "?q=" + url.QueryEscape(q)
	for _, e := range extra {
		u += "&" + e
	}
	return u
}

// decodeSearch decodes a search body keeping numbers exact.
func decodeSearch(t *testing.T, body []byte) searchAnswerJSON {
	t.Helper()
	var out searchAnswerJSON
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("search body is not the expected JSON: %v\n%s", err, body)
	}
	return out
}

// searchAnswerJSON is the client's view of a search answer, independent of
// the server's own structs so that a renamed field breaks the tests.
type searchAnswerJSON struct {
	Query             *string `json:"query"`
	DetectedType      string  `json:"detected_type"`
	Strategy          string  `json:"strategy"`
	UnsupportedReason *string `json:"unsupported_reason"`
	Results           []struct {
		Resource      string           `json:"resource"`
		Label         string           `json:"label"`
		Group         string           `json:"group"`
		MatchedColumn string           `json:"matched_column"`
		MatchedValue  string           `json:"matched_value"`
		Count         json.Number      `json:"count"`
		Preview       []map[string]any `json:"preview"`
		DetailURL     string           `json:"detail_url"`
	} `json:"results"`
}

// checkErrorBody asserts the documented error shape.
func checkErrorBody(t *testing.T, r result, status int, code string) {
	t.Helper()
	if ct := r.resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type = %q, want application/json", ct)
	}
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Status  int    `json:"status"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, r.body)
	}
	if e.Error.Status != status || e.Error.Message == "" || (code != "" && e.Error.Code != code) {
		t.Errorf("error body = %s, want status %d, code %q and a message", r.body, status, code)
	}
}

func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts, "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}
