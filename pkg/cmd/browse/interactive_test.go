package browse

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// interactive runs Interactive at a terminal with -o set to output ("" =
// not given) and says whether the run ran.
func interactive(t *testing.T, on bool, output string) (bool, error) {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	ios.SetTTY(true, true, true)
	fl := pflag.NewFlagSet("root", pflag.ContinueOnError)
	fl.StringP("output", "o", "", "")
	if output != "" {
		if err := fl.Set("output", output); err != nil {
			t.Fatal(err)
		}
	}
	ran := false
	err := Interactive(&cobra.Command{Use: "triage"}, &online.Factory{Factory: &cmdutil.Factory{IO: ios, Flags: fl}}, on, "report.txt",
		func() error { ran = true; return failure.New(failure.NoMatch, "no match") })
	return ran, err
}

func TestInteractiveRefusesOtherFormats(t *testing.T) {
	for _, o := range []string{"csv", "table", "ndjson", "stix"} {
		ran, err := interactive(t, true, o)
		if failure.ExitCode(err) != failure.ExitUsage || ran {
			t.Errorf("-i -o %s: exit %d (%v), ran %v", o, failure.ExitCode(err), err, ran)
		}
	}
}

// Without -i the run is the whole command: its error comes back as it is.
func TestInteractiveOffRunsAsBefore(t *testing.T) {
	ran, err := interactive(t, false, "csv")
	if !ran || failure.KindOf(err) != failure.NoMatch {
		t.Fatalf("ran %v, err %v", ran, err)
	}
}

// A run that wrote nothing (refused, or failed before the document) keeps
// its own exit code, and the browser does not open on nothing.
func TestInteractiveKeepsTheRunsCodeWhenNothingWasWritten(t *testing.T) {
	ran, err := interactive(t, true, "json")
	if !ran || failure.KindOf(err) != failure.NoMatch {
		t.Fatalf("ran %v, err %v", ran, err)
	}
}

// -i refuses the flags that rewrite the document or take the screen,
// before the run.
func TestInteractiveRefusesJQAndWeb(t *testing.T) {
	for _, flag := range []string{"jq", "web"} {
		ios, _, _, _ := iostreams.Test()
		ios.SetTTY(true, true, true)
		cmd := &cobra.Command{Use: "search"}
		cmd.Flags().String("jq", "", "")
		cmd.Flags().Bool("web", false, "")
		value := map[string]string{"jq": ".query", "web": "true"}[flag]
		if err := cmd.Flags().Set(flag, value); err != nil {
			t.Fatal(err)
		}
		ran := false
		err := Interactive(cmd, &online.Factory{Factory: &cmdutil.Factory{IO: ios}}, true, "x", func() error { ran = true; return nil })
		if failure.ExitCode(err) != failure.ExitUsage || ran || !strings.Contains(err.Error(), "--"+flag) {
			t.Errorf("-i --%s: exit %d (%v), ran %v", flag, failure.ExitCode(err), err, ran)
		}
	}
}

// A run whose token was refused opens no browser: its error line, with
// the fix, and exit 4, as without -i, even when the run reported its
// failures in the document it wrote (triage, pivot).
func TestInteractiveRefusedTokenIsTheAnswer(t *testing.T) {
	const msg = "search: 401 Unauthorized: the token was not accepted; run `tilookup auth login` or set TILOOKUP_TOKEN"
	ios, _, out, _ := iostreams.Test()
	ios.SetTTY(true, true, true)
	doc, err := json.Marshal(map[string]any{"indicators": []any{
		map[string]any{"value": "198.51.100.7", "type": "ipv4", "status": "failed", "error": map[string]any{"status": 401, "kind": "auth", "message": msg}},
	}, "skipped": []any{}})
	if err != nil {
		t.Fatal(err)
	}
	err = Interactive(&cobra.Command{Use: "triage"}, &online.Factory{Factory: &cmdutil.Factory{IO: ios}}, true, "report.txt", func() error {
		ios.Out.Write(doc)
		return &failure.Reported{Code: failure.ExitAuth}
	})
	if failure.ExitCode(err) != failure.ExitAuth || err == nil || err.Error() != msg {
		t.Errorf("exit %d, error %v; want exit 4 and %q", failure.ExitCode(err), err, msg)
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %q", out)
	}
}

