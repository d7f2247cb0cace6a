package push

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// taxiiStandIn is a TAXII 2.1 server as far as push reaches it: one API
// root, its collections and status resources, and the refusals of the
// specification as the reference server (medallion) makes them, checked
// in medallion's order: credentials (401), Accept (406), the collection
// (404), Content-Type (415), can_write (403), Content-Length (400 when
// missing, 413 over max_content_length).
type taxiiStandIn struct {
	t    *testing.T
	srv  *httptest.Server
	root string // the API root's path, "/api1/"
	// Either a bearer token, or a user and password for HTTP basic.
	token, user, password string
	max                   int64 // max_content_length
	// enforced, when set, is the bound the server really applies: a
	// server that says more than it takes.
	enforced int64

	mu          sync.Mutex
	collections map[string]*standInCollection
	statuses    map[string]*standInStatus
	// pendingPolls is how many GETs of a status answer pending before
	// it is complete.
	pendingPolls int
	// reject holds object ids the server fails, with its message.
	reject map[string]string
	// fault, when set, may answer a request itself (after it took effect
	// when commit is true): n counts the requests, from 1.
	fault  func(n int, r *http.Request) (status int, commit bool, header http.Header)
	n      int
	log    []string // "METHOD path" of every request
	bodies []int    // the length of every add's body
}

type standInCollection struct {
	canWrite bool
	// objects counts each object held, by id and modified.
	objects map[string]int
}

type standInStatus struct {
	polls    int
	complete map[string]any // the status resource once complete
	pending  map[string]any // what it says until then
}

// The collections the stand-in serves.
const (
	writableCollection = "91a7b528-80eb-42ed-a74d-c6fbd5a26116"
	readOnlyCollection = "52892447-4d7e-4f70-b94d-d7f22742ff63"
)

func newTAXIIStandIn(t *testing.T) *taxiiStandIn {
	s := &taxiiStandIn{t: t, root: "/api1/", token: "taxii-token-0123456789abcdef", max: 10 << 20,
		collections: map[string]*standInCollection{
			writableCollection: {canWrite: true, objects: map[string]int{}},
			readOnlyCollection: {canWrite: false, objects: map[string]int{}},
		},
		statuses: map[string]*standInStatus{}, reject: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *taxiiStandIn) url() string { return s.srv.URL + s.root }

// taxiiError answers as medallion does: a TAXII error message.
func taxiiError(w http.ResponseWriter, status int, description string, header http.Header) {
	for k, v := range header {
		w.Header()[k] = v
	}
	taxiiAnswer(w, status, map[string]any{"title": "ProcessingError", "http_status": strconv.Itoa(status), "description": description})
}

func taxiiAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/taxii+json;version=2.1")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// mediaOK is medallion's test of Accept and Content-Type: one of the
// comma-separated types is application/taxii+json, with version 2.1 if a
// version is given.
var mediaRE = regexp.MustCompile(`^application/taxii\+json(;version=(\d\.\d))?$`)

func mediaOK(header string) bool {
	for _, item := range strings.Split(strings.ReplaceAll(header, " ", ""), ",") {
		if m := mediaRE.FindStringSubmatch(item); m != nil {
			return m[2] == "" || m[2] == "2.1"
		}
	}
	return false
}

func (s *taxiiStandIn) authorized(r *http.Request) bool {
	got := r.Header.Get("Authorization")
	if s.user != "" {
		return got == "Basic "+base64.StdEncoding.EncodeToString([]byte(s.user+":"+s.password))
	}
	return got == "Bearer "+s.token
}

func (s *taxiiStandIn) serve(w http.ResponseWriter, r *http.Request) {
	body, err := readAll(r)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.log = append(s.log, r.Method+" "+r.URL.Path)
	if !s.authorized(r) {
		taxiiError(w, http.StatusUnauthorized, "Unauthorized Access", http.Header{"Www-Authenticate": {`Bearer realm="taxii", Basic realm="taxii"`}})
		return
	}
	if !mediaOK(r.Header.Get("Accept")) {
		taxiiError(w, http.StatusNotAcceptable, "Media type in the Accept header is invalid or not found", nil)
		return
	}
	status, commit, header := 0, false, http.Header(nil)
	if s.fault != nil {
		status, commit, header = s.fault(s.n, r)
	}
	faulty(w, status, commit,
		func(w http.ResponseWriter) {
			if status == reset {
				s.reset(w)
				return
			}
			taxiiError(w, status, "the stand-in's fault", header)
		},
		func(w http.ResponseWriter) { s.handle(w, r, body) })
}

// reset is a fault's status that closes the connection with no answer.
const reset = -1

func (s *taxiiStandIn) reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		s.t.Error(err)
		return
	}
	conn.Close()
}

