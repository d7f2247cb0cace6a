// Package sharedcache keeps search answers in Redis (or Valkey), so that
// every process and host with the same cache_url shares them: the same
// entries, keys and rules as the disk cache (pkg/cache), one request at a
// time per value across all of them, and one token bucket (shared_rate)
// that keeps the fleet together under the service's quota.
//
// Redis is never needed for a right answer. The first error (refused,
// down, paused, a TLS mismatch, a script that fails on what it finds)
// prints one notice, and from then on the process goes on without it:
// every operation is bounded by short timeouts and none is retried.
package sharedcache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Timeouts of one Redis operation: Redis answers in well under a
// millisecond, so a store that takes longer is treated as gone rather
// than slowing every lookup down to its pace.
const (
	dialTimeout = 500 * time.Millisecond
	ioTimeout   = 500 * time.Millisecond
)

// prefix starts every key tilookup writes, so that `cache clear --shared`
// removes its own keys only, in a Redis that others use too.
const prefix = "tilookup:"

// Options configure a Store.
type Options struct {
	URL string // redis://, rediss:// or unix://
	// Wait bounds how long a process waits for another's answer (the
	// lookups' timeout); the claim on a value lasts as long, so that a
	// process that died is taken over after it.
	Wait time.Duration
	// MaxAnswer is the largest answer stored; 0 = no cap of its own.
	MaxAnswer int64
	Notice    io.Writer // the one line said when Redis fails; nil = none
	Now       func() time.Time
}

// Store is the shared cache. It is safe for concurrent use.
type Store struct {
	rdb     *redis.Client
	display string // the URL without its password
	o       Options

	down       atomic.Bool
	noticeOnce sync.Once
	claims     atomic.Int64 // makes each claim's token unique in the process
	owner      string       // this process, in claim tokens
}

// ParseURL reads cache_url as the Store does: redis://[user:pass@]host:port/db,
// rediss:// for TLS, unix:///path?db=N.
func ParseURL(raw string) (*redis.Options, error) {
	o, err := redis.ParseURL(strings.TrimSpace(raw))
	if err != nil {
		// go-redis's errors quote the URL, password included.
		return nil, errors.New("not a Redis URL: want redis://host:port/db, rediss://... or unix:///path?db=N")
	}
	return o, nil
}

// Open readies the store; it does not connect (the first operation
// does), so that a command that finds every answer on disk costs Redis
// nothing.
func Open(o Options) (*Store, error) {
	ro, err := ParseURL(o.URL)
	if err != nil {
		return nil, err
	}
	ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = dialTimeout, ioTimeout, ioTimeout
	ro.MaxRetries = -1        // a failure is a notice, not a retry
	ro.Protocol = 2           // no HELLO: older Redis and Valkey answer alike
	ro.DisableIdentity = true // no CLIENT SETINFO on each connection
	ro.ContextTimeoutEnabled = true
	// go-redis logs its pool's failures to stderr; the one notice of
	// fail says what the user needs, once.
	redis.SetLogger(quiet{})
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Wait <= 0 {
		o.Wait = 30 * time.Second
	}
	return &Store{rdb: redis.NewClient(ro), display: api.RedactRawURL(o.URL), o: o, owner: strconv.FormatInt(time.Now().UnixNano(), 36)}, nil
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// String is where the store is, fit to print.
func (s *Store) String() string { return s.display }

// Close ends the connections.
func (s *Store) Close() error { return s.rdb.Close() }

// Down tells whether the store failed and is no longer used.
func (s *Store) Down() bool { return s.down.Load() }

// fail takes the store out of use after an error other than a miss, and
// says so once.
func (s *Store) fail(err error) {
	s.down.Store(true)
	s.noticeOnce.Do(func() {
		if s.o.Notice != nil {
			fmt.Fprintf(s.o.Notice, "tilookup: warning: the shared cache %s cannot be used (%s); going on without it\n", sanitize.String(s.display), sanitize.String(redactErr(err, s.o.URL)))
		}
	})
}

// redactErr keeps the password out of an error that quotes the URL, or
// the password alone, in the form every printed URL has.
func redactErr(err error, raw string) string {
	msg := strings.ReplaceAll(err.Error(), raw, api.RedactRawURL(raw))
	if u, perr := url.Parse(raw); perr == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "[redacted]")
		}
	}
	return msg
}

func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), dialTimeout+ioTimeout)
}

func answerKey(key string) string { return prefix + "a:" + cache.HashKey(key) }
func claimKey(key string) string  { return prefix + "l:" + cache.HashKey(key) }

// Get is cache.Store's: an entry that does not decode is a miss.
func (s *Store) Get(key string) (cache.Entry, bool) {
	e, ok := s.get(answerKey(key), key)
	if !ok || !s.o.Now().Before(e.Expires) {
		return cache.Entry{}, false
	}
	return e, true
}

// get reads the entry for key stored under the Redis key rk, expired or
// not: Redis expires it on its own clock, which a handed-over answer
// trusts rather than this host's (hosts' clocks differ by more than the
// few seconds it lives).
func (s *Store) get(rk, key string) (cache.Entry, bool) {
	if s.Down() {
		return cache.Entry{}, false
	}
	ctx, cancel := s.ctx()
	defer cancel()
	data, err := s.rdb.Get(ctx, rk).Bytes()
	if err != nil {
		if !errors.Is(err, redis.Nil) {
			s.fail(err)
		}
		return cache.Entry{}, false
	}
	e, err := cache.DecodeEntry(data, key)
	return e, err == nil
}

// Put is cache.Store's. Redis expires the entry itself. A failure is the
// store's one notice, not the caller's: the answer was served all the same.
func (s *Store) Put(key string, body []byte, ttl time.Duration) error {
	s.set(answerKey(key), key, body, ttl)
	return nil
}

