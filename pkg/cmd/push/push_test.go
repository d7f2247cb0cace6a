package push

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/push"
)

func readAll(r *http.Request) ([]byte, error) { return io.ReadAll(r.Body) }

// eventFile is what -o misp writes for several values (pkg/export's
// golden file): the document push reads.
const eventFile = "../../export/testdata/several.misp.json"

func readDoc(t *testing.T) (map[string]any, []map[string]any) {
	t.Helper()
	data, err := os.ReadFile(eventFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Event map[string]any `json:"Event"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var attrs []map[string]any
	for _, a := range doc.Event["Attribute"].([]any) {
		attrs = append(attrs, a.(map[string]any))
	}
	return doc.Event, attrs
}

type run struct {
	code   int
	out    string
	errOut string
}

// pushTo runs `push misp` on file against the stand-in, with key.
func pushTo(t *testing.T, s *mispStandIn, key, file string, format output.Format, o push.MISPOptions) run {
	t.Helper()
	return pushToCtx(context.Background(), t, s, key, file, format, o)
}

// pushToCtx is pushTo under ctx, which a test cancels as Ctrl-C does.
func pushToCtx(ctx context.Context, t *testing.T, s *mispStandIn, key, file string, format output.Format, o push.MISPOptions) run {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	var debug bytes.Buffer
	opts := &MISPOptions{IO: ios, File: file, MISPOptions: o,
		Format: func() (output.Format, error) { return format, nil },
		Client: func() (*push.MISP, error) {
			c, err := api.New(api.Options{BaseURL: s.srv.URL, Token: key, Retries: 2, Timeout: 5 * time.Second, Debug: &debug,
				Sleep: func(context.Context, time.Duration) error { return nil }}, false)
			if err != nil {
				return nil, err
			}
			return push.NewMISP(c, key, "tilookup-test"), nil
		}}
	err := runMISP(ctx, opts)
	if err != nil && !isReported(err) {
		errOut.WriteString(err.Error())
	}
	if strings.Contains(debug.String(), key) || strings.Contains(out.String()+errOut.String(), key) {
		t.Errorf("the key was printed:\n%s%s%s", debug.String(), out, errOut)
	}
	code := failure.ExitCode(err)
	if rep, ok := err.(*failure.Reported); ok {
		code = rep.Code // as pkg/cli exits
	}
	return run{code: code, out: out.String(), errOut: errOut.String()}
}

func isReported(err error) bool { _, ok := err.(*failure.Reported); return ok }

func TestPushNewEventThenAgain(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	ev, attrs := readDoc(t)
	first := pushTo(t, s, s.key, eventFile, output.Table, push.MISPOptions{})
	if first.code != 0 {
		t.Fatalf("first push: exit %d: %s", first.code, first.errOut)
	}
	want := "event " + ev["uuid"].(string) + " (id 1): " + itoa(len(attrs)) + " attributes added, 0 already there, 0 failed\n"
	if first.out != want {
		t.Errorf("first push said %q, want %q", first.out, want)
	}
	again := pushTo(t, s, s.key, eventFile, output.JSON, push.MISPOptions{})
	var res push.MISPResult
	if err := json.Unmarshal([]byte(again.out), &res); err != nil || again.code != 0 {
		t.Fatalf("second push: exit %d, %q: %v", again.code, again.out, err)
	}
	if res.Added != 0 || res.Existing != len(attrs) || res.EventID != "1" || len(res.Failed) != 0 {
		t.Errorf("second push: %+v, want nothing added and %d there", res, len(attrs))
	}
	exactlyOnce(t, s, attrs)
	if len(s.events) != 1 {
		t.Errorf("%d events, want 1", len(s.events))
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// exactlyOnce: every attribute of the document is on MISP once, nothing
// else is.
func exactlyOnce(t *testing.T, s *mispStandIn, attrs []map[string]any) {
	t.Helper()
	got := s.attributes()
	for _, a := range attrs {
		if n := got[a["uuid"].(string)]; n != 1 {
			t.Errorf("attribute %s (%s) is on MISP %d times, want once", a["uuid"], a["value"], n)
		}
	}
	if len(got) != len(attrs) {
		t.Errorf("MISP holds %d attributes, want %d", len(got), len(attrs))
	}
}

func TestPushAddsOnlyWhatMISPLacks(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	ev, attrs := readDoc(t)
	// MISP has the first attribute by uuid and the second by type and
	// value, under a uuid of its own.
	other := map[string]any{}
	for k, v := range attrs[1] {
		other[k] = v
	}
	other["uuid"] = "0b7a1f1e-0000-4000-8000-000000000001"
	s.seed(ev, []map[string]any{attrs[0], other})
	r := pushTo(t, s, s.key, eventFile, output.JSON, push.MISPOptions{})
	var res push.MISPResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %q: %v", r.code, r.out, err)
	}
	if res.Added != len(attrs)-2 || res.Existing != 2 {
		t.Errorf("%+v, want %d added and 2 there", res, len(attrs)-2)
	}
	if n := s.attributes()[attrs[1]["uuid"].(string)]; n != 0 {
		t.Errorf("an attribute MISP had by type and value was added again")
	}
}

func TestPushReportsWhatMISPDropped(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	_, attrs := readDoc(t)
	bad := attrs[2]["value"].(string)
	const why = "Invalid vulnerability ID format."
	s.refuse[bad] = why
	r := pushTo(t, s, s.key, eventFile, output.JSON, push.MISPOptions{})
	if r.code != failure.ExitNoMatch {
		t.Fatalf("exit %d, want 1: %s", r.code, r.errOut)
	}
	var res push.MISPResult
	_ = json.Unmarshal([]byte(r.out), &res)
	if len(res.Failed) != 1 || res.Failed[0].Value != bad || res.Failed[0].UUID != attrs[2]["uuid"] || !strings.Contains(res.Failed[0].Error, "Could not add Attribute") || !strings.Contains(res.Failed[0].Error, "value: "+why) {
		t.Errorf("failed = %+v, want %s named with MISP's reason (%q)", res.Failed, bad, why)
	}
	if res.Added != len(attrs)-1 {
		t.Errorf("added %d, want %d", res.Added, len(attrs)-1)
	}
	table := pushTo(t, s, s.key, eventFile, output.Table, push.MISPOptions{})
	if table.code != 1 || !strings.Contains(table.errOut, "refused attribute "+attrs[2]["uuid"].(string)) || !strings.Contains(table.errOut, why) || !strings.Contains(table.out, "1 failed") {
		t.Errorf("the table report does not name the refused attribute: %q %q", table.out, table.errOut)
	}
}

// TestPushFaults cuts pushes off with faults at every request, the write
// taking effect or not, and runs each again: in the end every attribute
// is on MISP exactly once.
func TestPushFaults(t *testing.T) {
	api := loadOpenAPI(t)
	_, attrs := readDoc(t)
	for _, tc := range []struct {
		name   string
		status int
		commit bool
		seeded bool
	}{
		{"500 before the write", http.StatusInternalServerError, false, true},
		{"500 after the write", http.StatusInternalServerError, true, true},
		{"503 after the write, retried", http.StatusServiceUnavailable, true, true},
		{"502 on events add after the write, retried", http.StatusBadGateway, true, false},
		{"500 on events add after the write", http.StatusInternalServerError, true, false},
	} {
		stopped := 0
		for at := 1; at <= len(attrs)+1; at++ {
			s := newMISPStandIn(t, api)
			ev, _ := readDoc(t)
			if tc.seeded {
				s.seed(ev, nil)
			}
			fired := false
			s.fault = func(n int, r *http.Request) (int, bool) {
				if r.Method == http.MethodPost && !fired && n > at {
					fired = true
					return tc.status, tc.commit
				}
				return 0, false
			}
			first := pushTo(t, s, s.key, eventFile, output.JSON, push.MISPOptions{})
			if first.code != 0 && first.code != failure.ExitService {
				t.Errorf("%s at %d: exit %d: %s", tc.name, at, first.code, first.errOut)
			}
			if first.code == failure.ExitService {
				stopped++
				if tc.seeded && !strings.Contains(first.errOut, "not sent") && !strings.Contains(first.out, "event") {
					t.Errorf("%s at %d: the push that stopped did not say what it did: %q %q", tc.name, at, first.out, first.errOut)
				}
			}
			second := pushTo(t, s, s.key, eventFile, output.JSON, push.MISPOptions{})
			if second.code != 0 {
				t.Errorf("%s at %d: the re-run: exit %d: %s", tc.name, at, second.code, second.errOut)
			}
			exactlyOnce(t, s, attrs)
		}
		if tc.seeded && tc.status == http.StatusInternalServerError && stopped == 0 {
			t.Errorf("%s: no push was cut off: the faults never fired", tc.name)
		}
	}
}

// TestPushKeyStaysOnItsHost: a redirect to another host does not carry
// the key along.
func TestPushKeyStaysOnItsHost(t *testing.T) {
	other := newMISPStandIn(t, loadOpenAPI(t))
	s := newMISPStandIn(t, loadOpenAPI(t))
	s.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	other.key = s.key
	r := pushTo(t, s, s.key, eventFile, output.Table, push.MISPOptions{})
	if r.code != failure.ExitAuth {
		t.Errorf("exit %d, want 4 (the other host saw no key): %s", r.code, r.errOut)
	}
	host := strings.TrimPrefix(other.srv.URL, "http://")
	if !strings.Contains(r.errOut, "redirected the request to "+host+", another host, and the key was not sent there") || strings.Contains(r.errOut, "refused the key") {
		t.Errorf("the error does not say the request went to another host without the key: %s", r.errOut)
	}
	if len(other.events) != 0 || len(other.requests()) == 0 {
		t.Errorf("the other host got %d requests and %d events", len(other.requests()), len(other.events))
	}
}

func TestPushDryRunWritesNothing(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	ev, attrs := readDoc(t)
	s.seed(ev, attrs[:1])
	r := pushTo(t, s, s.key, eventFile, output.Table, push.MISPOptions{DryRun: true})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	for _, req := range s.requests() {
		if !strings.HasPrefix(req, "GET ") {
			t.Errorf("a dry run sent %s", req)
		}
	}
	for _, a := range attrs[1:] {
		if !strings.Contains(r.out, "would add "+a["type"].(string)+" "+a["value"].(string)+"\n") {
			t.Errorf("the dry run does not say it would add %s", a["value"])
		}
	}
	if !strings.Contains(r.out, itoa(len(attrs)-1)+" attributes would be added, 1 already there") {
		t.Errorf("dry run said %q", r.out)
	}
}

func TestPushPublishesLast(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	ev, attrs := readDoc(t)
	id := s.seed(ev, attrs[:2])
	s.events[id].published = true
	r := pushTo(t, s, s.key, eventFile, output.Table, push.MISPOptions{Publish: true})
	if r.code != 0 || !strings.HasSuffix(r.out, ", published\n") {
		t.Fatalf("exit %d, %q: %s", r.code, r.out, r.errOut)
	}
	reqs := s.requests()
	if last := reqs[len(reqs)-1]; last != "POST /events/publish/"+id {
		t.Errorf("the last request was %s, want the publish", last)
	}
	if !s.events[id].published {
		t.Error("the event is not published")
	}
}

func TestPushToAnotherEvent(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	_, attrs := readDoc(t)
	id := s.seed(map[string]any{"uuid": "5e0c1c2e-6d1a-4f55-9a55-111111111111", "info": "case 42"}, nil)
	r := pushTo(t, s, s.key, eventFile, output.JSON, push.MISPOptions{Event: id})
	var res push.MISPResult
	if err := json.Unmarshal([]byte(r.out), &res); err != nil || r.code != 0 || res.EventID != id || res.Added != len(attrs) {
		t.Fatalf("exit %d, %q", r.code, r.out)
	}
	if len(s.events) != 1 {
		t.Error("--event created an event")
	}
	missing := pushTo(t, s, s.key, eventFile, output.JSON, push.MISPOptions{Event: "999"})
	if missing.code != failure.ExitNotFound {
		t.Errorf("--event 999: exit %d, want 5", missing.code)
	}
}

func TestPushExitCodes(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	dir := t.TempDir()
	notEvent := filepath.Join(dir, "x.json")
	if err := os.WriteFile(notEvent, []byte(`{"type": "bundle", "objects": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := pushTo(t, s, s.key, notEvent, output.Table, push.MISPOptions{}); r.code != failure.ExitUsage {
		t.Errorf("not an event: exit %d, want 2", r.code)
	}
	if r := pushTo(t, s, "refused-key-0123456789", eventFile, output.Table, push.MISPOptions{}); r.code != failure.ExitAuth || !strings.Contains(r.errOut, "Authentication failed") {
		t.Errorf("refused key: exit %d, want 4: %s", r.code, r.errOut)
	}
	s.fault = func(int, *http.Request) (int, bool) { return http.StatusInternalServerError, false }
	if r := pushTo(t, s, s.key, eventFile, output.Table, push.MISPOptions{}); r.code != failure.ExitService {
		t.Errorf("a failing instance: exit %d, want 6", r.code)
	}
	if len(s.events) != 0 {
		t.Error("a refused push wrote")
	}
}

// TestMISPStandInRefusesAsMISPDoes: no Accept is a redirect to the login
// page, a second event with the same uuid is refused, and so is a
// similar attribute.
func TestMISPStandInRefusesAsMISPDoes(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/events/view/1", nil)
	req.Header.Set("Authorization", s.key)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("without Accept: %d, want 302", resp.StatusCode)
	}
	ev, _ := readDoc(t)
	s.seed(ev, nil)
	if status, _ := s.post(t, "/events/add", ev); status != http.StatusForbidden {
		t.Errorf("a second event with the same uuid: %d, want 403", status)
	}
	// A similar attribute (type, value and category of one the event
	// has) under another uuid is refused, with MISP's reason.
	_, attrs := readDoc(t)
	id := s.seed(map[string]any{"uuid": "5e0c1c2e-6d1a-4f55-9a55-222222222222", "info": "case"}, attrs[:1])
	similar := map[string]any{}
	for k, v := range attrs[0] {
		similar[k] = v
	}
	similar["uuid"] = "0b7a1f1e-0000-4000-8000-000000000002"
	if status, answer := s.post(t, "/attributes/add/"+id, similar); status != http.StatusForbidden || !strings.Contains(answer, "A similar attribute already exists for this event.") {
		t.Errorf("a similar attribute: %d %s, want 403 and MISP's reason", status, answer)
	}
}

// post sends v to the stand-in as push does (the key, JSON both ways) and
// returns the status and body of its answer.
func (s *mispStandIn) post(t *testing.T, path string, v any) (int, string) {
	t.Helper()
	body, _ := json.Marshal(v)
	req, _ := http.NewRequest(http.MethodPost, s.srv.URL+path, bytes.NewReader(body))
	req.Header.Set("Authorization", s.key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(answer)
}

// TestMISPStandInChecksTheAPIDescription: a body that breaks MISP's
// schema is caught, so that the tests above prove push's are right.
func TestMISPStandInChecksTheAPIDescription(t *testing.T) {
	api := loadOpenAPI(t)
	for _, tc := range []struct{ method, path, body string }{
		{"POST", "/events/add", `{"info": "x", "distribution": 7}`},
		{"POST", "/events/add", `{"info": "x", "Attribute": [{"type": "no-such-type", "value": "x"}]}`},
		{"POST", "/attributes/add/12", `{"type": "ip-src", "value": "192.0.2.1", "to_ids": "yes"}`},
		{"GET", "/events/view/not-an-id", ``},
		{"PATCH", "/events/add", `{}`},
	} {
		req, _ := http.NewRequest(tc.method, "http://misp.test"+tc.path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		if msg := api.check(req, []byte(tc.body)); msg == "" {
			t.Errorf("%s %s %s passed the check", tc.method, tc.path, tc.body)
		}
	}
}

// TestPushNeedsURLAndKey: exit 3 without a URL or a key, and the lookup
// service's token is never taken for MISP's key.
func TestPushNeedsURLAndKey(t *testing.T) {
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	t.Setenv("TILOOKUP_TOKEN", "lookup-token-0123456789")
	t.Setenv("TILOOKUP_MISP_URL", "")
	t.Setenv(EnvMISPKey, "")
	ios, _, _, _ := iostreams.Test()
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}, Keyring: emptyKeyring{}}
	if _, err := mispClient(f); failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "no MISP URL") {
		t.Errorf("no URL: %v", err)
	}
	t.Setenv("TILOOKUP_MISP_URL", "https://misp.example")
	f = &online.Factory{Factory: &cmdutil.Factory{IO: ios}, Keyring: emptyKeyring{}}
	if _, err := mispClient(f); failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "no MISP key for misp.example") {
		t.Errorf("no key: %v", err)
	}
	t.Setenv("TILOOKUP_MISP_URL", "http://misp.example")
	t.Setenv(EnvMISPKey, "misp-key-0123456789")
	f = &online.Factory{Factory: &cmdutil.Factory{IO: ios}, Keyring: emptyKeyring{}}
	if _, err := mispClient(f); failure.ExitCode(err) != failure.ExitConfig {
		t.Errorf("a key over plain http: %v", err)
	}
}

