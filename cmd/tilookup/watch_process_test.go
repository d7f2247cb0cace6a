//go:build slow

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cli"
	"github.com/tilookup/tilookup/pkg/sandbox"
	"github.com/tilookup/tilookup/pkg/watch"
)

// Six processes run one watch list at once against a slow service: the
// lock serialises them, so exactly one sees the values as new (exit 0) and
// the others find nothing changed (exit 1); none fails, and the state
// holds every value once.
func TestConcurrentRunsOfOneName(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 6 processes")
	}
	srv, err := sandbox.Start(sandbox.Options{Faults: "latency=5ms"}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	values := filepath.Join(dir, "values.txt")
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("198.51.100.%d", i))
	}
	lines = append(lines, "44d88612fea8a8f36de82e1278abb02f", "203.0.113.66", "CVE-2021-44228")
	os.WriteFile(values, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	env := append(os.Environ(),
		"TILOOKUP_WATCH_RUN=1", "HOME="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "TILOOKUP_BASE_URL="+srv.SearchURL,
		"TILOOKUP_TOKEN="+sandbox.DemoToken, "TILOOKUP_OUTPUT=ndjson", "TILOOKUP_PROFILE=",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/tilookup-test-bus")
	const procs = 6
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWatchRun$", "-test.count=1", "--", "watch", "--name", "shared", "-c", "4", values)
		cmd.Env = env
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	codes := map[int]int{}
	for i, cmd := range cmds {
		cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		codes[code]++
		if code != 0 && code != 1 {
			t.Errorf("run %d: exit %d\n%s", i, code, outs[i])
		}
	}
	if codes[0] != 1 || codes[1] != procs-1 {
		t.Errorf("exit codes %v: want one 0 (the first run: new values) and %d times 1", codes, procs-1)
	}
	root, _ := watch.DefaultDir(func(k string) string {
		if k == "XDG_STATE_HOME" {
			return filepath.Join(dir, "state")
		}
		return ""
	})
	scopes, _ := filepath.Glob(filepath.Join(root, "default-*"))
	if len(scopes) != 1 {
		t.Fatalf("scopes: %v", scopes)
	}
	b, err := os.ReadFile(filepath.Join(scopes[0], "shared.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := watch.Decode(b, "shared")
	if err != nil || len(st.Values) != len(lines) {
		t.Fatalf("state after the runs: %v, %d values, want %d", err, len(st.Values), len(lines))
	}
	if per := len(b) / len(lines); per >= 300 {
		t.Errorf("state: %d bytes a value, want < 300", per)
	}
}

// TestWatchRun is one process of TestConcurrentRunsOfOneName: tilookup
// with the arguments after "--".
func TestWatchRun(t *testing.T) {
	if os.Getenv("TILOOKUP_WATCH_RUN") == "" {
		t.Skip("a process of TestConcurrentRunsOfOneName")
	}
	for i, a := range os.Args {
		if a == "--" {
			os.Args = append([]string{"tilookup"}, os.Args[i+1:]...)
			break
		}
	}
	os.Exit(cli.Main())
}
