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

// NoDocument refuses md and stix, the whole-run documents that only search
// and triage write, for the commands that print records of another shape
// (detect, extract, events me).
func NoDocument(format output.Format) error {
	if format == output.MD || format == output.STIX {
		return failure.New(failure.Usage, "-o %s is written by search and triage only: use table, json, ndjson or csv here", format)
	}
	return nil
}
