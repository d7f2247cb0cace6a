package export

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/uuid"
)

// STIXOptions say how to write a STIX bundle.
type STIXOptions struct {
	// TLP is a TLP 2.0 level (see ParseTLP), or empty for no marking.
	TLP string
	// Rand is the source of the bundle's random id; nil means
	// crypto/rand. Tests set it to get the same bundle twice. Every
	// object in the bundle has the same id in every run.
	Rand io.Reader
}

// identity is tilookup as the creator of every object it writes. Its id
// and timestamps are constants, so that every bundle carries the same
// version of the same object and a platform keeps one.
var identity = object{
	Type:          "identity",
	SpecVersion:   "2.1",
	ID:            "identity--4d3f6f3e-58a5-4c5e-9d2e-7c1b0f6a2b91",
	Created:       "2026-01-01T00:00:00.000Z",
	Modified:      "2026-01-01T00:00:00.000Z",
	Name:          "tilookup",
	Description:   "tilookup, a command-line client for exact threat-intelligence lookups",
	IdentityClass: "system",
}

// object is any STIX object tilookup writes; the fields are in the order
// they are printed, and empty ones are left out.
type object struct {
	Type               string            `json:"type"`
	SpecVersion        string            `json:"spec_version"`
	ID                 string            `json:"id"`
	CreatedByRef       string            `json:"created_by_ref,omitempty"`
	Created            string            `json:"created,omitempty"`
	Modified           string            `json:"modified,omitempty"`
	Name               string            `json:"name,omitempty"`
	Description        string            `json:"description,omitempty"`
	IdentityClass      string            `json:"identity_class,omitempty"`
	Value              string            `json:"value,omitempty"`
	Number             *uint64           `json:"number,omitempty"`
	Hashes             map[string]string `json:"hashes,omitempty"`
	Pattern            string            `json:"pattern,omitempty"`
	PatternType        string            `json:"pattern_type,omitempty"`
	PatternVersion     string            `json:"pattern_version,omitempty"`
	ValidFrom          string            `json:"valid_from,omitempty"`
	RelationshipType   string            `json:"relationship_type,omitempty"`
	SourceRef          string            `json:"source_ref,omitempty"`
	TargetRef          string            `json:"target_ref,omitempty"`
	ExternalReferences []externalRef     `json:"external_references,omitempty"`
	Extensions         map[string]any    `json:"extensions,omitempty"`
	Abstract           string            `json:"abstract,omitempty"`
	Content            string            `json:"content,omitempty"`
	ObjectRefs         []string          `json:"object_refs,omitempty"`
	// XFromURL, a custom property (STIX 2.1 3.1: x_ prefix), is on the
	// observable of a host that triage took from a URL: the URL.
	XFromURL          string   `json:"x_tilookup_from_url,omitempty"`
	ObjectMarkingRefs []string `json:"object_marking_refs,omitempty"`
}

type externalRef struct {
	SourceName  string `json:"source_name"`
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
	ExternalID  string `json:"external_id,omitempty"`
}

type bundle struct {
	Type    string   `json:"type"`
	ID      string   `json:"id"`
	Objects []object `json:"objects"`
}

// STIX writes r as one STIX 2.1 bundle:
//
//   - the tilookup identity, the creator (created_by_ref) of every SDO and
//     relationship, and the TLP 2.0 marking definition when opts.TLP is
//     set (then every object but those two carries it in
//     object_marking_refs);
//   - an observable (SCO) for each indicator of a STIX type: ipv4-addr,
//     ipv6-addr, domain-name, url, email-addr, or file with its hash. Its id
//     is the deterministic UUIDv5 of STIX 2.1, so that a platform merges the
//     observables of every run. Values skipped before the lookup, or whose
//     lookup failed, have none;
//   - a vulnerability for each CVE, with its cve external reference, and
//     one reference per matching resource when the service matched it;
//   - for each matched value that a pattern can express (all but CVEs), an
//     indicator with a STIX pattern, valid_from the time of the lookup, an
//     external reference to each matching resource's detail_url, and a
//     based-on relationship to its observable.
//
// A value that occurs twice gives its objects once. An interrupted run's
// bundle ends with a note ("Incomplete: ..."), whose object_refs are every
// object of the bundle, so that a platform that imports it does not take
// it for the whole run.
func STIX(w io.Writer, r *report.Report, opts STIXOptions) error {
	return STIXLinked(w, r, nil, opts)
}

// write writes the bundle of the objects gathered, under a new id, with
// the note of an interrupted run last.
func (b *bundler) write(w io.Writer, r *report.Report, opts STIXOptions) error {
	if r.Interrupted {
		b.incomplete()
	}
	id, err := uuid.V4(opts.Rand)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(bundle{Type: "bundle", ID: "bundle--" + id, Objects: b.objects})
}

// bundler gathers the objects of one bundle.
type bundler struct {
	time    string // created, modified and valid_from of what is made now
	marking []string
	objects []object
	seen    map[string]bool // ids of SCOs, and patterns and CVEs already written
}

func newBundler(r *report.Report, opts STIXOptions) (*bundler, error) {
	b := &bundler{
		time:    lookupTime(r).Format("2006-01-02T15:04:05.000Z"),
		objects: []object{identity},
		seen:    map[string]bool{},
	}
	if opts.TLP != "" {
		def, err := tlpMarking(opts.TLP)
		if err != nil {
			return nil, err
		}
		b.objects = append(b.objects, def)
		b.marking = []string{def.ID}
	}
	return b, nil
}

