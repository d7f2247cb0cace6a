package watch

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// brokenOut takes limit bytes, then fails every write with err: a reader
// that went away (EPIPE after `| head -1`) or a full disk (limit 0).
type brokenOut struct {
	limit int
	err   error
}

func (b *brokenOut) Write(p []byte) (int, error) {
	if len(p) <= b.limit {
		b.limit -= len(p)
		return len(p), nil
	}
	n := b.limit
	b.limit = 0
	return n, b.err
}

// A run whose output cannot be written must not advance the state: the
// changes it found are reported by the next run, not lost. It fails with
// one line on stderr saying so.
func TestOutputFailureKeepsTheState(t *testing.T) {
	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	values := filepath.Join(dir, "values.txt")
	os.WriteFile(values, []byte("44d88612fea8a8f36de82e1278abb02f\n203.0.113.66\nCVE-2021-44228\n"), 0o600)
	newOpts := func(name string, out io.Writer, f output.Format) (*Options, *strings.Builder) {
		ios, _, _, _ := iostreams.Test()
		var stderr strings.Builder
		ios.Out, ios.ErrOut = out, &stderr
		return &Options{
			IO: ios,
			Lookups: online.Lookups{Client: func(int) (*api.Client, error) {
				return api.New(api.Options{BaseURL: srv.SearchURL, Token: sandbox.DemoToken}, true)
			}, Concurrency: 2},
			Format: func() (output.Format, error) { return f, nil },
			Scope:  func() (string, string, error) { return "default", srv.SearchURL, nil },
			Getenv: func(k string) string {
				if k == "XDG_STATE_HOME" {
					return dir
				}
				return ""
			},
			Now:  time.Now,
			Name: name, Files: []string{values},
		}, &stderr
	}
	for _, tt := range []struct {
		name   string
		format output.Format
		out    *brokenOut
	}{
		{"full-disk-table", output.Table, &brokenOut{0, syscall.ENOSPC}},
		{"full-disk-md", output.MD, &brokenOut{0, syscall.ENOSPC}},
		{"head-1-ndjson", output.NDJSON, &brokenOut{40, syscall.EPIPE}},
		{"head-1-json", output.JSON, &brokenOut{40, syscall.EPIPE}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts, stderr := newOpts(tt.name, tt.out, tt.format)
			err := runOnce(context.Background(), opts)
			if failure.KindOf(err) != failure.IO || !errors.Is(err, tt.out.err) {
				t.Fatalf("err = %v, want the output's failure", err)
			}
			if !strings.Contains(err.Error(), "the watch state is unchanged") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line saying the state is unchanged", err)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr %q: the error's line is the only one", stderr.String())
			}
			var good strings.Builder
			opts, _ = newOpts(tt.name, &good, output.NDJSON)
			err = runOnce(context.Background(), opts)
			if err != nil {
				t.Fatalf("the next run: %v", err)
			}
			if n := strings.Count(good.String(), `"change":"new"`); n != 3 {
				t.Fatalf("the next run reports %d new values, want the 3 the failed run could not write:\n%s", n, good.String())
			}
		})
	}
}
