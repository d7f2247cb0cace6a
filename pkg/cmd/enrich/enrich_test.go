package enrich

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/enrich"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
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

// `enrich FILE >> FILE` would read its own output and grow FILE until the
// disk is full: it is refused before anything is read or written, whether
// FILE is named or on stdin; another file is no such case.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.csv")
	const in = "ip\n203.0.113.66\n"
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	appendTo := func(p string) *os.File {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	stdin := func() *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	stop := errors.New("went on past the check")
	tests := []struct {
		name string
		file string
		in   io.Reader
		out  io.Writer
		same bool
	}{
		{"named", path, nil, appendTo(path), true},
		{"stdin", "", stdin(), appendTo(path), true},
		{"another file", path, nil, appendTo(filepath.Join(dir, "out.csv")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			if tt.in != nil {
				ios.In = tt.in
			}
			ios.Out = tt.out
			opts := &Options{IO: ios, File: tt.file, NoSkip: true,
				Output: func() (output.Options, error) { return output.Options{}, stop }}
			err := run(context.Background(), opts)
			if !tt.same {
				if !errors.Is(err, stop) {
					t.Errorf("err = %v, want the run to go on", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "input file is output file") || failure.ExitCode(err) != failure.ExitUsage {
				t.Errorf("err = %v (exit %d), want exit 2 and \"input file is output file\"", err, failure.ExitCode(err))
			}
			if got, _ := os.ReadFile(path); string(got) != in {
				t.Errorf("the file changed: %q", got)
			}
		})
	}
}

// What enrich itself writes on stderr (the columns taken, the bad rows,
// the first failed cell) may quote an NDJSON key or a value: it reaches
// the terminal through pkg/sanitize, one line each.
func TestStderrSanitized(t *testing.T) {
	const hostile = "a\x1b]0;pwned\x07\u202e\u200b\u009b31m\nb"
	var b strings.Builder
	b.WriteString(describe([]enrich.Column{{Name: hostile, Kind: "ipv4"}}) + "\n")
	sink := &enrich.Sink{BadRows: []error{errors.New(hostile)}, Failed: 2, FirstErr: hostile}
	report(&b, sink)
	got := b.String()
	if i := strings.IndexFunc(got, func(r rune) bool { return r != '\n' && sanitize.IsUnsafe(r) }); i >= 0 {
		t.Errorf("%q reaches stderr:\n%q", []rune(got[i:])[0], got)
	}
	if n := strings.Count(got, "\n"); n != 3 {
		t.Errorf("%d lines, want 3:\n%s", n, got)
	}
}
