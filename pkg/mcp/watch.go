package mcp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/watch"
)

// maxWatchChanges bounds the changes one watch call holds: a list of
// 100,000 values checked for the first time in months may change whole,
// and the answer keeps far fewer within any budget; the rest are counted.
const maxWatchChanges = 1000

type watchInput struct {
	Name string `json:"name" jsonschema:"the watch list's NAME, as tilookup watch --name NAME started it (tilookup watch list names them)"`
}

type watchOutput struct {
	Summary   watchSummary  `json:"summary"`
	Changes   []watchChange `json:"changes" jsonschema:"the changes in the list's order (values sorted), as tilookup watch -o json gives them, with the detail_urls of a new or changed value's matching resources"`
	Omitted   int           `json:"omitted,omitempty" jsonschema:"changes left out to fit the byte budget (they are counted in the summary)"`
	Truncated string        `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget: what was left out and how to get it"`
}

type watchSummary struct {
	Name      string `json:"name"`
	Values    int    `json:"values" jsonschema:"the values of the list checked again"`
	New       int    `json:"new"`
	Gone      int    `json:"gone"`
	Changed   int    `json:"changed"`
	Failed    int    `json:"failed" jsonschema:"values whose lookup failed this time: they keep their last good answer"`
	CheckedAt string `json:"checked_at"`
}

// watchChange is watch.Change as the CLI's -o json writes it, and the
// detail pages the CLI keeps for -o misp.
type watchChange struct {
	Value             string           `json:"value"`
	Type              string           `json:"type"`
	Change            string           `json:"change" jsonschema:"new, gone, changed or error"`
	Resources         []watch.Delta    `json:"resources" jsonschema:"the resources that differ: label, and count before and after (null where the resource did not match)"`
	CheckedAt         string           `json:"checked_at"`
	PreviousCheckedAt *string          `json:"previous_checked_at"`
	Error             *watch.ErrorInfo `json:"error,omitempty"`
	DetailURLs        []string         `json:"detail_urls,omitempty" jsonschema:"the service's pages of the matching resources: the evidence to cite"`
}

func watchTool() *sdk.Tool {
	open := true
	return &sdk.Tool{
		Name:  "watch",
		Title: "Check a watch list again",
		// The one tool that writes: it updates the list's state, as a run
		// of tilookup watch does. Not idempotent: a second call reports
		// nothing of what the first reported.
		Annotations: &sdk.ToolAnnotations{Title: "Check a watch list again", ReadOnlyHint: false, DestructiveHint: new(false), IdempotentHint: false, OpenWorldHint: &open},
		Description: `Check the watch list NAME again, as tilookup watch --name NAME does: look each of its values up and report only what changed since the list's last check: new (matched now, not before), gone (matched before, not now), changed (a resource appeared or went, or a count or its preview records changed), each with its resources' counts before and after (null where a resource did not match); error for a value whose lookup failed (it keeps its last good answer). WRITES: the list's state is updated as the CLI's run updates it, under the same lock (a run of the same list at the same time waits), so a second call reports only what changed after this one. COST: one lookup per value of the list. An unknown NAME is an error naming the lists there are.` + dataWarning,
	}
}

func (t *tools) watch(ctx context.Context, _ *sdk.CallToolRequest, in watchInput) (*sdk.CallToolResult, watchOutput, error) {
	store, searcher, err := t.cfg.Watch()
	if err != nil {
		return nil, watchOutput{}, err
	}
	// The CLI's chain: the service without the answer cache, answers
	// decoded when they match, one request per distinct value; here at
	// the server's pace.
	chain := lookup.Dedup(watch.DecodeMatches(t.limited(searcher)))
	look := func(ctx context.Context, src lookup.Source, sink lookup.Sink) error {
		return lookup.Run(ctx, src, chain, lookup.Options{Concurrency: t.cfg.Concurrency}, sink)
	}
	got := &heldChanges{changes: []watchChange{}, kinds: map[string]int{}}
	now := t.cfg.Now()
	tally, err := store.Recheck(ctx, in.Name, now, look, got)
	if err != nil {
		return nil, watchOutput{}, err
	}
	sum := watchSummary{Name: in.Name, Values: tally.Total(), New: got.kinds[string(watch.KindNew)], Gone: got.kinds[string(watch.KindGone)],
		Changed: got.kinds[string(watch.KindChanged)], Failed: tally.Failed, CheckedAt: now.UTC().Format(time.RFC3339)}
	all := len(got.changes) + got.dropped
	return fit(t.cfg.MaxBytes, 2, filling{kept: len(got.changes)}, nil, func(level int, f filling) watchOutput {
		out := watchOutput{Summary: sum, Changes: got.changes}
		if level > 0 {
			out.Changes = got.changes[:f.kept]
		}
		if left := all - len(out.Changes); left > 0 {
			out.Omitted = left
			out.Truncated = fmt.Sprintf("%s of %d left out to fit the budget (mcp_max_bytes); they are counted in the summary and the state is updated: tilookup watch list shows the list, and the next change of a value left out is reported again", plural(left, "change"), all)
		}
		return out
	})
}

// heldChanges is the watch tool's Emitter: the first maxWatchChanges
// changes, made safe to send, and the count of each kind.
type heldChanges struct {
	changes []watchChange
	dropped int
	kinds   map[string]int
}

func (h *heldChanges) Add(c watch.Change) error {
	h.kinds[c.Change]++
	if len(h.changes) == maxWatchChanges {
		h.dropped++
		return nil
	}
	// The value is the list's own, but labels, messages and pages come
	// from the service.
	c.Value = clean(c.Value, maxString)
	res := make([]watch.Delta, len(c.Resources))
	for i, d := range c.Resources {
		d.Resource, d.Label = clean(d.Resource, maxString), clean(d.Label, maxString)
		res[i] = d
	}
	c.Resources = res
	if c.Error != nil {
		c.Error = &watch.ErrorInfo{Kind: c.Error.Kind, Message: clean(c.Error.Message, maxString)}
	}
	wc := watchChange{Value: c.Value, Type: c.Type, Change: c.Change, Resources: c.Resources, CheckedAt: c.CheckedAt, PreviousCheckedAt: c.PreviousCheckedAt, Error: c.Error}
	for _, p := range c.Pages {
		wc.DetailURLs = append(wc.DetailURLs, clean(p.DetailURL, maxString))
	}
	h.changes = append(h.changes, wc)
	return nil
}

func (h *heldChanges) Flush() error { return nil }
