package push

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// openAPI is MISP's own description of its REST API, read once: the
// operations it has, and the JSON schemas of their request bodies and
// path parameters.
type openAPI struct {
	ops      []operation
	compiler *jsonschema.Compiler
}

type operation struct {
	method  string
	path    string
	pattern *regexp.Regexp
	params  []string        // the path parameters' names, in order
	body    string          // JSON pointer of the request body's schema, "" when none
	schemas map[string]bool // the path parameters that have a schema
}

// loadOpenAPI reads testdata/misp/openapi.yaml and makes its schemas
// compilable as JSON Schema: OpenAPI 3.0's nullable becomes a "null" type.
func loadOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	data, err := os.ReadFile("testdata/misp/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	nullable(doc)
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(js)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	if err := c.AddResource("openapi.json", inst); err != nil {
		t.Fatal(err)
	}
	api := &openAPI{compiler: c}
	paths := doc["paths"].(map[string]any)
	param := regexp.MustCompile(`\\\{([^}]+)\\\}`)
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			o := operation{method: strings.ToUpper(method), path: path, schemas: map[string]bool{}}
			re := param.ReplaceAllStringFunc(regexp.QuoteMeta(path), func(m string) string {
				o.params = append(o.params, strings.Trim(m, `\{}`))
				return `([^/]+)`
			})
			o.pattern = regexp.MustCompile("^" + re + "$")
			opm, _ := op.(map[string]any)
			if rb, ok := opm["requestBody"].(map[string]any); ok {
				if ref, ok := rb["$ref"].(string); ok {
					o.body = ref + "/content/application~1json/schema"
				}
			}
			if ps, ok := opm["parameters"].([]any); ok {
				for _, p := range ps {
					if ref, ok := p.(map[string]any)["$ref"].(string); ok {
						name := strings.TrimSuffix(strings.TrimPrefix(ref, "#/components/parameters/"), "Parameter")
						o.schemas[name] = true
					}
				}
			}
			api.ops = append(api.ops, o)
		}
	}
	return api
}

// nullable rewrites {"nullable": true, "type": T} as {"type": [T, "null"]}.
func nullable(v any) {
	switch x := v.(type) {
	case map[string]any:
		if n, _ := x["nullable"].(bool); n {
			if t, ok := x["type"].(string); ok {
				x["type"] = []any{t, "null"}
			}
		}
		for _, c := range x {
			nullable(c)
		}
	case []any:
		for _, c := range x {
			nullable(c)
		}
	}
}

// check finds the operation of r and validates its path parameters and
// body; it returns what is wrong, "" when nothing is.
func (a *openAPI) check(r *http.Request, body []byte) string {
	for _, o := range a.ops {
		m := o.pattern.FindStringSubmatch(r.URL.Path)
		if m == nil || o.method != r.Method {
			continue
		}
		for i, name := range o.params {
			if !o.schemas[name] {
				continue
			}
			if err := a.validate("#/components/parameters/"+name+"Parameter/schema", m[i+1]); err != "" {
				return "path parameter " + name + ": " + err
			}
		}
		if o.body == "" {
			return ""
		}
		if r.Header.Get("Content-Type") != "application/json" {
			return "Content-Type is not application/json"
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(body)))
		if err != nil {
			return "the body is not JSON: " + err.Error()
		}
		if msg := a.validateValue(o.body, inst); msg != "" {
			return msg
		}
		// The event's schema leaves Attribute out; each one is checked
		// against the attribute's own.
		if obj, ok := inst.(map[string]any); ok {
			if list, ok := obj["Attribute"].([]any); ok {
				for _, at := range list {
					if msg := a.validateValue("#/components/schemas/AttributeNoId", at); msg != "" {
						return "Attribute: " + msg
					}
				}
			}
		}
		return ""
	}
	return fmt.Sprintf("no operation %s %s in openapi.yaml", r.Method, r.URL.Path)
}

func (a *openAPI) validate(ptr, s string) string { return a.validateValue(ptr, s) }

func (a *openAPI) validateValue(ptr string, v any) string {
	sch, err := a.compiler.Compile("openapi.json" + ptr)
	if err != nil {
		return "schema " + ptr + ": " + err.Error()
	}
	if err := sch.Validate(v); err != nil {
		return err.Error()
	}
	return ""
}

