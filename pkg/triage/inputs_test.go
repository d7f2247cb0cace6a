package triage

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/ioc"
)

// A file OpenInputs maps reads, and is searched, exactly as the same file
// read through OpenLazy; what Open would not read as it is (another
// encoding, HTML, a NUL that may make it binary) is not mapped.
func TestOpenInputsMapsPlainText(t *testing.T) {
	fixtures, _ := filepath.Glob("../ioc/testdata/extract/*.txt")
	if len(fixtures) == 0 {
		t.Fatal("no extraction fixtures")
	}
	report, err := os.ReadFile(fixtures[0])
	if err != nil {
		t.Fatal(err)
	}
	type input struct {
		name   string
		text   []byte
		format Format
		mapped bool
		either bool // a fixture: mapped or not, it reads the same
	}
	inputs := []input{
		{"report.txt", report, Auto, true, false},
		{"report.txt", bytes.TrimRight(report, "\n"), Auto, true, false},
		{"report.txt", append([]byte{0xef, 0xbb, 0xbf}, report...), Auto, true, false},
		{"report.txt", append([]byte{0xff, 0xfe}, []byte("1\x002\x00.\x003\x00")...), Auto, false, false},
		{"report.txt", append([]byte{0x2b, 0x2f, 0x76}, report...), Auto, false, false},
		{"report.txt", append([]byte("a NUL\x00 in a log 192.0.2.1\n"), report...), Auto, false, false},
		{"report.html", report, Auto, false, false},
		{"report.txt", []byte("<!DOCTYPE html><p>seen at 192.0.2.1</p>"), Auto, false, false},
		{"report.txt", []byte("<!DOCTYPE html><p>seen at 192.0.2.1</p>"), Text, true, false},
		{"report.txt", report, HTML, false, false},
	}
	for _, f := range fixtures {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{filepath.Base(f), text, Auto, true, true})
	}
	for i, in := range inputs {
		name := filepath.Join(t.TempDir(), in.name)
		if err := os.WriteFile(name, in.text, 0o644); err != nil {
			t.Fatal(err)
		}
		r, closeAll, err := openInputs(nil, []string{name}, in.format, nil, os.Open, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, mapped := r.(ioc.Lines); mapped != in.mapped && !in.either {
			t.Errorf("input %d (%s, %s): mapped %v, want %v", i, in.name, in.format, mapped, in.mapped)
		}
		got, gotErr := extractAll(r)
		closeAll()

		fh, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := extractAll(io.MultiReader(OpenLazy(fh, name, in.format, nil), strings.NewReader("\n")))
		fh.Close()
		if !slices.Equal(got, want) || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("input %d (%s, %s): %d indicators (%v), want %d (%v)", i, in.name, in.format, len(got), gotErr, len(want), wantErr)
		}

		r, closeAll, err = openInputs(nil, []string{name}, in.format, nil, os.Open, 0)
		if err != nil {
			t.Fatal(err)
		}
		read, _ := io.ReadAll(r)
		closeAll()
		fh, _ = os.Open(name)
		wantRead, _ := io.ReadAll(io.MultiReader(OpenLazy(fh, name, in.format, nil), strings.NewReader("\n")))
		fh.Close()
		if !bytes.Equal(read, wantRead) {
			t.Errorf("input %d (%s, %s): reads %d bytes, not the %d OpenLazy reads", i, in.name, in.format, len(read), len(wantRead))
		}
	}
}

// Small files are read, not mapped; several files are read one after
// another.
func TestOpenInputsMapsOneLargeFile(t *testing.T) {
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.txt"), filepath.Join(dir, "large.txt")
	os.WriteFile(small, []byte("192.0.2.1\n"), 0o644)
	os.WriteFile(large, bytes.Repeat([]byte("192.0.2.1 evil.example.com\n"), minMapped/20), 0o644)
	for _, c := range []struct {
		names  []string
		mapped bool
	}{{[]string{small}, false}, {[]string{large}, true}, {[]string{large, small}, false}} {
		r, closeAll, err := OpenInputs(nil, c.names, Auto, nil, os.Open)
		if err != nil {
			t.Fatal(err)
		}
		if _, mapped := r.(ioc.Lines); mapped != c.mapped {
			t.Errorf("%v: mapped %v, want %v", c.names, mapped, c.mapped)
		}
		closeAll()
	}
}

func extractAll(r io.Reader) ([]ioc.Indicator, error) {
	var got []ioc.Indicator
	err := ioc.Extract(r, ioc.ExtractOptions{}, func(in ioc.Indicator) error { got = append(got, in); return nil })
	return got, err
}

// A file cut short after it was opened is an error at its end, read as one
// of several files or as stdin, as it is when mapped (ioc.ErrTextGone):
// otherwise what was read would pass for the whole input.
func TestInputCutShortIsAnError(t *testing.T) {
	dir := t.TempDir()
	name, other := filepath.Join(dir, "report.txt"), filepath.Join(dir, "other.txt")
	text := bytes.Repeat([]byte("seen at 192.0.2.1 and evil.example.com\n"), 1000)
	for _, stdin := range []bool{false, true} {
		os.WriteFile(name, text, 0o644)
		os.WriteFile(other, []byte("198.51.100.7\n"), 0o644)
		names := []string{other, name}
		var in *os.File
		if stdin {
			var err error
			if in, err = os.Open(name); err != nil {
				t.Fatal(err)
			}
			names = []string{"-"}
		}
		r, closeAll, err := openInputs(in, names, Auto, nil, os.Open, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(name, int64(len(text)/2)); err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(r)
		closeAll()
		if in != nil {
			in.Close()
		}
		var ie *InputError
		if !errors.Is(err, ioc.ErrTextGone) || !errors.As(err, &ie) {
			t.Errorf("stdin %v: %v, want the input named and ErrTextGone", stdin, err)
		}
	}
}
