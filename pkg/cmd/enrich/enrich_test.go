package enrich

import (
	"testing"

	"github.com/tilookup/tilookup/pkg/enrich"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/output"
)

// The output is the input's format unless -o asks for JSON; a format that
// cannot carry the records is a usage error before any request.
func TestOutputFormat(t *testing.T) {
	tests := []struct {
		set    bool
		f      output.Format
		in     enrich.Format
		ndjson bool
		err    bool
	}{
		{false, output.Table, enrich.CSV, false, false},
		{false, output.JSON, enrich.CSV, false, false}, // a config default is not -o
		{false, output.Table, enrich.NDJSON, true, false},
		{true, output.JSON, enrich.CSV, true, false},
		{true, output.NDJSON, enrich.TSV, true, false},
		{true, output.CSV, enrich.CSV, false, false},
		{true, output.Table, enrich.TSV, false, false},
		{true, output.CSV, enrich.NDJSON, false, true},
		{true, output.MD, enrich.CSV, false, true},
		{true, output.STIX, enrich.NDJSON, false, true},
	}
	for _, tt := range tests {
		ndjson, err := outputFormat(tt.set, tt.f, tt.in)
		if ndjson != tt.ndjson || (err != nil) != tt.err {
			t.Errorf("outputFormat(%v, %s, %s) = %v, %v", tt.set, tt.f, tt.in, ndjson, err)
		}
		if err != nil && failure.ExitCode(err) != failure.ExitUsage {
			t.Errorf("outputFormat(%v, %s, %s): exit %d, want 2", tt.set, tt.f, tt.in, failure.ExitCode(err))
		}
	}
}
