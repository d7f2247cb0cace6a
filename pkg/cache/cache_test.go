package cache

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/httpmock"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func openTest(t *testing.T, clk *clock, maxSize int64) *Cache {
	t.Helper()
	return Open(Options{Dir: filepath.Join(t.TempDir(), "tilookup", "answers"), MaxSize: maxSize, Now: clk.Now})
}

func TestPutGetRoundTripAndModes(t *testing.T) {
	clk := newClock()
	c := openTest(t, clk, 0)
	const k = "search\x00secret-value.example"
	body := []byte(`{"results":[]}` + "\n")
	if _, ok := c.Get(k); ok {
		t.Fatal("hit in an empty cache")
	}
	if err := c.Put(k, body, time.Hour); err != nil {
		t.Fatal(err)
	}
	e, ok := c.Get(k)
	if !ok || !bytes.Equal(e.Body, body) || !e.Stored.Equal(clk.Now()) || !e.Expires.Equal(clk.Now().Add(time.Hour)) {
		t.Fatalf("got %+v, %v", e, ok)
	}
	if _, ok := c.Get("other"); ok {
		t.Fatal("another key hits")
	}
	for _, dir := range []string{filepath.Dir(c.Dir()), c.Dir()} {
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, mode %v; want 0700", dir, err, fi.Mode().Perm())
		}
	}
	id := hashKey(k)
	fi, err := os.Stat(c.path(id))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("entry: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Dir(c.path(id))); fi.Mode().Perm() != 0o700 {
		t.Fatalf("shard mode %v", fi.Mode().Perm())
	}
	if data, _ := os.ReadFile(c.path(id)); bytes.Contains(data, []byte("secret")) || strings.Contains(c.path(id), "secret") {
		t.Fatal("the key shows in the entry")
	}
}

