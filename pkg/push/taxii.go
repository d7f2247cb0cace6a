package push

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

// OpTAXII names the TAXII server's calls in error messages.
const OpTAXII = "taxii"

// MediaTAXII is TAXII 2.1's media type. It goes in Accept on every request
// and in Content-Type on a write: the reference server (medallion) answers
// 406 and 415 to anything else.
const MediaTAXII = "application/taxii+json;version=2.1"

// Bundle is the objects of a STIX 2.1 bundle, as `-o stix` writes it.
type Bundle struct {
	Objects []Object
}

// Object is one STIX object: what names it, and its JSON as the file
// holds it, compacted.
type Object struct {
	ID       string
	Type     string
	Modified string
	Raw      json.RawMessage
}

// ReadBundle reads {"type": "bundle", "objects": [...]}. Anything else is
// an input error (exit 2).
func ReadBundle(r io.Reader) (*Bundle, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, failure.Wrap(failure.IO, err, "cannot read the STIX bundle: "+err.Error())
	}
	var doc struct {
		Type    string            `json:"type"`
		Objects []json.RawMessage `json:"objects"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, notBundle("it is not a JSON object")
	}
	if doc.Type != "bundle" {
		return nil, notBundle(`its type is not "bundle"`)
	}
	b := &Bundle{}
	for i, raw := range doc.Objects {
		var head struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Modified string `json:"modified"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, notBundle(fmt.Sprintf("object %d is not an object", i+1))
		}
		if !validSTIXID(head.ID) || head.Type == "" {
			return nil, notBundle(fmt.Sprintf("object %d has no valid type and id", i+1))
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return nil, notBundle(fmt.Sprintf("object %d: %v", i+1, err))
		}
		b.Objects = append(b.Objects, Object{ID: head.ID, Type: head.Type, Modified: head.Modified, Raw: compact.Bytes()})
	}
	return b, nil
}

func notBundle(why string) error {
	return failure.New(failure.Input, "the input is not a STIX 2.1 bundle: %s", why).
		WithHint("give a document written by tilookup search, triage or pivot with -o stix")
}

// TAXIIAuth is how the server knows the client: a bearer token, or HTTP
// basic with a user and password.
type TAXIIAuth struct {
	Token    string
	User     string
	Password string
}

func (a TAXIIAuth) header() string {
	if a.User != "" {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(a.User+":"+a.Password))
	}
	return "Bearer " + a.Token
}

// TAXIIOptions say what a push does.
type TAXIIOptions struct {
	DryRun bool
	// Wait bounds how long the status resources are followed, in all;
	// 0 reports the first answer as it is.
	Wait time.Duration
}

// StatusDetail names one object in a status resource.
type StatusDetail struct {
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	Message string `json:"message,omitempty"`
}

// StatusCounts are a status resource's counts and lists of objects.
type StatusCounts struct {
	TotalCount   int            `json:"total_count"`
	SuccessCount int            `json:"success_count"`
	FailureCount int            `json:"failure_count"`
	PendingCount int            `json:"pending_count"`
	Successes    []StatusDetail `json:"successes"`
	Failures     []StatusDetail `json:"failures"`
	Pendings     []StatusDetail `json:"pendings"`
}

// TAXIIResult is what a push did, as `-o json` prints it: the counts and
// lists of the status resources, added up over every request, with the
// objects push itself could not send among the failures.
type TAXIIResult struct {
	Collection string `json:"collection"`
	StatusCounts
	// StatusIDs are the server's status resources, one a request.
	StatusIDs []string `json:"status_ids"`
	// NotSent counts the objects a fault left unsent: a re-run sends
	// them.
	NotSent int `json:"not_sent,omitempty"`
	// Sent counts the objects the server received (taken or refused).
	Sent int `json:"-"`
	// Warnings say what could not be followed (a status that stopped
	// answering).
	Warnings []string `json:"warnings,omitempty"`
	DryRun   bool     `json:"dry_run,omitempty"`
	// Requests is how many requests the objects take (or would, in a
	// dry run), and MaxContentLength the API root's bound on each.
	Requests         int   `json:"requests"`
	MaxContentLength int64 `json:"max_content_length,omitempty"`
	// WouldSend lists what a dry run would send.
	WouldSend []StatusDetail `json:"would_send,omitempty"`
}

