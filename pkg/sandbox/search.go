package sandbox

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Search parameters. The real service documents none of these bounds; the
// sandbox picks ones a client must cope with.
const (
	DefaultLimit = 10   // preview records per resource when limit is absent
	MinLimit     = 1    // smallest accepted limit
	MaxLimit     = 100  // largest accepted limit
	MaxQueryLen  = 2048 // longest accepted q, in bytes

	// InternalErrorQuery makes the search answer 500, so the server-error
	// path can be tried without a fault header.
	InternalErrorQuery = "internal-error.sandbox.test"
)

const (
	searchPath   = "/api/ti/resources/search"
	eventsPath   = "/api/events/me"
	detailPrefix = "/ti/resources/"

	unsupportedReason = "value is not a hash, IP address, domain, URL, CVE identifier or e-mail address"
)

type searchResponse struct {
	Query             string         `json:"query"`
	DetectedType      string         `json:"detected_type"`
	Strategy          string         `json:"strategy"`
	UnsupportedReason string         `json:"unsupported_reason"`
	Results           []searchResult `json:"results"`
}

type searchResult struct {
	Resource      string            `json:"resource"`
	Label         string            `json:"label"`
	Group         string            `json:"group"`
	MatchedColumn string            `json:"matched_column"`
	MatchedValue  string            `json:"matched_value"`
	Count         int               `json:"count"`
	Preview       []json.RawMessage `json:"preview"`
	DetailURL     string            `json:"detail_url"`
}

// search answers GET /api/ti/resources/search. Authentication comes before
// parameter checks, as most services do, so an anonymous caller learns
// nothing about what a valid query looks like.
func (h *handler) search(r *http.Request) reply {
	if rep, ok := h.requireBearer(r); !ok {
		return rep
	}
	q, limit, rep, ok := searchParams(r)
	if !ok {
		return rep
	}
	if q == InternalErrorQuery {
		return errorReply(http.StatusInternalServerError, "internal_error", "internal error (the sandbox's magic query "+InternalErrorQuery+" always fails)")
	}
	ds, err := loadDataset()
	if err != nil {
		return errorReply(http.StatusInternalServerError, "internal_error", err.Error())
	}
	return jsonReply(http.StatusOK, searchAnswer(ds, q, limit, baseURL(r)))
}

// searchParams validates q and limit, or returns the 400 saying why not.
func searchParams(r *http.Request) (q string, limit int, rep reply, ok bool) {
	bad := func(msg string) (string, int, reply, bool) {
		return "", 0, errorReply(http.StatusBadRequest, "bad_request", msg), false
	}
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return bad("malformed query string: " + err.Error() + "; percent-encode q")
	}
	qs, present := params["q"]
	switch {
	case !present:
		return bad("missing required query parameter q (the value to search for)")
	case len(qs) > 1:
		return bad(fmt.Sprintf("query parameter q given %d times; send one value per request", len(qs)))
	case strings.TrimSpace(qs[0]) == "":
		return bad("query parameter q is empty")
	case len(qs[0]) > MaxQueryLen:
		return bad(fmt.Sprintf("query parameter q is %d bytes long; the limit is %d", len(qs[0]), MaxQueryLen))
	}
	limit = DefaultLimit
	if ls, given := params["limit"]; given {
		n, err := strconv.Atoi(strings.TrimSpace(ls[0]))
		if err != nil || len(ls) > 1 {
			return bad(fmt.Sprintf("query parameter limit must be one integer from %d to %d, got %q", MinLimit, MaxLimit, strings.Join(ls, ",")))
		}
		if n < MinLimit || n > MaxLimit {
			return bad(fmt.Sprintf("query parameter limit must be from %d to %d, got %d", MinLimit, MaxLimit, n))
		}
		limit = n
	}
	return qs[0], limit, reply{}, true
}

