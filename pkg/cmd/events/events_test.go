package events

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

// TestFlags: the command line reaches MeOptions through the runF seam.
func TestFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *MeOptions
	cmd := newMeCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(_ context.Context, o *MeOptions) error {
		got = o
		return nil
	})
	cmd.SetArgs([]string{"--sandbox", "--jq", ".user", "--no-pager"})
	cmd.SetOut(io.Discard)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.Sandbox || got.JQ != ".user" || !got.NoPager {
		t.Errorf("options = %+v", got)
	}
	cmd = newMeCmd(&online.Factory{Factory: &cmdutil.Factory{IO: ios}}, func(context.Context, *MeOptions) error { return nil })
	cmd.SetArgs([]string{"extra"})
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil {
		t.Error("an argument was accepted")
	}
}

type fakes struct {
	calls   []string
	pagerOn bool
}

func newOpts(t *testing.T, body string, fetchErr error) (*MeOptions, *fakes, *strings.Builder) {
	ios, _, _, _ := iostreams.Test()
	var out strings.Builder
	ios.Out = &out
	fk := &fakes{}
	return &MeOptions{
		IO: ios,
		StartSandbox: func() (io.Closer, error) {
			fk.calls = append(fk.calls, "sandbox")
			return io.NopCloser(nil), nil
		},
		Fetch: func(context.Context) ([]byte, error) {
			fk.calls = append(fk.calls, "fetch")
			return []byte(body), fetchErr
		},
		Output: func(jq string) (output.Options, error) {
			fk.calls = append(fk.calls, "output")
			return output.Options{Format: output.Table, Out: ios.Out, Width: 80, JQ: jq}, nil
		},
		StartPager: func(noPager bool) func() {
			fk.calls = append(fk.calls, "pager")
			fk.pagerOn = !noPager
			return func() { fk.calls = append(fk.calls, "stop") }
		},
	}, fk, &out
}

const payload = `{"user":{"name":"demo","roles":["a","b"]},"unread":4,"events":[{"id":"e1","sighting":9007199254740993}]}`

func TestRunMe(t *testing.T) {
	opts, fk, out := newOpts(t, payload, nil)
	opts.Sandbox = true
	if err := runMe(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fk.calls, ","); got != "sandbox,output,fetch,pager,output,stop" {
		t.Errorf("calls = %s", got)
	}
	for _, want := range []string{"user.name:", "demo", "user.roles:", "a, b", "events (1)", "9007199254740993"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !fk.pagerOn {
		t.Error("pager not asked for")
	}
}

func TestRunMeNoPager(t *testing.T) {
	opts, fk, _ := newOpts(t, payload, nil)
	opts.NoPager = true
	if err := runMe(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if fk.pagerOn {
		t.Error("--no-pager ignored")
	}
}

// TestRunMeFetchError: a failed call is returned as is (its kind gives the
// exit code), and no pager is started for it.
func TestRunMeFetchError(t *testing.T) {
	want := failure.New(failure.Forbidden, "403 Forbidden")
	opts, fk, out := newOpts(t, "", want)
	err := runMe(context.Background(), opts)
	if !errors.Is(err, want) || failure.ExitCode(err) != 4 {
		t.Errorf("err = %v (exit %d)", err, failure.ExitCode(err))
	}
	if strings.Contains(strings.Join(fk.calls, ","), "pager") || out.Len() != 0 {
		t.Errorf("calls %v, output %q", fk.calls, out)
	}
}

func TestRunMeBadBody(t *testing.T) {
	opts, _, _ := newOpts(t, "<html>", nil)
	if err := runMe(context.Background(), opts); failure.KindOf(err) != failure.Decode {
		t.Errorf("err = %v", err)
	}
}

// TestRunMePagerQuit: when the user quits the pager early, the command
// succeeds.
func TestRunMePagerQuit(t *testing.T) {
	opts, _, _ := newOpts(t, payload, nil)
	opts.Output = func(jq string) (output.Options, error) {
		return output.Options{Out: closedPager{}}, nil
	}
	if err := runMe(context.Background(), opts); err != nil {
		t.Errorf("err = %v", err)
	}
}

type closedPager struct{}

func (closedPager) Write([]byte) (int, error) { return 0, iostreams.ErrClosedPager }