// TAXII writes to one collection of one API root.
type TAXII struct {
	Client     Sender
	Collection string
	// Sleep waits between polls of a status; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	read  http.Header
	write http.Header
}

// NewTAXII builds the client side of a push to collection.
func NewTAXII(client Sender, collection string, auth TAXIIAuth, userAgent string) *TAXII {
	read := http.Header{}
	read.Set("Accept", MediaTAXII)
	read.Set("Authorization", auth.header())
	if userAgent != "" {
		read.Set("User-Agent", userAgent)
	}
	write := read.Clone()
	write.Set("Content-Type", MediaTAXII)
	return &TAXII{Client: client, Collection: collection, Sleep: sleepCtx, read: read, write: write}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// envelope is the body of one add: {"objects":[...]}.
var (
	envelopeOpen  = []byte(`{"objects":[`)
	envelopeClose = []byte(`]}`)
)

// batch is the objects of one request and its body.
type batch struct {
	objects []Object
	body    []byte
}

// split packs the objects, in order, into as few envelopes as keep each
// body within limit bytes (no bound when limit <= 0). An object too big
// for an envelope of its own is returned apart, never sent.
func split(objects []Object, limit int64) (batches []batch, tooBig []Object) {
	overhead := int64(len(envelopeOpen) + len(envelopeClose))
	var cur []Object
	size := overhead
	flush := func() {
		if len(cur) == 0 {
			return
		}
		body := append([]byte(nil), envelopeOpen...)
		for i, o := range cur {
			if i > 0 {
				body = append(body, ',')
			}
			body = append(body, o.Raw...)
		}
		batches = append(batches, batch{objects: cur, body: append(body, envelopeClose...)})
		cur, size = nil, overhead
	}
	for _, o := range objects {
		n := int64(len(o.Raw))
		if limit > 0 && overhead+n > limit {
			tooBig = append(tooBig, o)
			continue
		}
		if len(cur) > 0 {
			n++ // the comma
		}
		if limit > 0 && size+n > limit {
			flush()
			n = int64(len(o.Raw))
		}
		cur = append(cur, o)
		size += n
	}
	flush()
	return batches, tooBig
}

// statusResource is what a 202 to an add, and the status endpoint,
// answer.
type statusResource struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	StatusCounts
}

// Push sends the bundle's objects to the collection, in as many requests
// as the API root's max_content_length needs, then follows each status
// until it completes or opts.Wait runs out. The result says what was done
// even when an error stops the push part-way: what was written stays
// written. TAXII servers keep one copy of an object per id and modified,
// so sending the same bundle again adds nothing.
func (t *TAXII) Push(ctx context.Context, b *Bundle, opts TAXIIOptions) (*TAXIIResult, error) {
	res := &TAXIIResult{Collection: t.Collection, DryRun: opts.DryRun, StatusIDs: []string{},
		StatusCounts: StatusCounts{TotalCount: len(b.Objects), Successes: []StatusDetail{}, Failures: []StatusDetail{}, Pendings: []StatusDetail{}}}
	if t.Collection == "" || strings.Contains(t.Collection, "/") {
		return res, failure.New(failure.Config, "%q is not a TAXII collection id", t.Collection)
	}
	limit, err := t.maxContentLength(ctx)
	if err != nil {
		return res, err
	}
	res.MaxContentLength = limit
	if err := t.checkCollection(ctx); err != nil {
		return res, err
	}
	batches, tooBig := split(b.Objects, limit)
	res.Requests = len(batches)
	for _, o := range tooBig {
		res.fail(o, fmt.Sprintf("not sent: alone it is %d bytes, more than the API root's max_content_length (%d)", len(o.Raw)+len(envelopeOpen)+len(envelopeClose), limit))
	}
	if opts.DryRun {
		for _, bt := range batches {
			for _, o := range bt.objects {
				res.WouldSend = append(res.WouldSend, StatusDetail{ID: o.ID, Version: o.Modified})
			}
		}
		return res, nil
	}
	var statuses []*statusResource
	for i, bt := range batches {
		st, err := t.add(ctx, bt)
		switch {
		case err == nil:
			res.Sent += len(bt.objects)
			statuses = append(statuses, st)
			res.StatusIDs = append(res.StatusIDs, st.ID)
		case t.refusal(err):
			res.Sent += len(bt.objects)
			for _, o := range bt.objects {
				res.fail(o, reason(err))
			}
		default:
			for _, rest := range batches[i:] {
				res.NotSent += len(rest.objects)
			}
			res.tally(statuses)
			return res, err
		}
	}
	t.follow(ctx, statuses, opts.Wait, res)
	res.tally(statuses)
	if ctx.Err() != nil {
		// Stopped while following the statuses: what is pending is the
		// server's to finish, but the push did not wait for it as asked.
		return res, failure.Wrap(failure.Interrupted, ctx.Err(), "interrupted")
	}
	return res, nil
}