func (s *taxiiStandIn) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	rest, ok := strings.CutPrefix(r.URL.Path, s.root)
	if !ok {
		taxiiError(w, http.StatusNotFound, "API root not found", nil)
		return
	}
	parts := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	switch {
	case r.Method == http.MethodGet && rest == "":
		taxiiAnswer(w, http.StatusOK, map[string]any{"title": "stand-in", "versions": []string{"application/taxii+json;version=2.1"},
			"max_content_length": s.max})
	case len(parts) == 2 && parts[0] == "status" && r.Method == http.MethodGet:
		st, ok := s.statuses[parts[1]]
		if !ok {
			taxiiError(w, http.StatusNotFound, "Status '"+parts[1]+"' not found", nil)
			return
		}
		st.polls++
		if st.polls > s.pendingPolls {
			taxiiAnswer(w, http.StatusOK, st.complete)
		} else {
			taxiiAnswer(w, http.StatusOK, st.pending)
		}
	case len(parts) >= 2 && parts[0] == "collections":
		c, ok := s.collections[parts[1]]
		if !ok {
			taxiiError(w, http.StatusNotFound, "Collection '"+parts[1]+"' not found", nil)
			return
		}
		switch {
		case len(parts) == 2 && r.Method == http.MethodGet:
			taxiiAnswer(w, http.StatusOK, map[string]any{"id": parts[1], "title": "stand-in", "can_read": true, "can_write": c.canWrite,
				"media_types": []string{"application/stix+json;version=2.1"}})
		case len(parts) == 3 && parts[2] == "objects" && r.Method == http.MethodPost:
			s.add(w, r, c, body)
		default:
			taxiiError(w, http.StatusMethodNotAllowed, "not served by the stand-in", nil)
		}
	default:
		taxiiError(w, http.StatusNotFound, "not served by the stand-in", nil)
	}
}

// add is Add Objects: the write's checks, then each object stored once
// per id and modified, and a 202 with a status resource.
func (s *taxiiStandIn) add(w http.ResponseWriter, r *http.Request, c *standInCollection, body []byte) {
	if !mediaOK(r.Header.Get("Content-Type")) {
		taxiiError(w, http.StatusUnsupportedMediaType, "Media type in the Content-Type header is invalid or not found", nil)
		return
	}
	if !c.canWrite {
		taxiiError(w, http.StatusForbidden, "Forbidden to write collection", nil)
		return
	}
	n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64)
	if err != nil {
		taxiiError(w, http.StatusBadRequest, "The server did not understand the request or headers", nil)
		return
	}
	limit := s.max
	if s.enforced > 0 {
		limit = s.enforced
	}
	if n > limit || n <= 0 {
		taxiiError(w, http.StatusRequestEntityTooLarge, "Content-Length header not valid or exceeds maximum!", nil)
		return
	}
	s.bodies = append(s.bodies, len(body))
	var env struct {
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Objects == nil {
		taxiiError(w, http.StatusUnprocessableEntity, "While processing supplied content, an error occurred", nil)
		return
	}
	var successes, failures, pendings []any
	for _, o := range env.Objects {
		id, _ := o["id"].(string)
		version, _ := o["modified"].(string)
		if version == "" {
			version, _ = o["created"].(string)
		}
		detail := map[string]any{"id": id, "version": version}
		pendings = append(pendings, detail)
		if msg, bad := s.reject[id]; bad {
			failures = append(failures, map[string]any{"id": id, "version": version, "message": msg})
			continue
		}
		key := id + "|" + version
		if c.objects[key] > 0 {
			detail = map[string]any{"id": id, "version": version, "message": "Object already added"}
		} else {
			c.objects[key]++
		}
		successes = append(successes, detail)
	}
	id := fmt.Sprintf("2d086da7-4bdc-4f91-900e-%012d", len(s.statuses)+1)
	resource := func(status string, succ, fail, pend []any) map[string]any {
		return map[string]any{"id": id, "status": status, "request_timestamp": "2026-11-27T13:30:00.000000Z",
			"total_count": len(env.Objects), "success_count": len(succ), "successes": orEmpty(succ),
			"failure_count": len(fail), "failures": orEmpty(fail), "pending_count": len(pend), "pendings": orEmpty(pend)}
	}
	st := &standInStatus{complete: resource("complete", successes, failures, nil), pending: resource("pending", nil, nil, pendings)}
	s.statuses[id] = st
	if s.pendingPolls > 0 {
		taxiiAnswer(w, http.StatusAccepted, st.pending)
		return
	}
	taxiiAnswer(w, http.StatusAccepted, st.complete)
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// held counts each object of the writable collection by id.
func (s *taxiiStandIn) held() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := map[string]int{}
	for key, c := range s.collections[writableCollection].objects {
		id, _, _ := strings.Cut(key, "|")
		n[id] += c
	}
	return n
}

func (s *taxiiStandIn) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}