// A run that said why on stderr (search's closing summary) is not said
// twice.
func TestInteractiveRefusedTokenSaidOnce(t *testing.T) {
	const msg = "search: 401 Unauthorized; run `tilookup auth login` or set TILOOKUP_TOKEN"
	ios, _, _, errOut := iostreams.Test()
	ios.SetTTY(true, true, true)
	err := Interactive(&cobra.Command{Use: "search"}, &online.Factory{Factory: &cmdutil.Factory{IO: ios}}, true, "x", func() error {
		fmt.Fprintf(ios.Out, `[{"query":"198.51.100.7","error":{"status":401,"kind":"auth","message":%q}}]`, msg)
		fmt.Fprintf(ios.ErrOut, "1 value: 1 failed: %s\n", msg)
		return &failure.Reported{Code: failure.ExitAuth}
	})
	var reported *failure.Reported
	if !errors.As(err, &reported) || reported.Code != failure.ExitAuth || !strings.Contains(errOut.String(), msg) {
		t.Errorf("error %v, stderr %q", err, errOut)
	}
}

// While the browser has the screen, what p's lookups write for stderr
// (here the sandbox's notice) is the pivot's notice, for the status
// line; nothing reaches stderr until the browser ends.
func TestPivotNoticeIsHeld(t *testing.T) {
	const notice = "Using the built-in sandbox: demo data, not real intelligence."
	ios, _, _, errOut := iostreams.Test()
	cmd := &cobra.Command{Use: "browse"}
	cmd.Flags().Bool("sandbox", true, "")
	cmd.Flags().Bool("no-skip", true, "")
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}}
	f.Sandbox = func() (io.Closer, error) {
		fmt.Fprintln(f.IO.ErrOut, notice)
		fmt.Fprintln(f.IO.ErrOut, "tilookup: warning: a warning")
		return nil, errors.New("no sandbox in this test")
	}
	held, release := holdStderr(ios)
	pivot, stop := pivoter(context.Background(), cmd, f, held)
	_, said, err := pivot("example.com", "domain")
	stop()
	if err == nil || !strings.Contains(said, notice) || !strings.Contains(said, "a warning") {
		t.Errorf("notice %q, error %v", said, err)
	}
	if errOut.Len() != 0 {
		t.Errorf("written behind the screen: %q", errOut)
	}
	fmt.Fprintln(ios.ErrOut, "late")
	release()
	if errOut.String() != "late\n" {
		t.Errorf("after the browser, stderr got %q, want what was not shown", errOut)
	}
}

// With no base URL, p's error says what browse can do about it: browse has
// no --base-url flag, but a --sandbox.
func TestPivotNoBaseURLHint(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cmd := &cobra.Command{Use: "browse"}
	cmd.Flags().Bool("sandbox", false, "")
	cmd.Flags().Bool("no-skip", true, "")
	t.Setenv("TILOOKUP_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	t.Setenv("TILOOKUP_BASE_URL", "")
	t.Setenv("TILOOKUP_PROFILE", "")
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}}
	held, release := holdStderr(ios)
	defer release()
	pivot, stop := pivoter(context.Background(), cmd, f, held)
	_, _, err := pivot("example.com", "domain")
	stop()
	if err == nil || !strings.Contains(err.Error(), "no base URL") || strings.Contains(err.Error(), "--base-url") || !strings.Contains(err.Error(), "--sandbox") {
		t.Errorf("p with no base URL: %v", err)
	}
}
