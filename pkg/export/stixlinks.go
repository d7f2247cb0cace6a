package export

import (
	"io"

	"github.com/tilookup/tilookup/pkg/report"
)

// Link says that one indicator's answer named another: pivot's edges.
// Description says where (the resource and the preview field).
type Link struct {
	FromValue, FromType string
	ToValue, ToType     string
	Description         string
}

// STIXLinked writes r as STIX describes, plus a related-to relationship
// between the observables of each link (STIX 2.1 lets a relationship join
// two SCOs), so that a platform shows the neighbourhood a pivot walked. A
// link with an end that has no observable (a CVE, an unknown type) is
// left out: a relationship to an object not in the bundle would dangle.
func STIXLinked(w io.Writer, r *report.Report, links []Link, opts STIXOptions) error {
	b, err := newBundler(r, opts)
	if err != nil {
		return err
	}
	for _, in := range r.Indicators {
		if err := b.add(in); err != nil {
			return err
		}
	}
	for _, l := range links {
		from, okFrom := b.scoOf(l.FromValue, l.FromType)
		to, okTo := b.scoOf(l.ToValue, l.ToType)
		if !okFrom || !okTo || from == to {
			continue
		}
		id := sdoID("relationship", "related-to", from, to)
		if b.seen[id] {
			continue // the same two values, linked again
		}
		b.seen[id] = true
		b.objects = append(b.objects, object{
			Type: "relationship", SpecVersion: "2.1", ID: id,
			CreatedByRef: identity.ID, Created: b.time, Modified: b.time,
			RelationshipType: "related-to", Description: l.Description, SourceRef: from, TargetRef: to,
			ObjectMarkingRefs: b.marking,
		})
	}
	return b.write(w, r, opts)
}

// scoOf is the id of the observable of (value, type) when the bundle holds
// it.
func (b *bundler) scoOf(value, typ string) (string, bool) {
	obs, ok := observableOf(typ)
	if !ok {
		return "", false
	}
	id := obs.object(obs.canonical(value)).ID
	return id, b.seen[id]
}
