package push

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/uuid"
)

// OpMISP names MISP's calls in error messages.
const OpMISP = "misp"

// Event is a MISP event document: its fields as read, kept whole so that
// what is sent is what the file holds.
type Event struct {
	Fields     map[string]any
	UUID       string
	Attributes []Attribute
}

// Attribute is one attribute of an event, its fields as read.
type Attribute struct {
	Fields map[string]any
	UUID   string
	Type   string
	Value  string
}

// key is how an attribute is matched when it has no uuid in common.
func (a Attribute) key() string { return a.Type + "|" + a.Value }

// ReadEvent reads the document `-o misp` writes, {"Event": {...}}, or the
// bare event object. Anything else is an input error (exit 2).
func ReadEvent(r io.Reader) (*Event, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, failure.Wrap(failure.IO, err, "cannot read the MISP event: "+err.Error())
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, notEvent("it is not a JSON object")
	}
	if inner, ok := doc["Event"].(map[string]any); ok {
		doc = inner
	}
	ev := &Event{Fields: doc}
	ev.UUID, _ = doc["uuid"].(string)
	if !validUUID(ev.UUID) {
		return nil, notEvent("the event has no valid uuid")
	}
	if info, _ := doc["info"].(string); strings.TrimSpace(info) == "" {
		return nil, notEvent("the event has no info")
	}
	raw, _ := doc["Attribute"].([]any)
	if doc["Attribute"] != nil && raw == nil {
		return nil, notEvent("its Attribute is not a list")
	}
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, notEvent(fmt.Sprintf("attribute %d is not an object", i+1))
		}
		a := readAttribute(m)
		if a.Type == "" || a.Value == "" {
			return nil, notEvent(fmt.Sprintf("attribute %d has no type or value", i+1))
		}
		if a.UUID != "" && !validUUID(a.UUID) {
			return nil, notEvent(fmt.Sprintf("attribute %d has an invalid uuid", i+1))
		}
		ev.Attributes = append(ev.Attributes, a)
	}
	return ev, nil
}

func readAttribute(m map[string]any) Attribute {
	a := Attribute{Fields: m}
	a.UUID, _ = m["uuid"].(string)
	a.UUID = strings.ToLower(a.UUID)
	a.Type, _ = m["type"].(string)
	a.Value, _ = m["value"].(string)
	return a
}

func notEvent(why string) error {
	return failure.New(failure.Input, "the input is not a MISP event: %s", why).
		WithHint("give a document written by tilookup search, triage or pivot with -o misp")
}

// MISPOptions say where a push goes and what it does.
type MISPOptions struct {
	// Event, when set, is the id or uuid of an existing event that gets
	// the attributes instead of the document's own event.
	Event   string
	DryRun  bool
	Publish bool
}

// Failed is an attribute MISP refused, with its reason.
type Failed struct {
	UUID  string `json:"uuid"`
	Value string `json:"value"`
	Error string `json:"error"`
}

// MISPResult is what a push did, as `-o json` prints it.
type MISPResult struct {
	EventID   string   `json:"event_id"`
	EventUUID string   `json:"event_uuid"`
	Added     int      `json:"added"`
	Existing  int      `json:"existing"`
	Failed    []Failed `json:"failed"`
	// NotSent counts the attributes a fault left unsent: a re-run sends
	// them.
	NotSent   int  `json:"not_sent,omitempty"`
	Published bool `json:"published,omitempty"`
	DryRun    bool `json:"dry_run,omitempty"`
	// WouldAdd lists what a dry run would add.
	WouldAdd []WouldAdd `json:"would_add,omitempty"`
	// NewEvent: the event did not exist (a dry run would create it).
	NewEvent bool `json:"new_event,omitempty"`
	// Total is how many attributes the document holds.
	Total int `json:"-"`
}

// Progress says how far a push got, for the line of an interrupted one:
// the event and what was added, and how many attributes were not sent.
func (r *MISPResult) Progress() string {
	rest := r.Total - r.Added - r.Existing - len(r.Failed)
	if r.EventID == "" {
		return fmt.Sprintf("event %s not confirmed by MISP, %d attributes not sent", r.EventUUID, rest)
	}
	return fmt.Sprintf("event %s (id %s): %d attributes added, %d already there, %d failed, %d not sent",
		r.EventUUID, r.EventID, r.Added, r.Existing, len(r.Failed), rest)
}

