package sandbox

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

//go:generate go run ./data/gen -o data/demo.json

//go:embed data/demo.json
var demoJSON []byte

// dataset is the demo data, parsed and indexed. Records stay raw JSON so
// that previews pass numbers (9007199254740993) and key order through
// exactly as written.
type dataset struct {
	resources []resource
	// index maps a normalized indicator to every place it occurs, in
	// resource order then record order: the search is one map lookup.
	index     map[string][]hit
	unindexed []string // resource.column=value of indexed cells no type fits
	eventsMe  json.RawMessage
}

type resource struct {
	ID      string            `json:"id"`
	Label   string            `json:"label"`
	Group   string            `json:"group"`
	Columns []string          `json:"columns"`
	Records []json.RawMessage `json:"records"`
}

type hit struct {
	res, rec, col int
	value         string // as written in the record
}

var (
	datasetOnce sync.Once
	datasetVal  *dataset
	datasetErr  error
)

// loadDataset parses the embedded data on first use rather than at init:
// the CLI links this package, and its start-up time is measured.
func loadDataset() (*dataset, error) {
	datasetOnce.Do(func() { datasetVal, datasetErr = parseDataset(demoJSON) })
	return datasetVal, datasetErr
}

func parseDataset(raw []byte) (*dataset, error) {
	var file struct {
		Resources []resource      `json:"resources"`
		EventsMe  json.RawMessage `json:"events_me"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("sandbox data: %w", err)
	}
	var events bytes.Buffer
	if err := json.Compact(&events, file.EventsMe); err != nil {
		return nil, fmt.Errorf("sandbox data: events_me: %w", err)
	}
	events.WriteByte('\n')
	ds := &dataset{resources: file.Resources, index: make(map[string][]hit), eventsMe: events.Bytes()}
	for ri, res := range ds.resources {
		for rj, rec := range res.Records {
			if err := ds.indexRecord(ri, rj, rec); err != nil {
				return nil, fmt.Errorf("sandbox data: %s record %d: %w", res.ID, rj, err)
			}
		}
	}
	return ds, nil
}

func (ds *dataset) indexRecord(ri, rj int, rec json.RawMessage) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(rec, &fields); err != nil {
		return err
	}
	for ci, col := range ds.resources[ri].Columns {
		raw, ok := fields[col]
		if !ok {
			continue // a record may leave a column empty
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("column %s: indexed values must be strings: %w", col, err)
		}
		typ := detectType(v)
		if typ == typeUnknown {
			// Unsearchable, so unindexed. Not fatal: when detection changes
			// (pkg/ioc evolves), one value should not take
			// the whole sandbox down. The data tests insist on none.
			ds.unindexed = append(ds.unindexed, fmt.Sprintf("%s.%s=%q", ds.resources[ri].ID, col, v))
			continue
		}
		key := normalize(v, typ)
		ds.index[key] = append(ds.index[key], hit{res: ri, rec: rj, col: ci, value: v})
	}
	return nil
}

// match is what one resource contributes to a search.
type match struct {
	res     int
	columns []string // every column that matched, in the resource's order
	value   string   // the first matched value, as the record writes it
	records []int    // distinct records, in data order
}

// lookup returns the matches for a normalized value, one per resource.
func (ds *dataset) lookup(key string) []match {
	var out []match
	for _, h := range ds.index[key] {
		if len(out) == 0 || out[len(out)-1].res != h.res {
			out = append(out, match{res: h.res, value: h.value})
		}
		m := &out[len(out)-1]
		col := ds.resources[h.res].Columns[h.col]
		if !contains(m.columns, col) {
			m.columns = append(m.columns, col)
		}
		if n := len(m.records); n == 0 || m.records[n-1] != h.rec {
			m.records = append(m.records, h.rec)
		}
	}
	for i := range out {
		sortColumns(&out[i], ds.resources[out[i].res].Columns)
	}
	return out
}

func (ds *dataset) resourceByID(id string) (int, bool) {
	for i, r := range ds.resources {
		if r.ID == id {
			return i, true
		}
	}
	return 0, false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// sortColumns puts matched columns in the resource's column order, so the
// answer does not depend on which record happened to match first.
func sortColumns(m *match, order []string) {
	var sorted []string
	for _, c := range order {
		if contains(m.columns, c) {
			sorted = append(sorted, c)
		}
	}
	m.columns = sorted
}
