package pivot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// newOptions is a pivot from the sandbox's EICAR hash, one level deep,
// writing format to a terminal (tty) or a pipe.
func newOptions(t *testing.T, name string, tty bool) (*Options, *strings.Builder) {
	t.Helper()
	srv, err := sandbox.Start(sandbox.Options{}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ios, _, _, _ := iostreams.Test()
	ios.SetTTY(false, tty, false)
	ios.SetTerminalWidth(80)
	out := &strings.Builder{}
	ios.Out = out
	opts := &Options{
		IO: ios,
		Lookups: online.Lookups{
			Client: func(int) (*api.Client, error) {
				return api.New(api.Options{BaseURL: srv.SearchURL, Token: sandbox.DemoToken}, false)
			},
			Concurrency: 2,
		},
		Setting: func(key string) (string, error) {
			if key == "output" {
				return name, nil
			}
			return "", nil
		},
		Format: func() (format.Name, error) { return format.Resolve("pivot", name, true) },
		Now:    time.Now,
		Values: []string{"44d88612fea8a8f36de82e1278abb02f"}, Depth: 1, MaxLookups: 20,
	}
	return opts, out
}

// At a terminal the tree goes through the pager, started once the walk is
// done; piped, or in another format, never.
func TestTreePagesAtATerminal(t *testing.T) {
	for _, tc := range []struct {
		format string
		tty    bool
		pages  bool
	}{{"table", true, true}, {"table", false, false}, {"json", true, false}} {
		opts, out := newOptions(t, tc.format, tc.tty)
		started, stopped := 0, 0
		opts.StartPager = func() func() {
			started++
			return func() { stopped++ }
		}
		if err := run(context.Background(), opts); err != nil {
			t.Fatalf("%s tty=%v: %v", tc.format, tc.tty, err)
		}
		if want := map[bool]int{true: 1, false: 0}[tc.pages]; started != want || stopped != want {
			t.Errorf("%s tty=%v: pager started %d, stopped %d times, want %d", tc.format, tc.tty, started, stopped, want)
		}
		if !strings.Contains(out.String(), "44d88612fea8a8f36de82e1278abb02f") {
			t.Errorf("%s tty=%v: the start is not in the output:\n%s", tc.format, tc.tty, out)
		}
	}
}

// Quitting the pager before the end of the tree is no error.
func TestTreeQuitPagerEarly(t *testing.T) {
	opts, _ := newOptions(t, "table", true)
	opts.StartPager = func() func() {
		opts.IO.Out = quitPager{}
		return func() {}
	}
	if err := run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
}

type quitPager struct{}

func (quitPager) Write([]byte) (int, error) { return 0, iostreams.ErrClosedPager }

// -i without a terminal is a usage error before the run, so before any
// lookup, and nothing goes to stdout.
func TestInteractiveNeedsATerminal(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	ran := false
	cmd := NewCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(context.Context, *Options) error { ran = true; return nil })
	cmd.SetArgs([]string{"--sandbox", "-i", "44d88612fea8a8f36de82e1278abb02f"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	if failure.ExitCode(err) != failure.ExitUsage || ran || out.Len() != 0 {
		t.Fatalf("exit %d (%v), ran %v, stdout %q", failure.ExitCode(err), err, ran, out)
	}
}
