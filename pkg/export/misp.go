package export

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/report"
	"github.com/tilookup/tilookup/pkg/uuid"
)

// MISPOptions say how to write a MISP event.
type MISPOptions struct {
	// TLP is a TLP 2.0 level (see ParseTLP), or empty for no tag.
	TLP string
	// ToIDS sets to_ids on the indicators' attributes, for the types
	// MISP itself flags by default (not on a CVE, never on a link): a
	// match is not a verdict, so it is the user's call.
	ToIDS bool
	// Rand is the source of the event's random UUID; nil means
	// crypto/rand. Tests set it to get the same event twice.
	Rand io.Reader
}

// Finding is one matched value as a MISP event holds it. search and
// triage make them from a report.Report (MISP); pivot and watch build
// their own and call MISPEvent.
type Finding struct {
	Value string
	Type  ioc.Type
	// Matches are the resources that matched: label, resource and count
	// go into the attribute's comment, each detail_url becomes a link
	// attribute.
	Matches []api.Result
	// More is how many matching resources Matches leaves out (see
	// moreResults); the comment says so.
	More int
	// Related are the values this one is linked to (pivot edges); they
	// are named in the comment, since the event format has no reference
	// between two plain attributes.
	Related []Relation
	// FromURL is the URL a host was taken from (triage); named in the
	// comment.
	FromURL string
	// Change says what changed since an earlier run (watch): it opens the
	// comment, in place of "Found by tilookup" when Matches is empty.
	Change string
	// Pages are results whose detail_url becomes a link attribute, as
	// Matches' do, without a word in the comment (watch: its comment is
	// the change).
	Pages []api.Result
}

// Relation is an edge from a finding to another value.
type Relation struct {
	Value string
	// Note says how: "in c2's preview, field ip". May be empty.
	Note string
}

// MISPRun is what an event is made of.
type MISPRun struct {
	// What was looked up: "Search of 4 values", "Triage of report.txt".
	What string
	// When the lookups were made: the event's date and timestamps.
	Time time.Time
	// Interrupted says the run stopped before every value was looked up.
	Interrupted bool
	Findings    []Finding
}

// mispLink is the attribute of a resource's detail page: no indicator
// type, so not in ioc's type table, which maps the indicators
// (ioc.Info(t).MISP).
var mispLink = ioc.MISPMapping{Type: "link", Category: "External analysis"}

// mispNamespace is the UUIDv5 namespace of tilookup's MISP attributes (a
// random UUID fixed once): the same value gets the same attribute UUID in
// every run, so that importing a new run into the event updates it.
var mispNamespace = [16]byte{0x22, 0x10, 0xc9, 0xe4, 0x32, 0xc8, 0x4a, 0x56, 0x9b, 0xd0, 0xcc, 0x19, 0x27, 0x94, 0x01, 0x95}

// The event and its attributes as MISP's format 2.4 has them: every
// number a string, the fields in the order they are printed.
type (
	mispDoc struct {
		Event mispEvent `json:"Event"`
	}
	mispEvent struct {
		UUID          string          `json:"uuid"`
		Info          string          `json:"info"`
		Date          string          `json:"date"`
		Timestamp     string          `json:"timestamp"`
		Published     bool            `json:"published"`
		Distribution  string          `json:"distribution"`
		ThreatLevelID string          `json:"threat_level_id"`
		Analysis      string          `json:"analysis"`
		Tag           []mispTag       `json:"Tag,omitempty"`
		Attribute     []mispAttribute `json:"Attribute"`
	}
	mispAttribute struct {
		UUID         string `json:"uuid"`
		Type         string `json:"type"`
		Category     string `json:"category"`
		Value        string `json:"value"`
		ToIDS        bool   `json:"to_ids"`
		Distribution string `json:"distribution"`
		Timestamp    string `json:"timestamp"`
		Comment      string `json:"comment"`
	}
	mispTag struct {
		Name string `json:"name"`
	}
)

// MISP writes r as one MISP event holding its matched indicators. Values
// that did not match, failed or were skipped before the lookup are not
// attributes: an event is what was found.
func MISP(w io.Writer, r *report.Report, opts MISPOptions) error {
	run := MISPRun{What: r.Title, Time: lookupTime(r), Interrupted: r.Interrupted}
	for _, in := range r.Indicators {
		if in.Status() != report.Matched {
			continue
		}
		run.Findings = append(run.Findings, Finding{Value: in.Value, Type: ioc.Type(typeOf(in)), Matches: in.Resp.Results, FromURL: in.FromURL, More: moreResults(in)})
	}
	return MISPEvent(w, run, opts)
}