// set stores the entry for key under the Redis key rk for ttl.
func (s *Store) set(rk, key string, body []byte, ttl time.Duration) {
	if s.Down() {
		return
	}
	now := s.o.Now()
	ctx, cancel := s.ctx()
	defer cancel()
	if err := s.rdb.Set(ctx, rk, cache.EncodeEntry(key, body, now, now.Add(ttl)), ttl).Err(); err != nil {
		s.fail(err)
	}
}

// Now is cache.Store's clock.
func (s *Store) Now() time.Time { return s.o.Now() }

// MaxAnswer is cache.Store's.
func (s *Store) MaxAnswer() int64 {
	if s.o.MaxAnswer <= 0 {
		return 1 << 62
	}
	return s.o.MaxAnswer
}

// releaseScript deletes a claim only if it is still the caller's: one that
// expired and was taken over belongs to another process now.
var releaseScript = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// handOverTTL is how long an answer handed over to the waiting processes
// stays: they read it as soon as the claim is released (their poll is at
// most 25ms), so this is room for a loaded machine, not a cache. Only a
// process that saw the claim's token can read it at all.
const handOverTTL = 10 * time.Second

// handOverKey is where the holder of claim token hands its answer over.
func handOverKey(key, token string) string { return prefix + "h:" + cache.HashKey(key) + ":" + token }

// Claim is cache.Claimer's: it takes the key's claim (SET NX with the
// wait as its lifetime), waiting while another process holds it, for at
// most Options.Wait, after which the caller asks anyway. The claim
// remembers whom it waited for, so that it reads the answer they handed
// over and no other.
func (s *Store) Claim(ctx context.Context, key string) cache.Claim {
	c := &claim{s: s, key: key}
	if s.Down() {
		return c
	}
	ck := claimKey(key)
	token := s.owner + "." + strconv.FormatInt(s.claims.Add(1), 36)
	giveUp := time.Now().Add(s.o.Wait)
	poll := 2 * time.Millisecond
	for {
		octx, cancel := s.ctx()
		ok, err := s.rdb.SetNX(octx, ck, token, s.o.Wait).Result()
		var holder string
		if err == nil && !ok {
			holder, err = s.rdb.Get(octx, ck).Result()
			if errors.Is(err, redis.Nil) { // released in between: try again
				holder, err = "", nil
			}
		}
		cancel()
		switch {
		case err != nil:
			s.fail(err)
			return c
		case ok:
			c.token = token
			return c
		case holder != "" && (len(c.waitedFor) == 0 || c.waitedFor[len(c.waitedFor)-1] != holder):
			c.waitedFor = append(c.waitedFor, holder)
		}
		if time.Now().Add(poll).After(giveUp) {
			return c
		}
		select {
		case <-ctx.Done():
			return c
		case <-time.After(poll):
		}
		poll = min(2*poll, 25*time.Millisecond)
	}
}

// claim is one process's turn at a key.
type claim struct {
	s   *Store
	key string
	// token is the claim's in Redis; "" when the caller asks without one
	// (the wait ran out, or the store failed).
	token string
	// waitedFor are the tokens of the processes that held the key while
	// this one waited, the latest last.
	waitedFor []string
}

// HandedOver is cache.Claim's: the answer of the latest process this one
// waited for that handed one over.
func (c *claim) HandedOver() (cache.Entry, bool) {
	for i := len(c.waitedFor) - 1; i >= 0 && !c.s.Down(); i-- {
		if e, ok := c.s.get(handOverKey(c.key, c.waitedFor[i]), c.key); ok {
			return e, true
		}
	}
	return cache.Entry{}, false
}

// HandOver is cache.Claim's.
func (c *claim) HandOver(body []byte) {
	if c.token != "" {
		c.s.set(handOverKey(c.key, c.token), c.key, body, handOverTTL)
	}
}

// Release is cache.Claim's.
func (c *claim) Release() {
	if c.token == "" || c.s.Down() {
		return
	}
	octx, cancel := c.s.ctx()
	defer cancel()
	if err := releaseScript.Run(octx, c.s.rdb, []string{claimKey(c.key)}, c.token).Err(); err != nil {
		c.s.fail(err)
	}
}

// Clear removes every key tilookup keeps in the store (answers, claims,
// buckets), and only those; it returns how many answers went.
func (s *Store) Clear(ctx context.Context) (answers int, err error) {
	iter := s.rdb.Scan(ctx, 0, prefix+"*", 500).Iterator()
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := s.rdb.Unlink(ctx, batch...).Err()
		batch = batch[:0]
		return err
	}
	for iter.Next(ctx) {
		k := iter.Val()
		if strings.HasPrefix(k, prefix+"a:") {
			answers++
		}
		if batch = append(batch, k); len(batch) == 500 {
			if err := flush(); err != nil {
				return answers, err
			}
		}
	}
	if err := iter.Err(); err != nil {
		return answers, err
	}
	return answers, flush()
}

// Stats counts the answers stored and their bytes.
func (s *Store) Stats(ctx context.Context) (answers int, bytes int64, err error) {
	iter := s.rdb.Scan(ctx, 0, prefix+"a:*", 500).Iterator()
	for iter.Next(ctx) {
		answers++
		n, err := s.rdb.StrLen(ctx, iter.Val()).Result()
		if err != nil {
			return answers, bytes, err
		}
		bytes += n
	}
	return answers, bytes, iter.Err()
}

// Ping checks that the store answers, for commands that use it directly.
func (s *Store) Ping(ctx context.Context) error {
	return s.rdb.Ping(ctx).Err()
}
