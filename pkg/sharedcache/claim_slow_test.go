//go:build slow

package sharedcache

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// startRedis runs redis-server on a free loopback port for the test's life.
func startRedis(t *testing.T) string {
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
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start listening")
		}
	}
}

// An answer handed over is read by the claims that waited on its holder,
// and by no claim taken later: it is not a cache.
func TestHandedOverOnlyToThoseWhoWaited(t *testing.T) {
	url := "redis://" + startRedis(t) + "/0"
	open := func() *Store {
		s, err := Open(Options{URL: url, Wait: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	holder, waiter, later := open(), open(), open()
	ctx := context.Background()
	const key, body = "search\x00k", `{"results":[]}`

	first := holder.Claim(ctx, key)
	got := make(chan string, 1)
	go func() {
		c := waiter.Claim(ctx, key)
		defer c.Release()
		e, ok := c.HandedOver()
		got <- map[bool]string{true: string(e.Body), false: "(nothing)"}[ok]
	}()
	time.Sleep(100 * time.Millisecond) // the waiter polls the held claim
	first.HandOver([]byte(body))
	first.Release()
	if b := <-got; b != body {
		t.Errorf("the waiter read %s, want the answer handed over", b)
	}

	c := later.Claim(ctx, key)
	defer c.Release()
	if e, ok := c.HandedOver(); ok {
		t.Errorf("a claim that did not wait read %s", e.Body)
	}
	if _, ok := later.Get(key); ok {
		t.Error("an answer handed over is kept as a cache entry")
	}
	for _, s := range []*Store{holder, waiter, later} {
		if s.Down() {
			t.Error("a store failed")
		}
	}
}
