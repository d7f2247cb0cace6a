package watch

import (
	"encoding/json"
	"strings"
)

// Kind is the kind of a change.
type Kind string

const (
	KindNone    Kind = ""
	KindNew     Kind = "new"     // matched now, not at the last good answer (or never asked)
	KindGone    Kind = "gone"    // matched at the last good answer, not now
	KindChanged Kind = "changed" // matched both times; a resource, a count or a preview differs
)

// Delta is one resource of a change: its count before and after, nil
// where the resource did not match.
type Delta struct {
	Resource string       `json:"resource"`
	Label    string       `json:"label"`
	Before   *json.Number `json:"before"`
	After    *json.Number `json:"after"`
}

// Name is how a person reads the resource: its label, else its id.
func (d Delta) Name() string {
	if d.Label != "" {
		return d.Label
	}
	return d.Resource
}

// Compare says how cur differs from prev (nil: never answered). Only the
// resources that differ are listed, in resource order: for new, every
// resource now; for gone, every resource before; for changed, those that
// appeared, disappeared, or whose count or preview records changed (a
// preview change shows as the same count before and after).
func Compare(prev, cur *Entry, labels map[string]string) (Kind, []Delta) {
	var before []Resource
	if prev != nil {
		before = prev.Resources
	}
	after := cur.Resources
	var kind Kind
	switch {
	case len(before) == 0 && len(after) == 0:
		return KindNone, nil
	case len(before) == 0:
		kind = KindNew
	case len(after) == 0:
		kind = KindGone
	default:
		kind = KindChanged
	}
	var ds []Delta
	i, j := 0, 0
	// Both lists are sorted by ID: one merge finds every difference.
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || i < len(before) && before[i].ID < after[j].ID:
			ds = append(ds, delta(labels, before[i].ID, &before[i].Count, nil))
			i++
		case i == len(before) || after[j].ID < before[i].ID:
			ds = append(ds, delta(labels, after[j].ID, nil, &after[j].Count))
			j++
		default:
			b, a := before[i], after[j]
			if !sameCount(b.Count, a.Count) || b.Digest != a.Digest {
				ds = append(ds, delta(labels, a.ID, &b.Count, &a.Count))
			}
			i++
			j++
		}
	}
	if len(ds) == 0 {
		return KindNone, nil
	}
	return kind, ds
}

func delta(labels map[string]string, id string, before, after *json.Number) Delta {
	d := Delta{Resource: id, Label: labels[id]}
	if before != nil {
		b := *before
		d.Before = &b
	}
	if after != nil {
		a := *after
		d.After = &a
	}
	return d
}

// sameCount compares counts as numbers written by one service: "3" and
// "3.0" or "03" are the same count.
func sameCount(a, b json.Number) bool {
	if a == b {
		return true
	}
	fa, ea := a.Float64()
	fb, eb := b.Float64()
	if ea == nil && eb == nil && fa < 1<<53 && fb < 1<<53 {
		return fa == fb
	}
	return strings.TrimLeft(string(a), "0") == strings.TrimLeft(string(b), "0")
}