func searchAnswer(ds *dataset, q string, limit int, base string) searchResponse {
	typ := detectType(q)
	resp := searchResponse{Query: q, DetectedType: typ, Strategy: strategyFor(typ), Results: []searchResult{}}
	if typ == typeUnknown {
		resp.UnsupportedReason = unsupportedReason
		return resp
	}
	for _, m := range ds.lookup(normalize(q, typ)) {
		res := ds.resources[m.res]
		preview := make([]json.RawMessage, 0, min(limit, len(m.records)))
		for _, rec := range m.records[:min(limit, len(m.records))] {
			preview = append(preview, res.Records[rec])
		}
		resp.Results = append(resp.Results, searchResult{
			Resource:      res.ID,
			Label:         res.Label,
			Group:         res.Group,
			MatchedColumn: strings.Join(m.columns, ","),
			MatchedValue:  m.value,
			Count:         len(m.records),
			Preview:       preview,
			DetailURL:     base + detailPrefix + url.PathEscape(res.ID) + "?q=" + url.QueryEscape(m.value),
		})
	}
	return resp
}

// baseURL is where the caller reached us, so that detail_url is clickable
// whichever address or port the sandbox was given.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = "127.0.0.1"
	}
	return scheme + "://" + host
}

type detailResponse struct {
	Resource     string            `json:"resource"`
	Label        string            `json:"label"`
	Group        string            `json:"group"`
	Query        string            `json:"query"`
	DetectedType string            `json:"detected_type"`
	Count        int               `json:"count"`
	Records      []json.RawMessage `json:"records"`
}

// detailPage answers the detail_url links: every matching record of one
// resource. It asks for no token, because the link is meant to be opened in
// a browser, which cannot send one; the data is the public demo set.
func (h *handler) detailPage(r *http.Request) reply {
	ds, err := loadDataset()
	if err != nil {
		return errorReply(http.StatusInternalServerError, "internal_error", err.Error())
	}
	id := strings.TrimPrefix(r.URL.Path, detailPrefix)
	ri, found := ds.resourceByID(id)
	if !found {
		return errorReply(http.StatusNotFound, "not_found", fmt.Sprintf("no resource %q", id))
	}
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		return errorReply(http.StatusBadRequest, "bad_request", "missing required query parameter q")
	}
	res := ds.resources[ri]
	typ := detectType(q)
	out := detailResponse{Resource: res.ID, Label: res.Label, Group: res.Group, Query: q, DetectedType: typ, Records: []json.RawMessage{}}
	if typ != typeUnknown {
		for _, m := range ds.lookup(normalize(q, typ)) {
			if m.res != ri {
				continue
			}
			for _, rec := range m.records {
				out.Records = append(out.Records, res.Records[rec])
			}
		}
	}
	out.Count = len(out.Records)
	if wantsHTML(r) {
		return detailHTML(out)
	}
	return jsonReply(http.StatusOK, out)
}

// requireBearer checks the search's bearer token. The no-permission and
// no-events tokens are valid accounts: the spec gives search no 403, so
// what they lack shows only on the events endpoint.
func (h *handler) requireBearer(r *http.Request) (reply, bool) {
	tok, ok := bearerToken(r)
	if !ok {
		rep := errorReply(http.StatusUnauthorized, "unauthorized", "missing bearer token: send Authorization: Bearer <token>"+h.demoHint())
		rep.header.Set("WWW-Authenticate", `Bearer realm="tilookup-sandbox"`)
		return rep, false
	}
	if h.identify(tok) == callerUnknown {
		rep := errorReply(http.StatusUnauthorized, "unauthorized", "invalid bearer token"+h.demoHint())
		rep.header.Set("WWW-Authenticate", `Bearer realm="tilookup-sandbox", error="invalid_token"`)
		return rep, false
	}
	return reply{}, true
}

// demoHint tells a newcomer the token to use, but only when it is the
// published demo token: a token chosen through Options stays secret.
func (h *handler) demoHint() string {
	if h.token == DemoToken {
		return " (the sandbox's demo token is " + DemoToken + ")"
	}
	return ""
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

type caller int

const (
	callerUnknown caller = iota
	callerOK
	callerNoPermission
	callerNoEvents
)

func (h *handler) identify(tok string) caller {
	switch {
	case equalSecret(tok, h.token):
		return callerOK
	case equalSecret(tok, NoPermissionToken):
		return callerNoPermission
	case equalSecret(tok, NoEventsToken):
		return callerNoEvents
	}
	return callerUnknown
}

// equalSecret compares in constant time, so that response timing does not
// reveal how much of a guessed token was right.
func equalSecret(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