// MISPEvent writes run as one event, {"Event": {...}}:
//
//   - unpublished, distribution 0 (your organisation only), threat level
//     4 (undefined), analysis 0 (initial), dated the day of the lookups;
//     info says what was looked up and when;
//   - one attribute per finding of a type MISP has, in its default
//     category, with its resources and counts (and the values it is
//     related to) in comment; a value given twice is written once;
//   - one link attribute per http(s) detail_url, shared by the findings
//     that point to the same page;
//   - the TLP tag (tlp:amber...) when opts.TLP is set.
//
// Attribute UUIDs are UUIDv5 of the attribute's type and value, the
// event's is random.
func MISPEvent(w io.Writer, run MISPRun, opts MISPOptions) error {
	t := run.Time.UTC()
	if t.IsZero() {
		t = time.Now().UTC()
	}
	id, err := uuid.V4(opts.Rand)
	if err != nil {
		return err
	}
	stamp := strconv.FormatInt(t.Unix(), 10)
	ev := mispEvent{
		UUID: id, Info: mispInfo(run, t), Date: t.Format("2006-01-02"), Timestamp: stamp,
		Distribution: "0", ThreatLevelID: "4", Analysis: "0",
		Attribute: []mispAttribute{},
	}
	if opts.TLP != "" {
		level, err := ParseTLP(opts.TLP)
		if err != nil {
			return err
		}
		ev.Tag = []mispTag{{Name: "tlp:" + level}}
	}
	seen := map[string]int{} // attribute UUID -> index in ev.Attribute
	add := func(mt ioc.MISPMapping, value, comment string, toIDS bool) int {
		a := mispAttribute{
			UUID: uuid.V5(mispNamespace, mt.Type+"|"+value), Type: mt.Type, Category: mt.Category,
			Value: value, ToIDS: toIDS, Distribution: "5", Timestamp: stamp, Comment: comment,
		}
		if i, dup := seen[a.UUID]; dup {
			return i
		}
		seen[a.UUID] = len(ev.Attribute)
		ev.Attribute = append(ev.Attribute, a)
		return -1
	}
	var links []string // detail URLs, in order of first sight
	linkNotes := map[string][]string{}
	for _, f := range run.Findings {
		info, ok := ioc.Info(f.Type)
		if !ok || info.MISP.Type == "" {
			continue // no MISP type says what it is
		}
		mt := info.MISP
		value := f.Value // normalised by pkg/ioc: hashes lower-case, CVEs upper-case
		add(mt, value, findingComment(f), opts.ToIDS && mt.ToIDs)
		for _, res := range slices.Concat(f.Matches, f.Pages) {
			u, ok := httpURL(res.DetailURL)
			if !ok {
				continue // javascript: and the like never become a link
			}
			if _, known := linkNotes[u]; !known {
				links = append(links, u)
			}
			linkNotes[u] = append(linkNotes[u], resourceName(res)+": "+value)
		}
	}
	for _, u := range links {
		add(mispLink, u, "tilookup detail page of "+strings.Join(linkNotes[u], "; "), false)
	}
	enc := json.NewEncoder(w)
	// HTML escaping stays on: a value holding <script> is \u003cscript>
	// in the file, whatever page the file ends up shown in.
	enc.SetIndent("", "  ")
	return enc.Encode(mispDoc{Event: ev})
}

// mispInfo is the event's title: what was looked up, and when.
func mispInfo(run MISPRun, t time.Time) string {
	what := run.What
	if what == "" {
		what = "lookup"
	}
	info := fmt.Sprintf("tilookup: %s, %s", what, t.Format("2006-01-02 15:04:05 UTC"))
	if run.Interrupted {
		info += " (interrupted: not every value was looked up)"
	}
	return info
}

// findingComment says where the service matched the value (or, for a
// watch, what changed) and, for a pivot, which values it leads to.
func findingComment(f Finding) string {
	c := matchedIn(f.Matches, f.More)
	switch {
	case f.Change != "" && c != "":
		c = f.Change + ". " + c
	case f.Change != "":
		c = f.Change
	case c == "":
		c = "Found by tilookup"
	}
	if len(f.Related) > 0 {
		rel := make([]string, 0, len(f.Related))
		for _, r := range f.Related {
			s := r.Value
			if r.Note != "" {
				s += " (" + r.Note + ")"
			}
			rel = append(rel, s)
		}
		c += ". Related to: " + strings.Join(rel, "; ")
	}
	if f.FromURL != "" {
		c += ". The host of " + f.FromURL + ", a URL in the report"
	}
	return c
}
