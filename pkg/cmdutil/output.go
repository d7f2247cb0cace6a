package cmdutil

import (
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output"
)

// OutputOptions resolves the output format and terminal facts for a
// printer. --jq implies JSON when the format is table or csv.
func OutputOptions(f *Factory, jq string) (output.Options, error) {
	name, err := f.Get("output")
	if err != nil {
		return output.Options{}, err
	}
	format, err := output.ParseFormat(name)
	if err != nil {
		return output.Options{}, failure.New(failure.Usage, "%v", err)
	}
	if jq != "" && format != output.NDJSON {
		format = output.JSON
	}
	return output.Options{
		Format: format,
		Out:    f.IO.Out,
		TTY:    f.IO.IsStdoutTTY(),
		Color:  f.IO.ColorEnabled(),
		JQ:     jq,
	}, nil
}
