package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// --every runs again and again in one process, each run comparing with
// the one before (so the changes print once), until Ctrl-C, which ends it
// with exit 130.
func TestEveryRunsUntilInterrupted(t *testing.T) {
	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	values := filepath.Join(dir, "values.txt")
	os.WriteFile(values, []byte("CVE-2021-44228\n203.0.113.66\n"), 0o600)
	ios, _, out, _ := iostreams.Test()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var runs atomic.Int32
	opts := &Options{
		IO: ios,
		Lookups: online.Lookups{Client: func(int) (*api.Client, error) {
			return api.New(api.Options{BaseURL: srv.SearchURL, Token: sandbox.DemoToken}, true)
		}, Concurrency: 2},
		Format: func() (output.Format, error) { return output.NDJSON, nil },
		Scope:  func() (string, string, error) { return "default", srv.SearchURL, nil },
		Getenv: func(k string) string {
			if k == "XDG_STATE_HOME" {
				return dir
			}
			return ""
		},
		Now: func() time.Time {
			if runs.Add(1) == 3 {
				cancel() // Ctrl-C during the third run
			}
			return time.Now()
		},
		Name: "every", Files: []string{values}, Every: 10 * time.Millisecond,
	}
	err = run(ctx, opts)
	if failure.KindOf(err) != failure.Interrupted {
		t.Fatalf("err = %v, want an interruption", err)
	}
	if n := runs.Load(); n < 3 {
		t.Fatalf("%d runs", n)
	}
	if got := strings.Count(out.String(), `"change":"new"`); got != 2 {
		t.Fatalf("%d new records over the runs, want the 2 of the first run:\n%s", got, out)
	}
}