// mispStandIn is a MISP instance as far as push reaches it: events and
// their attributes, and MISP's answers to what it refuses.
type mispStandIn struct {
	t    *testing.T
	api  *openAPI
	key  string
	srv  *httptest.Server
	mu   sync.Mutex
	next int
	// events by id; byUUID maps an event uuid to its id.
	events map[string]*standInEvent
	byUUID map[string]string
	// refuse holds values MISP refuses as attributes, with MISP's
	// reason: /events/add drops them silently, /attributes/add answers
	// 403 with the reason in "errors".
	refuse map[string]string
	// fault, when set, may answer a request itself (after it took
	// effect when commit is true): n counts the requests, from 1.
	fault func(n int, r *http.Request) (status int, commit bool)
	n     int
	log   []string // "METHOD path" of every request
	bad   []string // requests that broke the API description
}

type standInEvent struct {
	fields    map[string]any
	attrs     []map[string]any
	published bool
}

func newMISPStandIn(t *testing.T, api *openAPI) *mispStandIn {
	s := &mispStandIn{t: t, api: api, key: "misp-key-0123456789abcdef", events: map[string]*standInEvent{},
		byUUID: map[string]string{}, refuse: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	t.Cleanup(func() {
		for _, b := range s.bad {
			t.Errorf("the MISP stand-in saw a request MISP's API description refuses: %s", b)
		}
	})
	return s
}

func (s *mispStandIn) answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(name, path string) map[string]any {
	return map[string]any{"name": name, "message": name, "url": path}
}

func (s *mispStandIn) serve(w http.ResponseWriter, r *http.Request) {
	body := make([]byte, 0)
	if r.Body != nil {
		var err error
		body, err = readAll(r)
		if err != nil {
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.log = append(s.log, r.Method+" "+r.URL.Path)
	if !strings.Contains(r.Header.Get("Accept"), "application/json") {
		http.Redirect(w, r, "/users/login", http.StatusFound)
		return
	}
	if r.Header.Get("Authorization") != s.key {
		s.answer(w, http.StatusForbidden, apiError("Authentication failed. Please make sure you pass the API key of an API enabled user along in the Authorization header.", r.URL.Path))
		return
	}
	if r.Method == http.MethodGet && r.URL.Path == "/users/view/me" {
		// MISP serves it (UsersController::view('me')), though its
		// openapi.yaml leaves it out: auth login checks a key with it.
		s.answer(w, http.StatusOK, map[string]any{"User": map[string]any{"id": "1", "email": "admin@admin.test"}})
		return
	}
	if msg := s.api.check(r, body); msg != "" {
		s.bad = append(s.bad, r.Method+" "+r.URL.Path+": "+msg)
		s.answer(w, http.StatusBadRequest, apiError(msg, r.URL.Path))
		return
	}
	status, commit := 0, false
	if s.fault != nil {
		status, commit = s.fault(s.n, r)
	}
	faulty(w, status, commit,
		func(w http.ResponseWriter) { s.answer(w, status, apiError("Internal error", r.URL.Path)) },
		func(w http.ResponseWriter) { s.handle(w, r, body) })
}

// faulty answers a request as a stand-in's fault says: with status
// (fail's answer) before the request takes effect, or after it when
// commit (the handler's answer is then lost); with no fault (status 0),
// the handler's answer.
func faulty(w http.ResponseWriter, status int, commit bool, fail, handle func(http.ResponseWriter)) {
	if status != 0 && !commit {
		fail(w)
		return
	}
	rec := httptest.NewRecorder()
	handle(rec)
	if status != 0 {
		fail(w)
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (s *mispStandIn) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "events" && parts[1] == "view":
		ev := s.find(parts[2])
		if ev == nil {
			s.answer(w, http.StatusNotFound, apiError("Invalid event.", r.URL.Path))
			return
		}
		s.answer(w, http.StatusOK, map[string]any{"Event": ev.view()})
	case r.Method == http.MethodPost && r.URL.Path == "/events/add":
		var fields map[string]any
		_ = json.Unmarshal(body, &fields)
		if _, dup := s.byUUID[fields["uuid"].(string)]; dup {
			s.answer(w, http.StatusForbidden, apiError("Event already exists, if you would like to edit it, use the url in the location header.", r.URL.Path))
			return
		}
		s.next++
		id := strconv.Itoa(s.next)
		fields["id"] = id
		list, _ := fields["Attribute"].([]any)
		delete(fields, "Attribute")
		ev := &standInEvent{fields: fields}
		for _, a := range list {
			m := a.(map[string]any)
			if s.refusal(ev, m) != nil {
				continue // dropped without a word, as MISP does
			}
			ev.attrs = append(ev.attrs, m)
		}
		s.events[id] = ev
		s.byUUID[fields["uuid"].(string)] = id
		s.answer(w, http.StatusOK, map[string]any{"Event": ev.view()})
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "attributes" && parts[1] == "add":
		ev := s.find(parts[2])
		if ev == nil {
			s.answer(w, http.StatusNotFound, apiError("Invalid event.", r.URL.Path))
			return
		}
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		if why := s.refusal(ev, m); why != nil {
			e := apiError("Could not add Attribute", r.URL.Path)
			e["saved"] = false
			e["errors"] = why
			s.answer(w, http.StatusForbidden, e)
			return
		}
		ev.attrs = append(ev.attrs, m)
		ev.published = false // adding an attribute unpublishes the event
		s.answer(w, http.StatusOK, map[string]any{"Attribute": m})
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "events" && parts[1] == "publish":
		ev := s.find(parts[2])
		if ev == nil {
			s.answer(w, http.StatusNotFound, apiError("Invalid event.", r.URL.Path))
			return
		}
		ev.published = true
		s.answer(w, http.StatusOK, apiError("Job queued", r.URL.Path))
	default:
		s.answer(w, http.StatusNotFound, apiError("not served by the stand-in", r.URL.Path))
	}
}

func (s *mispStandIn) find(idOrUUID string) *standInEvent {
	if id, ok := s.byUUID[strings.ToLower(idOrUUID)]; ok {
		idOrUUID = id
	}
	return s.events[idOrUUID]
}

// refusal is MISP's validation of a new attribute of ev, as its
// "errors" (field → messages); nil when MISP takes it. MISP refuses an
// invalid value, a uuid another attribute has anywhere on the instance,
// and a "similar attribute": the same type, value and category in the
// same event (Attribute::valueIsUnique).
func (s *mispStandIn) refusal(ev *standInEvent, m map[string]any) map[string]any {
	if why, ok := s.refuse[m["value"].(string)]; ok {
		return map[string]any{"value": []string{why}}
	}
	if s.hasUUID(m["uuid"]) {
		return map[string]any{"uuid": []string{"The UUID provided is not unique"}}
	}
	for _, a := range ev.attrs {
		if a["type"] == m["type"] && a["value"] == m["value"] && a["category"] == m["category"] {
			return map[string]any{"value": []string{"A similar attribute already exists for this event."}}
		}
	}
	return nil
}

// hasUUID: MISP keeps attribute uuids unique across the instance.
func (s *mispStandIn) hasUUID(u any) bool {
	for _, ev := range s.events {
		for _, a := range ev.attrs {
			if a["uuid"] == u {
				return true
			}
		}
	}
	return false
}

func (ev *standInEvent) view() map[string]any {
	out := map[string]any{}
	for k, v := range ev.fields {
		out[k] = v
	}
	out["published"] = ev.published
	attrs := make([]any, len(ev.attrs))
	for i, a := range ev.attrs {
		attrs[i] = a
	}
	out["Attribute"] = attrs
	return out
}

// seed stores an event as if MISP had it already, with the attributes
// given.
func (s *mispStandIn) seed(fields map[string]any, attrs []map[string]any) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	id := strconv.Itoa(s.next)
	f := map[string]any{"id": id}
	for k, v := range fields {
		if k != "Attribute" {
			f[k] = v
		}
	}
	s.events[id] = &standInEvent{fields: f, attrs: attrs}
	s.byUUID[f["uuid"].(string)] = id
	return id
}

// attributes counts each attribute uuid over every event.
func (s *mispStandIn) attributes() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := map[string]int{}
	for _, ev := range s.events {
		for _, a := range ev.attrs {
			n[a["uuid"].(string)]++
		}
	}
	return n
}

func (s *mispStandIn) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}
