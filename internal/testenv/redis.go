package testenv

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Redis runs redis-server on a free loopback port, without persistence,
// for the test's life, with args added to its command line. It skips when
// redis-server is missing, except in CI (CI=true), which installs it. cmd
// is the server's process, for a test that kills it midway.
func Redis(t testing.TB, args ...string) (addr string, cmd *exec.Cmd) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is missing: CI installs it (.ci/run)")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	cmd.Args = append(cmd.Args, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, cmd
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start listening")
		}
	}
}
