package mcp

import (
	"context"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// maxDetect bounds one detect call; it is free, but its answer is not.
const maxDetect = 1000

type detectInput struct {
	Values   []string `json:"values" jsonschema:"the values to check, as pasted (defanged forms are refanged)"`
	NoRefang bool     `json:"no_refang,omitempty" jsonschema:"take the values exactly as given"`
}

type detectOutput struct {
	Values    []detected `json:"values"`
	Truncated string     `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget"`
}

type detected struct {
	Input string     `json:"input"`
	Value string     `json:"value,omitempty" jsonschema:"the value search would send: refanged, trimmed and normalised"`
	Type  string     `json:"type,omitempty"` // described from ioc's type table: see detectTool
	Error *errorInfo `json:"error,omitempty" jsonschema:"why the value would be refused (empty, control characters, several indicators in one)"`
}

func detectTool() *sdk.Tool {
	in := schemaFor[detectInput]()
	list(in.Properties["values"], 1, maxDetect)
	out := schemaFor[detectOutput]()
	types := strings.Join(ioc.TypeNames(), ", ")
	out.Properties["values"].Items.Properties["type"].Description = types + " or " + string(ioc.Unknown)
	return &sdk.Tool{
		Name:         "detect",
		Annotations:  readOnly("Detect indicator types (offline)", false),
		InputSchema:  in,
		OutputSchema: out,
		Description:  `Offline and free: refang each value (hxxps://evil[.]example -> https://evil.example), take off the quotes, brackets and punctuation that cling to a pasted value, normalise it as search would send it, and tell its type (` + types + ", " + string(ioc.Unknown) + `). Nothing is sent anywhere.`,
	}
}

func (t *tools) detect(_ context.Context, _ *sdk.CallToolRequest, in detectInput) (*sdk.CallToolResult, detectOutput, error) {
	if len(in.Values) > maxDetect {
		return nil, detectOutput{}, failure.New(failure.Usage, "%d values: at most %d per call", len(in.Values), maxDetect)
	}
	all := make([]detected, len(in.Values))
	for i, v := range in.Values {
		d := detected{Input: clean(v, maxString)}
		value, typ, err := ioc.Prepare(v, !in.NoRefang)
		if err != nil {
			d.Error = errorOf(err)
		} else {
			d.Value, d.Type = sanitize.String(value), string(typ)
		}
		all[i] = d
	}
	return fit(t.cfg.MaxBytes, len(all)+1, func(level int) detectOutput {
		n := len(all) - level
		out := detectOutput{Values: all[:n]}
		if n < len(all) {
			out.Truncated = fmt.Sprintf("Cut to fit the %d-byte answer budget (config mcp_max_bytes): the first %d of %d values are shown. Call detect again with the values from %q on.", t.cfg.MaxBytes, n, len(all), clean(all[n].Input, noteRunes))
		}
		return out
	})
}

type extractInput struct {
	Text  string   `json:"text" jsonschema:"free text: a report, an e-mail, notes, a chat log"`
	Types []string `json:"types,omitempty"` // described from ioc's type table: see extractTool
}

type extractOutput struct {
	Count      int         `json:"count" jsonschema:"how many indicators were found"`
	Indicators []extracted `json:"indicators" jsonschema:"refanged, normalised, de-duplicated, in order of first appearance"`
	Truncated  string      `json:"truncated,omitempty" jsonschema:"present when the answer was cut to fit the byte budget"`
}

type extracted struct {
	Value string `json:"value"`
	Type  string `json:"type"`
}

func extractTool() *sdk.Tool {
	in := schemaFor[extractInput]()
	list(in.Properties["types"], 0, 0)
	in.Properties["types"].Description = "only these types: " + strings.Join(ioc.TypeNames(), ", ") + ", or the groups hash, ip and all"
	return &sdk.Tool{
		InputSchema: in,
		Name:        "extract",
		Annotations: readOnly("Extract indicators from text (offline)", false),
		Description: `Offline and free: every indicator of compromise in a free text (hashes, IPv4 and IPv6 addresses, domains, URLs, CVE IDs, e-mail addresses), refanged, normalised, de-duplicated, in order of first appearance. File names (invoice.pdf) and version numbers are not taken for domains or addresses. Nothing is sent anywhere; pass the values to search, or the whole text to triage.`,
	}
}

func (t *tools) extract(_ context.Context, _ *sdk.CallToolRequest, in extractInput) (*sdk.CallToolResult, extractOutput, error) {
	all, err := extractFrom(strings.NewReader(in.Text), in.Types)
	if err != nil {
		return nil, extractOutput{}, err
	}
	return fit(t.cfg.MaxBytes, len(all)+1, func(level int) extractOutput {
		n := len(all) - level
		out := extractOutput{Count: len(all), Indicators: all[:n]}
		if n < len(all) {
			out.Truncated = fmt.Sprintf("Cut to fit the %d-byte answer budget (config mcp_max_bytes): the first %d of %d indicators are shown, the rest from %s on are left out. Pass less text, or fewer types.", t.cfg.MaxBytes, n, len(all), clean(all[n].Value, noteRunes))
		}
		return out
	})
}

// extractFrom is every indicator of r, of the given types (all when none
// is given).
func extractFrom(r io.Reader, typeNames []string) ([]extracted, error) {
	var types []ioc.Type
	if len(typeNames) > 0 {
		var err error
		if types, err = ioc.ParseTypes(strings.Join(typeNames, ",")); err != nil {
			return nil, err
		}
	}
	all := []extracted{}
	err := ioc.ExtractReader(r, types, func(ind ioc.Indicator) error {
		all = append(all, extracted{Value: sanitize.String(ind.Value), Type: string(ind.Type)})
		return nil
	})
	return all, err
}