// WouldAdd is one attribute a dry run would send.
type WouldAdd struct {
	UUID  string `json:"uuid"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// MISP talks to one instance with one key.
type MISP struct {
	Client Sender
	header http.Header
}

// NewMISP builds the client side of a push: every request says JSON in
// both directions (without Accept, MISP answers 302 to its login page)
// and carries the key as MISP wants it, bare in Authorization.
func NewMISP(client Sender, key, userAgent string) *MISP {
	h := http.Header{}
	h.Set("Accept", "application/json")
	h.Set("Content-Type", "application/json")
	h.Set("Authorization", key)
	if userAgent != "" {
		h.Set("User-Agent", userAgent)
	}
	return &MISP{Client: client, header: h}
}

// remote is an event as MISP holds it: its id and what it has.
type remote struct {
	ID, UUID string
	uuids    map[string]bool
	keys     map[string]bool
}

func (r *remote) has(a Attribute) bool {
	return (a.UUID != "" && r.uuids[a.UUID]) || r.keys[a.key()]
}

// Push sends ev: the event if MISP lacks it, else only the attributes it
// lacks; then publishes it when asked. The result says what was done even
// when an error stops the push part-way.
func (m *MISP) Push(ctx context.Context, ev *Event, opts MISPOptions) (*MISPResult, error) {
	res := &MISPResult{EventUUID: ev.UUID, Failed: []Failed{}, DryRun: opts.DryRun, Total: len(ev.Attributes)}
	target := ev.UUID
	if opts.Event != "" {
		target = opts.Event
	}
	have, err := m.view(ctx, target)
	if err != nil {
		return res, err
	}
	if have == nil && opts.Event != "" {
		return res, failure.New(failure.NotFound, "MISP has no event %s", opts.Event).
			WithHint("check the id or uuid given to --event")
	}
	var missing []Attribute
	switch {
	case have == nil && opts.DryRun:
		res.NewEvent = true
		missing = ev.Attributes
	case have == nil:
		have, missing, err = m.addEvent(ctx, ev)
		if err != nil {
			return res, err
		}
		res.Added = len(ev.Attributes) - len(missing)
	default:
		missing = lacking(have, ev.Attributes)
		res.Existing = len(ev.Attributes) - len(missing)
	}
	if have != nil {
		res.EventID, res.EventUUID = have.ID, have.UUID
	}
	if opts.DryRun {
		for _, a := range missing {
			res.WouldAdd = append(res.WouldAdd, WouldAdd{UUID: a.UUID, Type: a.Type, Value: a.Value})
		}
		return res, nil
	}
	if err := m.addAttributes(ctx, have, missing, res); err != nil {
		return res, err
	}
	if opts.Publish {
		// Last: adding an attribute unpublishes the event.
		if _, err := m.call(ctx, http.MethodPost, "/events/publish/"+url.PathEscape(have.ID), []byte("{}")); err != nil {
			return res, err
		}
		res.Published = true
	}
	return res, nil
}

// CheckKey asks MISP whose key this is (GET /users/view/me), as auth
// login does before it stores one: a refused key is an error of kind
// Auth (MISP answers 403 "Authentication failed", not 401).
func (m *MISP) CheckKey(ctx context.Context) error {
	_, err := m.call(ctx, http.MethodGet, "/users/view/me", nil)
	return err
}

// lacking lists the attributes of want that have does not hold, by uuid or
// by type and value.
func lacking(have *remote, want []Attribute) []Attribute {
	var out []Attribute
	for _, a := range want {
		if !have.has(a) {
			out = append(out, a)
		}
	}
	return out
}

// view fetches an event by id or uuid; nil when MISP has none.
func (m *MISP) view(ctx context.Context, id string) (*remote, error) {
	body, err := m.call(ctx, http.MethodGet, "/events/view/"+url.PathEscape(id), nil)
	var ae *api.APIError
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return readRemote(body)
}

// addEvent creates the event with all its attributes, and returns what
// MISP kept and the attributes it dropped: /events/add drops an invalid
// attribute without a word. A request that failed may still have created
// the event (an answer lost to a time-out, retried): MISP is asked again
// before the failure is reported.
func (m *MISP) addEvent(ctx context.Context, ev *Event) (*remote, []Attribute, error) {
	payload, err := json.Marshal(ev.Fields)
	if err != nil {
		return nil, nil, err
	}
	body, err := m.call(ctx, http.MethodPost, "/events/add", payload)
	if err != nil {
		if authRefused(err) {
			return nil, nil, err
		}
		have, verr := m.view(ctx, ev.UUID)
		if verr != nil || have == nil {
			return nil, nil, err
		}
		return have, lacking(have, ev.Attributes), nil
	}
	have, err := readRemote(body)
	if err != nil {
		return nil, nil, err
	}
	return have, lacking(have, ev.Attributes), nil
}

// addAttributes adds each attribute on its own, so that MISP's reason for
// refusing one is heard. A fault (5xx, time-out, a refused key) stops the
// push: what was added stays, and a re-run sends the rest. Refusals are
// checked against the event once more, as a retried request that MISP had
// taken the first time is refused as a duplicate.
func (m *MISP) addAttributes(ctx context.Context, have *remote, missing []Attribute, res *MISPResult) error {
	path := "/attributes/add/" + url.PathEscape(have.ID)
	var refused []Failed
	var refusedAttrs []Attribute
	for i, a := range missing {
		payload, err := json.Marshal(attributePayload(a))
		if err != nil {
			return err
		}
		_, err = m.call(ctx, http.MethodPost, path, payload)
		if err != nil && refusal(err) && uuidTaken(err) && a.UUID != "" {
			// The same value's attribute in another event (an earlier run):
			// add it under a uuid of this event's own.
			a = inEvent(a, have.UUID)
			if payload, err = json.Marshal(attributePayload(a)); err != nil {
				return err
			}
			_, err = m.call(ctx, http.MethodPost, path, payload)
		}
		if err == nil {
			res.Added++
			continue
		}
		if !refusal(err) {
			res.NotSent = len(missing) - i
			res.Failed = append(res.Failed, refused...)
			return err
		}
		refused = append(refused, Failed{UUID: a.UUID, Value: a.Value, Error: mispReason(err)})
		refusedAttrs = append(refusedAttrs, a)
	}
	if len(refused) == 0 {
		return nil
	}
	now, err := m.view(ctx, have.ID)
	if failure.KindOf(err) == failure.Interrupted {
		res.Failed = append(res.Failed, refused...)
		return err
	}
	if err != nil || now == nil {
		res.Failed = append(res.Failed, refused...)
		return nil
	}
	for i, a := range refusedAttrs {
		if now.has(a) {
			res.Added++
		} else {
			res.Failed = append(res.Failed, refused[i])
		}
	}
	return nil
}

// attributePayload is the attribute as the file has it, without the
// fields that name another event's rows.
func attributePayload(a Attribute) map[string]any {
	out := make(map[string]any, len(a.Fields))
	for k, v := range a.Fields {
		switch k {
		case "id", "event_id", "object_id", "Event":
			continue
		}
		out[k] = v
	}
	return out
}

// mispReason is what MISP said about a refused request: its status and
// message, then the reasons it gives in "errors", which the message
// ("Could not add Attribute") leaves out. MISP writes them as a string,
// or as each field's messages ({"value": ["IP address has an invalid
// format."]}), nested under the model's name for an event.
func mispReason(err error) string {
	r := reason(err)
	why := mispErrors(err)
	if len(why) == 0 {
		return r
	}
	return sanitize.Truncate(sanitize.String(r+": "+strings.Join(why, "; ")), maxReason)
}

// mispErrors are the reasons in the "errors" of MISP's answer to err's
// request, each after the field it is about; none when it gave none.
func mispErrors(err error) []string {
	var ae *api.APIError
	if !errors.As(err, &ae) || len(ae.Body) == 0 {
		return nil
	}
	var doc struct {
		Errors any `json:"errors"`
	}
	if json.Unmarshal(ae.Body, &doc) != nil {
		return nil
	}
	var why []string
	errorTexts(doc.Errors, "", &why)
	return why
}

// uuidTaken says MISP refused an attribute only because another event
// holds its uuid: MISP keeps attribute uuids unique across the instance,
// while -o misp names a value's attribute the same in every run.
func uuidTaken(err error) bool {
	why := mispErrors(err)
	for _, w := range why {
		if !strings.HasPrefix(w, "uuid: ") {
			return false
		}
	}
	return len(why) > 0
}

// eventNamespace is the UUIDv5 namespace of the uuid an attribute is
// added under when another event holds its own (a random UUID fixed once).
var eventNamespace = [16]byte{0x5c, 0x0e, 0x8a, 0x61, 0x3d, 0x4b, 0x4f, 0x27, 0x8e, 0x0a, 0x19, 0x6c, 0xd2, 0x73, 0x44, 0xb5}

// inEvent is a, renamed for the event with uuid event: the same name in
// every push into that event, so that a re-push finds it there.
func inEvent(a Attribute, event string) Attribute {
	fields := maps.Clone(a.Fields)
	a.UUID = uuid.V5(eventNamespace, event+"|"+a.UUID)
	fields["uuid"] = a.UUID
	a.Fields = fields
	return a
}

// maxReason bounds a refusal's text: it is one line of a report.
const maxReason = 500

// errorTexts gathers the messages of MISP's errors, each after the name
// of the field it is about.
func errorTexts(v any, field string, out *[]string) {
	switch x := v.(type) {
	case string:
		if x = strings.TrimSpace(x); x != "" {
			if field != "" {
				x = field + ": " + x
			}
			*out = append(*out, x)
		}
	case []any:
		for _, e := range x {
			errorTexts(e, field, out)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			errorTexts(x[k], k, out)
		}
	}
}

// authRefused tells a refused key apart from a refused attribute: MISP
// answers 403 to both, "Authentication failed" to the first.
func authRefused(err error) bool {
	var ae *api.APIError
	if !errors.As(err, &ae) {
		return false
	}
	return ae.Status == http.StatusUnauthorized ||
		ae.Status == http.StatusForbidden && strings.Contains(strings.ToLower(ae.Message), "authentication failed")
}

// refusal is MISP saying no to one attribute (a 4xx other than a refused
// key), as opposed to a fault that would stop any request.
func refusal(err error) bool { return clientError(err) && !authRefused(err) }

// call sends one request and explains the two answers MISP gives a bad
// setup: a refused key, and a login page.
func (m *MISP) call(ctx context.Context, method, path string, payload []byte) ([]byte, error) {
	body, err := m.Client.Send(ctx, OpMISP, method, m.Client.URL(path), m.header, payload)
	if err != nil {
		if authRefused(err) {
			return nil, refusedCredentials(err, "MISP refused the key: check TILOOKUP_MISP_KEY or run `tilookup auth login --host` with the MISP host", "MISP", "the key was", "misp_url")
		}
		return nil, err
	}
	if !json.Valid(body) {
		return nil, &api.APIError{Op: OpMISP, Status: http.StatusOK, Kind: failure.Decode,
			Message: "MISP did not answer with JSON (a login page?)", Hint: "check misp_url: it must be the MISP instance's base URL"}
	}
	return body, nil
}

// readRemote reads an event as /events/view and /events/add answer it:
// its id, uuid, and the uuids and values of its attributes, those of its
// objects included.
func readRemote(body []byte) (*remote, error) {
	var doc struct {
		Event struct {
			ID        json.RawMessage `json:"id"`
			UUID      string          `json:"uuid"`
			Attribute []rawAttribute  `json:"Attribute"`
			Object    []struct {
				Attribute []rawAttribute `json:"Attribute"`
			} `json:"Object"`
		} `json:"Event"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Event.ID) == 0 {
		return nil, &api.APIError{Op: OpMISP, Status: http.StatusOK, Kind: failure.Decode,
			Message: "MISP's answer holds no event"}
	}
	r := &remote{ID: strings.Trim(string(doc.Event.ID), `"`), UUID: doc.Event.UUID, uuids: map[string]bool{}, keys: map[string]bool{}}
	add := func(as []rawAttribute) {
		for _, a := range as {
			r.uuids[strings.ToLower(a.UUID)] = true
			r.keys[a.Type+"|"+a.Value] = true
		}
	}
	add(doc.Event.Attribute)
	for _, o := range doc.Event.Object {
		add(o.Attribute)
	}
	return r, nil
}

type rawAttribute struct {
	UUID  string `json:"uuid"`
	Type  string `json:"type"`
	Value string `json:"value"`
}
