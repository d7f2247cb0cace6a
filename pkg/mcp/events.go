package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/failure"
)

type eventsInput struct {
	Detail string `json:"detail,omitempty" jsonschema:"summary: strings cut to 128 characters and every array to its first 5 elements, to see the answer's shape and latest events; full (the default): the whole answer, cut only to fit the budget"`
}

type eventsOutput struct {
	Events    any    `json:"events" jsonschema:"the service's answer to GET /api/events/me, free-form JSON"`
	Truncated string `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget"`
}

func eventsTool() *sdk.Tool {
	in := schemaFor[eventsInput]()
	detailEnum(in, detailFull)
	return &sdk.Tool{
		Name:        "events_me",
		Title:       "Current caller's events",
		InputSchema: in,
		Annotations: readOnly("Current caller's events", true),
		Description: `Call the service's current-caller events endpoint (GET /api/events/me) with the configured credentials and return its JSON answer, whatever its shape. Fails with the service's reason on 401 (not authenticated), 403 (no permission) or 404 (no events for this caller). Use detail "summary" first on an answer you do not know (every string and array cut short: its shape and latest events), detail "full" (the default) to read it.` + dataWarning,
	}
}

func (t *tools) eventsMe(ctx context.Context, _ *sdk.CallToolRequest, in eventsInput) (*sdk.CallToolResult, eventsOutput, error) {
	body, err := t.cfg.EventsMe(ctx)
	if err != nil {
		return nil, eventsOutput{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, eventsOutput{}, failure.Wrap(failure.Decode, err, "events: the answer is not JSON; run tilookup events me --debug to see it")
	}
	first := 0
	if in.Detail == detailSummary {
		first = summaryEventLevel
	}
	return fit(t.cfg.MaxBytes, len(eventLevels)+1-first, filling{}, nil, func(level int, _ filling) eventsOutput {
		out := renderEvents(v, len(body), t.cfg.MaxBytes, first+level)
		if first > 0 && out.Truncated != "" {
			out.Truncated = `Detail "summary": ` + out.Truncated
		}
		return out
	})
}

// eventLevels are the cuts tried in turn on a free-form answer: strings
// first, then every array to fewer elements; the last level drops it.
var eventLevels = []freeForm{
	{maxRunes: maxString, maxItems: -1},
	{maxRunes: 256, maxItems: -1},
	{maxRunes: 256, maxItems: 100},
	{maxRunes: 256, maxItems: 50},
	{maxRunes: 256, maxItems: 20},
	{maxRunes: 128, maxItems: 10},
	{maxRunes: 128, maxItems: 5},
	{maxRunes: 64, maxItems: 2},
	{maxRunes: 64, maxItems: 1},
}

// summaryEventLevel is where detail "summary" starts in eventLevels.
const summaryEventLevel = 5

func renderEvents(v any, size, budget, level int) eventsOutput {
	if level >= len(eventLevels) {
		return eventsOutput{Truncated: fmt.Sprintf("The answer (%d bytes) does not fit the %d-byte answer budget (config mcp_max_bytes) even cut down, so it is left out. Run `tilookup events me -o json` in a terminal to see it.", size, budget)}
	}
	ff := eventLevels[level]
	out := eventsOutput{Events: ff.value(v)}
	var parts []string
	if ff.cutRunes > 0 {
		parts = append(parts, fmt.Sprintf("%s cut to %d characters", plural(ff.cutRunes, "string"), ff.maxRunes))
	}
	if ff.cutItems > 0 {
		parts = append(parts, fmt.Sprintf("every array cut to its first %d elements (%d elements left out)", ff.maxItems, ff.cutItems))
	}
	if len(parts) > 0 {
		out.Truncated = fmt.Sprintf("Cut to fit the %d-byte answer budget (config mcp_max_bytes): %s. Run `tilookup events me -o json` in a terminal for the whole answer.", budget, strings.Join(parts, "; "))
	}
	return out
}