func TestExpiry(t *testing.T) {
	clk := newClock()
	c := openTest(t, clk, 0)
	if err := c.Put("k", []byte(`{}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour - time.Nanosecond)
	if _, ok := c.Get("k"); !ok {
		t.Fatal("expired early")
	}
	clk.Advance(time.Nanosecond)
	if _, ok := c.Get("k"); ok {
		t.Fatal("still a hit at its expiry")
	}
}

// Every way a file can be wrong reads as a miss, and the next answer
// replaces it.
func TestDamagedAndForeignFilesAreMissesAndReplaced(t *testing.T) {
	clk := newClock()
	c := openTest(t, clk, 0)
	body := []byte(`{"query":"x"}`)
	if err := c.Put("k", body, time.Hour); err != nil {
		t.Fatal(err)
	}
	path := c.path(hashKey("k"))
	good, _ := os.ReadFile(path)
	other := encode(hashKey("other"), body, clk.Now(), clk.Now().Add(time.Hour))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-2] ^= 1
	for name, data := range map[string][]byte{
		"empty":        {},
		"foreign":      []byte("#!/bin/sh\necho hello\n"),
		"truncated":    good[:len(good)-3],
		"header only":  good[:bytes.IndexByte(good, '\n')],
		"longer":       append(bytes.Clone(good), '}'),
		"flipped bit":  flipped,
		"moved":        other,
		"old version":  []byte(strings.Replace(string(good), "tilookup-cache 1 ", "tilookup-cache 0 ", 1)),
		"bad number":   []byte(strings.Replace(string(good), " 13 ", " x3 ", 1)),
		"missing part": []byte(magic + hashKey("k") + " 1 2\n{}"),
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Get("k"); ok {
			t.Errorf("%s: a hit", name)
		}
	}
	if err := c.Put("k", body, time.Hour); err != nil {
		t.Fatal(err)
	}
	if e, ok := c.Get("k"); !ok || !bytes.Equal(e.Body, body) {
		t.Fatal("the damaged file was not replaced")
	}
}

// A cache directory that cannot be made is an error for Put, a miss for
// Get: never a crash.
func TestUnwritableCache(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o600)
	c := Open(Options{Dir: filepath.Join(blocker, "answers")})
	if err := c.Put("k", []byte("{}"), time.Hour); err == nil {
		t.Fatal("Put into a file succeeded")
	}
	if _, ok := c.Get("k"); ok {
		t.Fatal("hit")
	}
	if s, err := c.Stats(); err == nil && s.Entries != 0 {
		t.Fatalf("stats %+v", s)
	}
}

// The cap evicts the oldest answers first, down below the cap.
func TestSizeCapEvictsOldest(t *testing.T) {
	clk := newClock()
	body := bytes.Repeat([]byte("x"), 900)
	c := openTest(t, clk, 10_000) // room for about ten entries of 1 KB
	for i := range 30 {
		if err := c.Put(keyN(i), body, 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Second)
	}
	s, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.Bytes > 10_000+c.scanInterval()+1100 {
		t.Fatalf("%d bytes in a cache capped at 10000", s.Bytes)
	}
	if _, ok := c.Get(keyN(29)); !ok {
		t.Fatal("the newest answer was evicted")
	}
	for i := range 15 {
		if _, ok := c.Get(keyN(i)); ok {
			t.Fatalf("answer %d survived while newer ones were kept", i)
		}
	}
	// After Evict, it is within the cap.
	c.Evict()
	if s, _ := c.Stats(); s.Bytes > 10_000 {
		t.Fatalf("%d bytes after Evict", s.Bytes)
	}
}

func keyN(i int) string { return "key-" + strings.Repeat("k", i%3) + string(rune('a'+i)) }

func TestStatsAndClear(t *testing.T) {
	clk := newClock()
	c := openTest(t, clk, 0)
	if s, err := c.Stats(); err != nil || s.Entries != 0 {
		t.Fatalf("stats of a cache never written: %+v %v", s, err)
	}
	c.Put("old", []byte(`{"a":1}`), time.Hour)
	clk.Advance(3 * time.Hour)
	c.Put("new", []byte(`{"a":2}`), time.Hour)
	// Not ours: left alone by stats and clear.
	os.WriteFile(filepath.Join(c.Dir(), "README"), []byte("x"), 0o600)
	s, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.Entries != 2 || s.Expired != 1 || !s.Oldest.Equal(clk.Now().Add(-3*time.Hour)) || !s.Newest.Equal(clk.Now()) || s.Bytes == 0 {
		t.Fatalf("stats %+v", s)
	}
	n, freed, err := c.Clear(2 * time.Hour)
	if err != nil || n != 1 || freed == 0 {
		t.Fatalf("clear --older-than 2h: %d %d %v", n, freed, err)
	}
	if _, ok := c.Get("new"); !ok {
		t.Fatal("clear --older-than removed a young answer")
	}
	if n, _, err := c.Clear(0); err != nil || n != 1 {
		t.Fatalf("clear: %d %v", n, err)
	}
	if s, _ := c.Stats(); s.Entries != 0 {
		t.Fatalf("after clear: %+v", s)
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), "README")); err != nil {
		t.Fatal("clear removed a file that is not an answer")
	}
}

func TestStaleTempFilesAreRemoved(t *testing.T) {
	clk := newClock()
	c := openTest(t, clk, 0)
	c.Put("k", []byte(`{}`), time.Hour)
	shard := filepath.Dir(c.path(hashKey("k")))
	young, old := filepath.Join(shard, tmpPrefix+"young"), filepath.Join(shard, tmpPrefix+"old")
	os.WriteFile(young, []byte("x"), 0o600)
	os.WriteFile(old, []byte("x"), 0o600)
	os.Chtimes(young, clk.Now(), clk.Now())
	os.Chtimes(old, clk.Now().Add(-time.Hour), clk.Now().Add(-time.Hour))
	if s, _ := c.Stats(); s.Entries != 1 {
		t.Fatalf("temporary files counted: %+v", s)
	}
	if _, err := os.Stat(old); err == nil {
		t.Fatal("a writer's leftover stays")
	}
	if _, err := os.Stat(young); err != nil {
		t.Fatal("a file being written was removed")
	}
}

// rig is the API client of a stub service behind a cached Searcher.
type rig struct {
	reg   *httpmock.Registry
	clk   *clock
	cache *Cache
	debug bytes.Buffer
}

func newRig(t *testing.T) *rig {
	clk := newClock()
	return &rig{reg: &httpmock.Registry{}, clk: clk, cache: openTest(t, clk, 0)}
}

func (r *rig) searcher(t *testing.T, base, token string, o SearchOptions) lookup.Searcher {
	t.Helper()
	c, err := api.New(api.Options{BaseURL: base, Token: token, Transport: r.reg, Retries: 0}, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.TTL == 0 {
		o.TTL = 24 * time.Hour
	}
	o.Debug = &r.debug
	return r.cache.Searcher(lookup.Client(c, 0, o.Raw), ScopeOf(c, 0), o)
}

const matchBody = `{"query":"a.example","detected_type":"domain","results":[{"resource":"r","label":"R","count":12345678901234567890}],"extra":{"kept":true}}`

func TestSecondSearchIsFromTheCacheWithTheSameBytes(t *testing.T) {
	for _, raw := range []bool{true, false} {
		r := newRig(t)
		stub := r.reg.Register("a", httpmock.Query("q", "a.example"), httpmock.JSON(matchBody))
		first, err := r.searcher(t, "https://ti.test", "tok", SearchOptions{Raw: raw}).Search(context.Background(), "a.example")
		if err != nil {
			t.Fatal(err)
		}
		r.clk.Advance(3 * time.Hour)
		second, err := r.searcher(t, "https://ti.test", "tok", SearchOptions{Raw: raw}).Search(context.Background(), "a.example")
		if err != nil {
			t.Fatal(err)
		}
		if stub.Calls() != 1 {
			t.Fatalf("raw=%v: %d requests, want 1", raw, stub.Calls())
		}
		if !bytes.Equal(first.Raw, second.Raw) || second.ResultCount() != 1 || second.OneLine() != first.OneLine() {
			t.Fatalf("raw=%v: the cached answer differs:\n%s\n%s", raw, first.Raw, second.Raw)
		}
		if !raw && (second.DetectedType != "domain" || len(second.Results) != 1 || second.Results[0].Count != "12345678901234567890") {
			t.Fatalf("decoded hit: %+v", second)
		}
		if !first.CachedAt.IsZero() || !second.CachedAt.Equal(r.clk.Now().Add(-3*time.Hour)) {
			t.Fatalf("CachedAt: fresh %v, cached %v", first.CachedAt, second.CachedAt)
		}
		if d := r.debug.String(); !strings.Contains(d, "[debug] cache miss: a.example") || !strings.Contains(d, "[debug] cache hit: a.example (stored 2026-11-22T12:00:00Z") {
			t.Fatalf("debug log:\n%s", d)
		}
	}
}

func TestOtherTokenBaseOrLimitMisses(t *testing.T) {
	r := newRig(t)
	stub := r.reg.Register("a", httpmock.Any(), httpmock.JSON(matchBody))
	ctx := context.Background()
	search := func(base, token string) {
		t.Helper()
		if _, err := r.searcher(t, base, token, SearchOptions{}).Search(ctx, "a.example"); err != nil {
			t.Fatal(err)
		}
	}
	search("https://ti.test", "tok")
	search("https://ti.test", "tok")
	search("https://ti.test", "other-token")
	search("https://ti2.test", "tok")
	search("https://ti.test/prefix", "tok")
	if stub.Calls() != 4 {
		t.Fatalf("%d requests, want 4: one per token, host and path prefix", stub.Calls())
	}
	c, _ := api.New(api.Options{BaseURL: "https://ti.test", Token: "tok", Transport: r.reg}, false)
	limited := r.cache.Searcher(lookup.Client(c, 5, true), ScopeOf(c, 5), SearchOptions{TTL: time.Hour})
	if _, err := limited.Search(ctx, "a.example"); err != nil || stub.Calls() != 5 {
		t.Fatalf("another limit hit the cache: %d requests, %v", stub.Calls(), err)
	}
	entries, _ := filepath.Glob(filepath.Join(r.cache.Dir(), "*", "*"))
	for _, e := range entries {
		data, _ := os.ReadFile(e)
		if bytes.Contains(data, []byte("tok")) {
			t.Fatal("the token is on disk")
		}
	}
}

func TestRefreshAsksAgainAndStores(t *testing.T) {
	r := newRig(t)
	stub := r.reg.Register("a", httpmock.Any(), httpmock.Sequence(httpmock.JSON(`{"query":"a.example","results":[{"resource":"old"}]}`), httpmock.JSON(matchBody)))
	ctx := context.Background()
	r.searcher(t, "https://ti.test", "tok", SearchOptions{}).Search(ctx, "a.example")
	resp, err := r.searcher(t, "https://ti.test", "tok", SearchOptions{Refresh: true, Raw: true}).Search(ctx, "a.example")
	if err != nil || stub.Calls() != 2 || string(resp.Raw) != matchBody || !resp.CachedAt.IsZero() {
		t.Fatalf("--refresh: %d requests, %s, %v", stub.Calls(), resp.Raw, err)
	}
	resp, _ = r.searcher(t, "https://ti.test", "tok", SearchOptions{Raw: true}).Search(ctx, "a.example")
	if stub.Calls() != 2 || string(resp.Raw) != matchBody {
		t.Fatalf("the refreshed answer was not stored: %d requests, %s", stub.Calls(), resp.Raw)
	}
}

func TestErrorsAreNotStored(t *testing.T) {
	r := newRig(t)
	stub := r.reg.Register("a", httpmock.Any(), httpmock.Sequence(
		httpmock.Status(503, nil, `{"error":"busy"}`),
		httpmock.Status(401, nil, `{"error":"no"}`),
		httpmock.Status(200, nil, `not json`),
		httpmock.JSON(matchBody)))
	ctx := context.Background()
	for i := range 3 {
		if _, err := r.searcher(t, "https://ti.test", "tok", SearchOptions{}).Search(ctx, "a.example"); err == nil {
			t.Fatalf("call %d should fail", i+1)
		}
	}
	if s, _ := r.cache.Stats(); s.Entries != 0 {
		t.Fatalf("an error was stored: %+v", s)
	}
	if _, err := r.searcher(t, "https://ti.test", "tok", SearchOptions{}).Search(ctx, "a.example"); err != nil || stub.Calls() != 4 {
		t.Fatalf("after the errors: %d requests, %v", stub.Calls(), err)
	}
}

// Matches keep the configured time; no-match and unsupported answers at
// most an hour.
func TestTTLByOutcome(t *testing.T) {
	r := newRig(t)
	match := r.reg.Register("match", httpmock.Query("q", "m.example"), httpmock.JSON(`{"query":"m.example","results":[{"resource":"r"}]}`))
	nomatch := r.reg.Register("none", httpmock.Query("q", "n.example"), httpmock.JSON(`{"query":"n.example","results":[]}`))
	unsup := r.reg.Register("unsupported", httpmock.Query("q", "u"), httpmock.JSON(`{"query":"u","unsupported_reason":"not a value","results":null}`))
	short := r.reg.Register("short", httpmock.Query("q", "s.example"), httpmock.JSON(`{"query":"s.example","results":[]}`))
	ctx := context.Background()
	s := r.searcher(t, "https://ti.test", "tok", SearchOptions{Raw: true})
	shortTTL := r.searcher(t, "https://ti.test", "tok", SearchOptions{TTL: 10 * time.Minute})
	for _, v := range []string{"m.example", "n.example", "u"} {
		s.Search(ctx, v)
	}
	shortTTL.Search(ctx, "s.example")
	r.clk.Advance(10 * time.Minute)
	shortTTL.Search(ctx, "s.example") // a TTL below an hour is kept for no-match too
	r.clk.Advance(50*time.Minute - time.Second)
	for _, v := range []string{"m.example", "n.example", "u"} {
		s.Search(ctx, v)
	}
	if nomatch.Calls() != 1 || unsup.Calls() != 1 || short.Calls() != 2 {
		t.Fatalf("before an hour: no-match %d, unsupported %d, short %d requests", nomatch.Calls(), unsup.Calls(), short.Calls())
	}
	r.clk.Advance(time.Second)
	for _, v := range []string{"m.example", "n.example", "u"} {
		s.Search(ctx, v)
	}
	if nomatch.Calls() != 2 || unsup.Calls() != 2 {
		t.Fatalf("at an hour: no-match %d, unsupported %d requests, want 2 each", nomatch.Calls(), unsup.Calls())
	}
	r.clk.Advance(23*time.Hour - time.Second)
	s.Search(ctx, "m.example")
	if match.Calls() != 1 {
		t.Fatal("a match expired before its 24h")
	}
	r.clk.Advance(time.Second)
	s.Search(ctx, "m.example")
	if match.Calls() != 2 {
		t.Fatal("a match outlived its 24h")
	}
}

// A cache that cannot be written warns once and the run goes on.
func TestUnwritableCacheWarnsOnce(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, []byte("x"), 0o600)
	reg := &httpmock.Registry{}
	stub := reg.Register("a", httpmock.Any(), httpmock.JSON(matchBody))
	c, _ := api.New(api.Options{BaseURL: "https://ti.test", Token: "tok", Transport: reg}, false)
	var warn bytes.Buffer
	s := Open(Options{Dir: filepath.Join(blocker, "answers")}).Searcher(lookup.Client(c, 0, true), ScopeOf(c, 0), SearchOptions{TTL: time.Hour, Warn: &warn})
	for range 3 {
		if _, err := s.Search(context.Background(), "a.example"); err != nil {
			t.Fatal(err)
		}
	}
	if stub.Calls() != 3 || strings.Count(warn.String(), "warning: answers are not being cached") != 1 {
		t.Fatalf("%d requests; warnings:\n%s", stub.Calls(), warn.String())
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour: "1h", 24 * time.Hour: "24h", 90 * time.Minute: "1h30m", 168 * time.Hour: "7d",
		36 * time.Hour: "36h", 49 * time.Hour: "49h", 30 * time.Second: "30s", 10 * time.Minute: "10m",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// An answer too large for the cap is passed on, not stored.
func TestHugeAnswerIsNotStored(t *testing.T) {
	clk := newClock()
	reg := &httpmock.Registry{}
	big := `{"query":"a.example","results":[{"resource":"` + strings.Repeat("r", 2000) + `"}]}`
	stub := reg.Register("a", httpmock.Any(), httpmock.JSON(big))
	c, _ := api.New(api.Options{BaseURL: "https://ti.test", Token: "tok", Transport: reg}, false)
	s := openTest(t, clk, 8000).Searcher(lookup.Client(c, 0, true), ScopeOf(c, 0), SearchOptions{TTL: time.Hour})
	for range 2 {
		if resp, err := s.Search(context.Background(), "a.example"); err != nil || string(resp.Raw) != big {
			t.Fatal(err)
		}
	}
	if stub.Calls() != 2 {
		t.Fatalf("%d requests: a 2 KB answer was stored in an 8 KB cache", stub.Calls())
	}
}

// A run with a shorter --cache does not take answers older than its own
// duration, though a run with a longer one stored them.
func TestShorterCacheRefusesOlderAnswers(t *testing.T) {
	r := newRig(t)
	stub := r.reg.Register("a", httpmock.Query("q", "a.example"), httpmock.JSON(matchBody))
	ctx := context.Background()
	r.searcher(t, "https://ti.test", "tok", SearchOptions{TTL: 7 * 24 * time.Hour}).Search(ctx, "a.example")
	r.clk.Advance(3 * 24 * time.Hour)
	resp, err := r.searcher(t, "https://ti.test", "tok", SearchOptions{TTL: time.Hour}).Search(ctx, "a.example")
	if err != nil || stub.Calls() != 2 || !resp.CachedAt.IsZero() {
		t.Fatalf("a 3-day-old answer served under --cache 1h: %d requests, cached at %v, %v", stub.Calls(), resp.CachedAt, err)
	}
	r.searcher(t, "https://ti.test", "tok", SearchOptions{TTL: 7 * 24 * time.Hour}).Search(ctx, "a.example")
	if stub.Calls() != 2 {
		t.Fatalf("the fresh answer was not cached: %d requests", stub.Calls())
	}
}
