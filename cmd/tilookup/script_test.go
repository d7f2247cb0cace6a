//go:build slow

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tilookup/tilookup/pkg/cli"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// The scripts in testdata/script run whole command lines of the real binary
// (this test binary re-executed as `tilookup`) against a sandbox server
// started for each script. `exitcode N cmd...` runs cmd and checks its exact
// exit status, which testscript's `! exec` cannot.
//
// Every test here runs that binary and waits on it, on a sandbox's timers
// or on a signal, so -parallel's default (GOMAXPROCS, two on a small
// machine) would leave the CPU idle: waitingTests raises it unless -parallel
// was given.
func TestMain(m *testing.M) {
	testscript.Main(waitingTests{m}, map[string]func(){
		"tilookup": func() { os.Exit(cli.Main()) },
		"exitcode": exitcodeMain,
	})
}

type waitingTests struct{ m *testing.M }

func (w waitingTests) Run() int {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
	}
	return w.m.Run()
}

func TestScripts(t *testing.T) {
	t.Parallel() // else the parallel tests of the fault matrix wait for it
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
			// No OS keyring, whatever the machine has: with no session bus
			// address, D-Bus would autolaunch one (dbus-x11), and the
			// scripts would meet a real, locked keyring. The real keyring
			// has its own suite (.ci/keyring-test.sh).
			env.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/tilookup-test-bus")
			// Under -race, no second's sleep at each command's exit.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			wd, err := os.Getwd()
			env.Setenv("TESTDATA", filepath.Join(wd, "..", "..", "testdata"))
			env.Values[faultKey{}] = &faultServer{}
			return err
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sandbox-fault": sandboxFault,
			"check-bulk":    checkBulk,
			"hosts":         hosts,
			"wait-requests": waitRequests,
		},
	})
}

// hosts N FILE writes N distinct domains, host0.example.com and on, one a
// line: the values of a bulk run.
func hosts(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: hosts N FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "host%d.example.com\n", i)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o600))
}

// faultKey holds a script's latest fault sandbox (a *faultServer) among
// its values, for wait-requests.
type faultKey struct{}

type faultServer struct{ srv *sandbox.Server }

// sandboxFault starts a second sandbox whose every request gets the fault
// spec in args[0], and exports its URLs as FAULT_URL and FAULT_EVENTS_URL.
func sandboxFault(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sandbox-fault SPEC")
	}
	srv, err := sandbox.Start(sandbox.Options{Faults: args[0]}, "", "")
	ts.Check(err)
	ts.Defer(func() { srv.Close() })
	ts.Value(faultKey{}).(*faultServer).srv = srv
	ts.Setenv("FAULT_URL", srv.SearchURL)
	ts.Setenv("FAULT_EVENTS_URL", srv.EventsURL)
}

// waitRequests N waits until the latest fault sandbox has begun to serve N
// search requests: a command in the background is then under way (its
// signal handlers set, some values done), whatever the machine's load. A
// fixed sleep was either too short on a loaded machine or wasted time on
// a quiet one.
func waitRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: wait-requests N")
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	ts.Check(err)
	f := ts.Value(faultKey{}).(*faultServer)
	if f.srv == nil {
		ts.Fatalf("wait-requests: no sandbox-fault started")
	}
	deadline := time.Now().Add(2 * time.Minute)
	for f.srv.Requests() < n {
		if time.Now().After(deadline) {
			ts.Fatalf("wait-requests: %d of %d requests after 2 minutes", f.srv.Requests(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkBulk [-prefix] OUT VALUES [RATE KIND] checks a bulk NDJSON run:
// one record per value of VALUES (blank lines and # comments skipped), each
// line valid JSON, queries in input order; with RATE, exactly the values the
// sandbox's rate= selects are error records of KIND. With -prefix the run
// may have stopped early (SIGINT): the records must be a whole prefix.
func checkBulk(ts *testscript.TestScript, neg bool, args []string) {
	prefix := len(args) > 0 && args[0] == "-prefix"
	if prefix {
		args = args[1:]
	}
	if neg || (len(args) != 2 && len(args) != 4) {
		ts.Fatalf("usage: check-bulk [-prefix] OUT VALUES [RATE KIND]")
	}
	var want []string
	for _, l := range strings.Split(ts.ReadFile(args[1]), "\n") {
		if l = strings.TrimSpace(l); l != "" && l[0] != '#' {
			want = append(want, l)
		}
	}
	out := ts.ReadFile(args[0])
	if prefix && out != "" && !strings.HasSuffix(out, "\n") {
		ts.Fatalf("the last line is incomplete: %q", out[max(0, len(out)-80):])
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if out == "" {
		lines = nil
	}
	if prefix && len(lines) > len(want) || !prefix && len(lines) != len(want) {
		ts.Fatalf("%d records for %d values", len(lines), len(want))
	}
	rate := -1.0
	if len(args) == 4 {
		var err error
		rate, err = strconv.ParseFloat(args[2], 64)
		ts.Check(err)
	}
	faulted := 0
	for i, line := range lines {
		var rec struct {
			Query string `json:"query"`
			Error *struct {
				Kind string `json:"kind"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			ts.Fatalf("record %d is not JSON: %v: %q", i+1, err, line)
		}
		if rec.Query != want[i] {
			ts.Fatalf("record %d is for %q, want %q (out of order?)", i+1, rec.Query, want[i])
		}
		if rate < 0 {
			continue
		}
		if sandbox.RateSelects(want[i], rate) {
			faulted++
			if rec.Error == nil || rec.Error.Kind != args[3] {
				ts.Fatalf("record %d (%s) should be a %s error record: %q", i+1, want[i], args[3], line)
			}
		} else if rec.Error != nil {
			ts.Fatalf("record %d (%s) should have succeeded: %q", i+1, want[i], line)
		}
	}
	if rate > 0 && faulted == 0 {
		ts.Fatalf("no value was faulted: the test proves nothing")
	}
	ts.Logf("%d records checked, %d faulted", len(lines), faulted)
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
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "exitcode:", err)
		os.Exit(2)
	}
	// Pass interrupts on, so that a script can `kill -INT` the command.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for sig := range sigs {
			cmd.Process.Signal(sig)
		}
	}()
	got := 0
	if err := cmd.Wait(); err != nil {
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