type emptyKeyring struct{}

func (emptyKeyring) Get(string, string) (string, error) { return "", credentials.ErrNotFound }
func (emptyKeyring) Set(string, string, string) error   { return nil }
func (emptyKeyring) Delete(string, string) error        { return nil }

// TestCheckMISPKey: auth login's check asks misp_url's MISP with the key
// given, and tells a refused key (403 "Authentication failed") apart.
func TestCheckMISPKey(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	t.Setenv("TILOOKUP_MISP_URL", s.srv.URL)
	t.Setenv(EnvMISPKey, "")
	ios, _, _, _ := iostreams.Test()
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}, Keyring: emptyKeyring{}}
	if err := CheckMISPKey(context.Background(), f, s.key); err != nil {
		t.Errorf("the right key: %v", err)
	}
	err := CheckMISPKey(context.Background(), f, "refused-key-0123456789")
	if failure.KindOf(err) != failure.Auth || !strings.Contains(err.Error(), "Authentication failed") {
		t.Errorf("a refused key: %v", err)
	}
	if reqs := s.requests(); len(reqs) != 2 || reqs[0] != "GET /users/view/me" {
		t.Errorf("requests %v, want GET /users/view/me twice", reqs)
	}
}

// runDocument writes the -o misp document of one run over the values of
// eventFile (a new event each time, as every run is), to a file.
func runDocument(t *testing.T, attrs []map[string]any) string {
	t.Helper()
	var run export.MISPRun
	for _, a := range attrs {
		if a["type"] == "link" {
			continue // a detail page: written from a finding's matches
		}
		typ := map[string]ioc.Type{"ip-dst": ioc.IPv4, "vulnerability": ioc.CVE}[a["type"].(string)]
		if typ == "" {
			typ = ioc.Type(a["type"].(string))
		}
		run.Findings = append(run.Findings, export.Finding{Value: a["value"].(string), Type: typ})
	}
	var b bytes.Buffer
	if err := export.MISPEvent(&b, run, export.MISPOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPushSecondRun: a second run of the same values is a new event whose
// attributes MISP takes, although -o misp names a value's attribute the
// same in every run and MISP keeps attribute uuids unique across the
// instance (push adds them under uuids of that event's own), and pushing
// it again adds nothing; added to the first event with --event it adds
// nothing, MISP holding each value already.
func TestPushSecondRun(t *testing.T) {
	s := newMISPStandIn(t, loadOpenAPI(t))
	_, attrs := readDoc(t)
	first, second := runDocument(t, attrs), runDocument(t, attrs)
	r := pushTo(t, s, s.key, first, output.JSON, push.MISPOptions{})
	var one push.MISPResult
	if err := json.Unmarshal([]byte(r.out), &one); err != nil || r.code != 0 || one.Added == 0 {
		t.Fatalf("first run: exit %d, %q %s", r.code, r.out, r.errOut)
	}
	again := pushTo(t, s, s.key, second, output.JSON, push.MISPOptions{Event: one.EventID})
	var res push.MISPResult
	if err := json.Unmarshal([]byte(again.out), &res); err != nil || again.code != 0 {
		t.Fatalf("second run into event %s: exit %d, %q %s", one.EventID, again.code, again.out, again.errOut)
	}
	if res.Added != 0 || res.Existing != one.Added || len(res.Failed) != 0 {
		t.Errorf("second run into event %s: %+v, want nothing added and %d there", one.EventID, res, one.Added)
	}
	apart := pushTo(t, s, s.key, second, output.JSON, push.MISPOptions{})
	var two push.MISPResult
	if err := json.Unmarshal([]byte(apart.out), &two); err != nil || apart.code != 0 || two.Added != one.Added || two.EventID == one.EventID {
		t.Errorf("second run as its own event: exit %d, %q %s; want %d added to a new event", apart.code, apart.out, apart.errOut, one.Added)
	}
	rerun := pushTo(t, s, s.key, second, output.JSON, push.MISPOptions{})
	var three push.MISPResult
	if err := json.Unmarshal([]byte(rerun.out), &three); err != nil || rerun.code != 0 || three.Added != 0 || three.Existing != one.Added || three.EventID != two.EventID {
		t.Errorf("second run pushed again: exit %d, %q %s; want nothing added to event %s", rerun.code, rerun.out, rerun.errOut, two.EventID)
	}
	for u, n := range s.attributes() {
		if n != 1 {
			t.Errorf("attribute uuid %s is on MISP %d times", u, n)
		}
	}
}

// TestPushMISPInterrupted: Ctrl-C at any request of a push ends it as an
// interrupted run (exit 130, the "interrupted: …; to go on" line saying
// what was added and what was not sent), and the same push run again
// completes it.
func TestPushMISPInterrupted(t *testing.T) {
	api := loadOpenAPI(t)
	_, attrs := readDoc(t)
	// GET the event, POST it, then each refused attribute alone, the
	// view after the refusals, the publish: one of each stage.
	for at := 1; at <= 5; at++ {
		s := newMISPStandIn(t, api)
		s.refuse[attrs[1]["value"].(string)] = "Invalid value."
		ctx, cancel := context.WithCancel(context.Background())
		s.fault = func(n int, r *http.Request) (int, bool) {
			if n == at {
				cancel()
				// Answer once the client has given up, as after a Ctrl-C
				// mid-request: else the answer may beat the cancel.
				<-r.Context().Done()
			}
			return 0, false
		}
		r := pushToCtx(ctx, t, s, s.key, eventFile, output.Table, push.MISPOptions{Publish: true})
		cancel()
		if r.code != failure.ExitInterrupted || !strings.HasPrefix(r.errOut, "interrupted: event ") || !strings.Contains(r.errOut, "not sent; to go on, run the same push again") {
			t.Errorf("Ctrl-C at request %d (%s): exit %d, %q %q", at, s.requests()[at-1], r.code, r.out, r.errOut)
		}
		// The request Ctrl-C cut off may still be in the stand-in's hands.
		s.mu.Lock()
		s.fault = nil
		s.refuse = map[string]string{}
		s.mu.Unlock()
		if again := pushTo(t, s, s.key, eventFile, output.Table, push.MISPOptions{Publish: true}); again.code != 0 {
			t.Errorf("Ctrl-C at request %d: the re-run: exit %d, %s", at, again.code, again.errOut)
		}
		exactlyOnce(t, s, attrs)
	}
}

// brokenKeyring fails as a keyring that cannot be reached does.
type brokenKeyring struct{}

func (brokenKeyring) Get(string, string) (string, error) {
	return "", errors.New("the keyring daemon is gone")
}
func (brokenKeyring) Set(string, string, string) error {
	return errors.New("the keyring daemon is gone")
}
func (brokenKeyring) Delete(string, string) error { return errors.New("the keyring daemon is gone") }

// TestPushCredentialAdvice: with no secret for the platform, whether the
// keyring has none or cannot be read, push names the platform's own
// variable and `auth login --host` with the platform's host, never
// TILOOKUP_TOKEN (which never goes to MISP or TAXII).
func TestPushCredentialAdvice(t *testing.T) {
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	t.Setenv("TILOOKUP_TOKEN", "")
	t.Setenv("TILOOKUP_MISP_URL", "https://misp.example")
	t.Setenv("TILOOKUP_TAXII_URL", "https://taxii.example/api1/")
	t.Setenv("TILOOKUP_TAXII_COLLECTION", writableCollection)
	for _, k := range []string{EnvMISPKey, EnvTAXIIToken, EnvTAXIIUser, EnvTAXIIPassword} {
		t.Setenv(k, "")
	}
	ios, _, _, _ := iostreams.Test()
	for _, kr := range []credentials.Keyring{emptyKeyring{}, brokenKeyring{}} {
		f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}, Keyring: kr}
		check := func(what string, err error, env, host string) {
			t.Helper()
			msg := err.Error()
			if failure.ExitCode(err) != failure.ExitConfig || strings.Contains(msg, "TILOOKUP_TOKEN") ||
				!strings.Contains(msg, env) || !strings.Contains(msg, "tilookup auth login --host "+host) {
				t.Errorf("%T, %s: %v; want exit 3 naming %s and auth login --host %s, not TILOOKUP_TOKEN", kr, what, err, env, host)
			}
		}
		_, err := mispClient(f)
		check("MISP key", err, EnvMISPKey, "misp.example")
		_, err = taxiiClient(f)
		check("TAXII token", err, EnvTAXIIToken, "taxii.example")
		t.Setenv(EnvTAXIIUser, "analyst")
		_, err = taxiiClient(f)
		check("TAXII password", err, EnvTAXIIPassword, "taxii.example")
		t.Setenv(EnvTAXIIUser, "")
	}
}
