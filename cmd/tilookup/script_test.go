package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tilookup/tilookup/pkg/cli"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// The scripts in testdata/script run whole command lines of the real binary
// (this test binary re-executed as `tilookup`) against a sandbox server
// started for each script. `exitcode N cmd...` runs cmd and checks its exact
// exit status, which testscript's `! exec` cannot.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tilookup": func() { os.Exit(cli.Main()) },
		"exitcode": exitcodeMain,
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../../testdata/script",
		Setup: func(env *testscript.Env) error {
			srv, err := sandbox.Start(sandbox.Options{}, "", "")
			if err != nil {
				return err
			}
			env.Defer(func() { srv.Close() })
			env.Setenv("SEARCH_URL", srv.SearchURL)
			env.Setenv("EVENTS_URL", srv.EventsURL)
			env.Setenv("DEMO_TOKEN", sandbox.DemoToken)
			env.Setenv("TILOOKUP_BASE_URL", srv.SearchURL)
			env.Setenv("TILOOKUP_EVENTS_BASE_URL", srv.EventsURL)
			env.Setenv("TILOOKUP_TOKEN", sandbox.DemoToken)
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("HOME", env.WorkDir)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sandbox-fault": sandboxFault,
		},
	})
}

// sandboxFault starts a second sandbox whose every request gets the fault
// spec in args[0], and exports its URLs as FAULT_URL and FAULT_EVENTS_URL.
func sandboxFault(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sandbox-fault SPEC")
	}
	srv, err := sandbox.Start(sandbox.Options{Faults: args[0]}, "", "")
	ts.Check(err)
	ts.Defer(func() { srv.Close() })
	ts.Setenv("FAULT_URL", srv.SearchURL)
	ts.Setenv("FAULT_EVENTS_URL", srv.EventsURL)
}

func exitcodeMain() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: exitcode WANT CMD [ARG...]")
		os.Exit(2)
	}
	want, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "exitcode: bad WANT:", os.Args[1])
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	got := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			fmt.Fprintln(os.Stderr, "exitcode:", err)
			os.Exit(2)
		}
		got = ee.ExitCode()
	}
	if got != want {
		fmt.Fprintf(os.Stderr, "exitcode: want exit status %d, got %d\n", want, got)
		os.Exit(1)
	}
}
