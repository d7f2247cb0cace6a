//go:build slow

package sharedcache

import (
	"context"
	"testing"
	"time"

	"github.com/tilookup/tilookup/internal/testenv"
)

// An answer handed over is read by the claims that waited on its holder,
// and by no claim taken later: it is not a cache.
func TestHandedOverOnlyToThoseWhoWaited(t *testing.T) {
	addr, _ := testenv.Redis(t)
	url := "redis://" + addr + "/0"
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