// Progress says how far a push got, for the line of an interrupted one:
// what was sent and what the server has still pending.
func (r *TAXIIResult) Progress() string {
	s := fmt.Sprintf("%d of %d objects sent (%d succeeded, %d failed, %d pending", r.Sent, r.TotalCount, r.SuccessCount, r.FailureCount, r.PendingCount)
	if r.PendingCount > 0 {
		s += ": the server goes on with them, status " + strings.Join(r.StatusIDs, ", ")
	}
	return s + ")"
}

func (r *TAXIIResult) fail(o Object, msg string) {
	r.FailureCount++
	r.Failures = append(r.Failures, StatusDetail{ID: o.ID, Version: o.Modified, Message: msg})
}

// tally adds the statuses' counts and lists to what push itself failed.
func (r *TAXIIResult) tally(statuses []*statusResource) {
	for _, s := range statuses {
		r.SuccessCount += s.SuccessCount
		r.FailureCount += s.FailureCount
		r.PendingCount += s.PendingCount
		r.Successes = append(r.Successes, s.Successes...)
		r.Failures = append(r.Failures, s.Failures...)
		r.Pendings = append(r.Pendings, s.Pendings...)
	}
}

// maxContentLength reads the API root's bound on a request body. The
// specification requires it; a server that leaves it out gets every
// object in one request.
func (t *TAXII) maxContentLength(ctx context.Context) (int64, error) {
	body, err := t.call(ctx, http.MethodGet, t.Client.URL("/"), nil)
	if err != nil {
		return 0, err
	}
	var root struct {
		MaxContentLength int64    `json:"max_content_length"`
		Versions         []string `json:"versions"`
	}
	if err := json.Unmarshal(body, &root); err != nil {
		return 0, decodeError("the API root's answer is not a TAXII API root")
	}
	if len(root.Versions) > 0 && !contains(root.Versions, MediaTAXII) {
		return 0, failure.New(failure.Config, "the API root does not speak TAXII 2.1 (versions %q)", root.Versions).
			WithHint("taxii_url must be a TAXII 2.1 API root, such as https://host/api1/")
	}
	return root.MaxContentLength, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkCollection asks for the collection before anything is sent, so
// that an unknown one (404) or one these credentials may not write
// (can_write false) stops the push with nothing half-done.
func (t *TAXII) checkCollection(ctx context.Context) error {
	body, err := t.call(ctx, http.MethodGet, t.collectionURL(""), nil)
	if status(err) == http.StatusNotFound {
		return failure.New(failure.NotFound, "the API root has no collection %q", t.Collection).
			WithHint("check --collection (taxii_collection): GET {api-root}/collections/ lists them")
	}
	if err != nil {
		return err
	}
	var c struct {
		CanWrite bool `json:"can_write"`
	}
	if err := json.Unmarshal(body, &c); err != nil {
		return decodeError("the collection's answer is not a TAXII collection")
	}
	if !c.CanWrite {
		return failure.New(failure.Forbidden, "collection %q may not be written with these credentials (can_write is false)", t.Collection).
			WithHint("ask the server's administrator for write access, or push to another collection")
	}
	return nil
}

// collectionURL is a URL under the collection. A URL's Path holds the
// decoded form, escaped when the request is written: the id goes in as it
// is (escaping it here would escape it twice).
func (t *TAXII) collectionURL(tail string) *url.URL {
	return t.Client.URL("/collections/" + t.Collection + "/" + tail)
}

// add sends one envelope. The api client sets Content-Length (never a
// chunked body, which medallion refuses) and retries a 429 or 5xx answer
// that asks for it: the server keeps one copy per id and modified, so a
// retried add that it had taken the first time adds nothing.
func (t *TAXII) add(ctx context.Context, b batch) (*statusResource, error) {
	body, err := t.call(ctx, http.MethodPost, t.collectionURL("objects/"), b.body)
	if err != nil {
		return nil, err
	}
	return readStatus(body)
}

func readStatus(body []byte) (*statusResource, error) {
	var st statusResource
	if err := json.Unmarshal(body, &st); err != nil || st.ID == "" || strings.Contains(st.ID, "/") || st.Status == "" {
		return nil, decodeError("the answer is not a TAXII status resource")
	}
	return &st, nil
}

// refusal is the server saying no to one request's objects (400, 413,
// 422…), as opposed to a refusal of the credentials or the collection, or
// a fault, that would stop any request.
func (t *TAXII) refusal(err error) bool {
	switch status(err) {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return false
	}
	return clientError(err)
}

// Polling starts at pollFirst and doubles up to pollMax: a server that
// completes at once costs a second, a slow one is not hammered.
const (
	pollFirst = time.Second
	pollMax   = 15 * time.Second
)

// follow polls each pending status until it is complete or wait runs out.
// A status that stops answering keeps its objects pending, with a warning.
func (t *TAXII) follow(ctx context.Context, statuses []*statusResource, wait time.Duration, res *TAXIIResult) {
	if wait <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	pause := pollFirst
	for i, st := range statuses {
		for st.Status != "complete" {
			if t.Sleep(ctx, pause) != nil {
				return
			}
			pause = min(2*pause, pollMax)
			body, err := t.call(ctx, http.MethodGet, t.Client.URL("/status/"+st.ID+"/"), nil)
			if ctx.Err() != nil {
				return
			}
			if err == nil {
				var next *statusResource
				if next, err = readStatus(body); err == nil {
					st = next
					statuses[i] = next
					continue
				}
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("status %s could not be followed: %v", st.ID, err))
			break
		}
	}
}

// call sends one request and says which settings to check when the server
// refuses the credentials: its hint would otherwise name the lookup
// service's token.
func (t *TAXII) call(ctx context.Context, method string, u *url.URL, payload []byte) ([]byte, error) {
	header := t.read
	if payload != nil {
		header = t.write
	}
	body, err := t.Client.Send(ctx, OpTAXII, method, u, header, payload)
	if s := status(err); s == http.StatusUnauthorized || s == http.StatusForbidden {
		return nil, refusedCredentials(err, "the TAXII server refused the credentials: check TILOOKUP_TAXII_TOKEN (or TILOOKUP_TAXII_USER and TILOOKUP_TAXII_PASSWORD), or run `tilookup auth login --host` with the TAXII host", "the TAXII server", "the credentials were", "taxii_url")
	}
	return body, err
}

func decodeError(msg string) error {
	return failure.New(failure.Decode, "%s", msg).
		WithHint("taxii_url must be the TAXII 2.1 API root, such as https://host/api1/")
}