// incomplete adds the note that says the bundle is not the whole run. What
// identifies the note is what it is about, the objects it lists: the same
// interrupted bundle pushed twice is one note, and a run cut off at
// another point (other objects) is another note, since it says something
// else.
func (b *bundler) incomplete() {
	var refs []string
	for _, o := range b.objects {
		if o.Type != "marking-definition" {
			refs = append(refs, o.ID)
		}
	}
	const abstract = "Incomplete: the run was interrupted"
	b.objects = append(b.objects, object{
		Type: "note", SpecVersion: "2.1", ID: sdoID("note", append([]string{abstract}, slices.Sorted(slices.Values(refs))...)...), CreatedByRef: identity.ID,
		Created: b.time, Modified: b.time,
		Abstract:          abstract,
		Content:           "The run was interrupted (Ctrl-C, SIGTERM or SIGHUP) before every value was looked up: this bundle holds only the values looked up before it stopped.",
		ObjectRefs:        refs,
		ObjectMarkingRefs: b.marking,
	})
}

// add writes the objects of one indicator. A failed lookup writes none:
// as in MISP, a bundle holds what the service answered, and an observable
// for it would pass it for a value that did not match.
func (b *bundler) add(in report.Indicator) error {
	if in.Status() == report.Failed {
		return nil
	}
	typ := typeOf(in)
	if info, ok := ioc.Info(ioc.Type(typ)); ok && info.STIX.Type == "vulnerability" {
		b.vulnerability(in) // a domain object, not an observable
		return nil
	}
	obs, ok := observableOf(typ)
	if !ok {
		return nil // unknown: STIX has no object for it
	}
	value := obs.canonical(in.Value)
	sco := obs.object(value)
	if !b.seen[sco.ID] {
		b.seen[sco.ID] = true
		sco.ObjectMarkingRefs = b.marking
		sco.XFromURL = in.FromURL
		b.objects = append(b.objects, sco)
	}
	if in.Status() != report.Matched {
		return nil
	}
	b.indicator(in, obs.pattern(value), sco.ID)
	return nil
}

func (b *bundler) vulnerability(in report.Indicator) {
	name := strings.ToUpper(in.Value)
	if b.seen["cve "+name] {
		return
	}
	b.seen["cve "+name] = true
	refs := []externalRef{{SourceName: "cve", ExternalID: name}}
	if in.Status() == report.Matched {
		refs = append(refs, resourceRefs(in.Resp.Results)...)
	}
	b.objects = append(b.objects, object{
		Type: "vulnerability", SpecVersion: "2.1", ID: sdoID("vulnerability", name),
		CreatedByRef: identity.ID, Created: b.time, Modified: b.time,
		Name: name, Description: matchDescription(in), ExternalReferences: refs,
		ObjectMarkingRefs: b.marking,
	})
}

func (b *bundler) indicator(in report.Indicator, pattern, scoID string) {
	if b.seen[pattern] {
		return
	}
	b.seen[pattern] = true
	ind := object{
		Type: "indicator", SpecVersion: "2.1", ID: sdoID("indicator", "stix", pattern),
		CreatedByRef: identity.ID, Created: b.time, Modified: b.time,
		Name: in.Value, Description: matchDescription(in),
		Pattern: pattern, PatternType: "stix", PatternVersion: "2.1", ValidFrom: b.time,
		ExternalReferences: resourceRefs(in.Resp.Results),
		ObjectMarkingRefs:  b.marking,
	}
	rel := object{
		Type: "relationship", SpecVersion: "2.1", ID: sdoID("relationship", "based-on", ind.ID, scoID),
		CreatedByRef: identity.ID, Created: b.time, Modified: b.time,
		RelationshipType: "based-on", SourceRef: ind.ID, TargetRef: scoID,
		ObjectMarkingRefs: b.marking,
	}
	b.objects = append(b.objects, ind, rel)
}

// matchDescription says where the service matched the value, for a
// person reading the object in a platform.
func matchDescription(in report.Indicator) string {
	if in.Status() != report.Matched {
		return ""
	}
	d := matchedIn(in.Resp.Results, moreResults(in))
	if in.FromURL != "" {
		d += ". The host of " + in.FromURL + ", a URL in the report."
	}
	return d
}

// moreResults is how many matching resources of in's answer a document
// leaves out: it lists the api.KeptResults first ones, the most any format
// shows, so that a run keeping every answer until its end stays bounded.
func moreResults(in report.Indicator) int {
	return in.Resp.ResultCount() - len(in.Resp.Results)
}

// matchedIn names the matching resources and their counts (STIX
// descriptions, MISP comments), and how many more were left out; empty
// when there are none.
func matchedIn(results []api.Result, more int) string {
	if len(results) == 0 {
		return ""
	}
	names := make([]string, 0, len(results))
	for _, res := range results {
		names = append(names, resourceName(res))
	}
	if more > 0 {
		names = append(names, fmt.Sprintf("and %d more resources (-o json has them all)", more))
	}
	return "Matched by tilookup in: " + strings.Join(names, "; ")
}

func resourceName(res api.Result) string {
	name := res.Name()
	switch c := res.Count.String(); c {
	case "":
	case "1":
		name += ", 1 matching record"
	default:
		name += fmt.Sprintf(", %s matching records", c)
	}
	return name
}

// resourceRefs are the external references to the matching resources'
// detail pages; a detail_url that is not an http(s) URL is left out of
// the reference, which keeps its description.
func resourceRefs(results []api.Result) []externalRef {
	refs := make([]externalRef, 0, len(results))
	for _, res := range results {
		ref := externalRef{SourceName: "tilookup", Description: resourceName(res)}
		if u, ok := httpURL(res.DetailURL); ok {
			ref.URL = u
		}
		refs = append(refs, ref)
	}
	return refs
}
