package browse

import (
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
