package sandbox

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestEventsStatuses(t *testing.T) {
	srv := httptest.NewServer(NewEventsHandler(Options{}))
	defer srv.Close()
	me := srv.URL + eventsPath
	tests := []struct {
		name    string
		c       call
		status  int
		code    string
		message string // a substring the message must hold
	}{
		{"bearer", call{url: me, token: DemoToken}, 200, "", ""},
		{"cookie", call{url: me, cookie: DemoToken}, 200, "", ""},
		{"bearer wins over cookie", call{url: me, token: DemoToken, cookie: "stale"}, 200, "", ""},
		{"no credentials", call{url: me}, 401, "unauthorized", "JWT cookie is required"},
		{"empty cookie", call{url: me, headers: map[string]string{"Cookie": "jwt="}}, 401, "unauthorized", "JWT cookie"},
		{"other cookie only", call{url: me, headers: map[string]string{"Cookie": "session=" + DemoToken}}, 401, "unauthorized", "JWT cookie"},
		{"unknown bearer", call{url: me, token: "expired"}, 401, "unauthorized", "invalid"},
		{"unknown cookie", call{url: me, cookie: "expired"}, 401, "unauthorized", "invalid"},
		{"no permission bearer", call{url: me, token: NoPermissionToken}, 403, "forbidden", "permission"},
		{"no permission cookie", call{url: me, cookie: NoPermissionToken}, 403, "forbidden", "permission"},
		{"no event record", call{url: me, token: NoEventsToken}, 404, "not_found", "no event record"},
		{"no event record cookie", call{url: me, cookie: NoEventsToken}, 404, "not_found", "no event record"},
		{"POST", call{method: "POST", url: me, token: DemoToken}, 405, "method_not_allowed", "GET"},
		{"unknown path", call{url: srv.URL + "/api/events", token: DemoToken}, 404, "not_found", ""},
		{"search path on events host", call{url: searchURL(srv.URL, eicarMD5), token: DemoToken}, 404, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := do(t, http.DefaultClient, tt.c)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d: %s", r.resp.StatusCode, tt.status, r.body)
			}
			if tt.status == 200 {
				checkEventsBody(t, r.body)
				return
			}
			checkErrorBody(t, r, tt.status, tt.code)
			if !strings.Contains(string(r.body), tt.message) {
				t.Errorf("message lacks %q: %s", tt.message, r.body)
			}
		})
	}
}

func checkEventsBody(t *testing.T, body []byte) {
	t.Helper()
	var me struct {
		User struct {
			ID, Username, Email string
		} `json:"user"`
		Organization struct {
			ID, Name string
		} `json:"organization"`
		Events []struct {
			ID         string `json:"id"`
			Type       string `json:"type"`
			Severity   string `json:"severity"`
			OccurredAt string `json:"occurred_at"`
		} `json:"events"`
	}
	if err := json.Unmarshal(body, &me); err != nil {
		t.Fatalf("events body: %v: %s", err, body)
	}
	if me.User.ID == "" || me.User.Username == "" || me.Organization.Name == "" || len(me.Events) < 5 {
		t.Fatalf("events body lacks user, organization or events: %s", body)
	}
	ids := map[string]bool{}
	for _, e := range me.Events {
		if e.ID == "" || e.Type == "" || e.Severity == "" || e.OccurredAt == "" || ids[e.ID] {
			t.Errorf("event %+v incomplete or id repeated", e)
		}
		ids[e.ID] = true
	}
}

func TestEventsCustomToken(t *testing.T) {
	srv := httptest.NewServer(NewEventsHandler(Options{Token: "s3cret"}))
	defer srv.Close()
	if r := do(t, http.DefaultClient, call{url: srv.URL + eventsPath, cookie: "s3cret"}); r.resp.StatusCode != 200 {
		t.Errorf("configured token: %d", r.resp.StatusCode)
	}
	r := do(t, http.DefaultClient, call{url: srv.URL + eventsPath, token: DemoToken})
	if r.resp.StatusCode != 401 || strings.Contains(string(r.body), "s3cret") {
		t.Errorf("demo token with a configured token: %d %s", r.resp.StatusCode, r.body)
	}
}
