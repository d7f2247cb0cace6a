package cache

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// NoMatchTTL caps how long an answer without matches is kept: new
// intelligence arrives, and a miss should not hide it for a day.
const NoMatchTTL = time.Hour

// maxShare: an answer larger than this share of the size cap is not
// stored, since it would push out many others.
const maxShare = 8

// Scope is everything besides the value that changes an answer. Answers
// of one scope are never seen from another: a different service, path
// prefix, token or limit is a different key.
type Scope struct {
	BaseURL          string // with its path prefix
	TokenFingerprint string // never the token itself
	Limit            int    // as sent; 0 = none
}

// ScopeOf is the scope of a client's searches with this limit.
func ScopeOf(c *api.Client, limit int) Scope {
	return Scope{BaseURL: c.SearchBase(), TokenFingerprint: c.TokenFingerprint(), Limit: max(limit, 0)}
}

// Key joins the parts with a byte no URL, fingerprint or prepared value
// holds, so that two different scopes never spell the same key.
func (s Scope) Key(value string) string {
	return "search\x00" + s.BaseURL + "\x00" + s.TokenFingerprint + "\x00" + strconv.Itoa(s.Limit) + "\x00" + value
}

// SearchOptions say how one run uses the cache.
type SearchOptions struct {
	// TTL is how long a match is kept. 0 keeps nothing (the cache
	// setting is off): a Claimer store then only hands each answer to the
	// users that waited on the claim of the one who asked for it.
	TTL time.Duration
	// Raw: hits are made as api.Client.SearchRaw makes answers (checked
	// and counted, fields not decoded), else as Search does.
	Raw bool
	// Refresh skips reading: every value is asked again, and the fresh
	// answer replaces the stored one.
	Refresh bool
	Debug   io.Writer // "[debug] cache ..." lines; nil = none
	// Warn gets one line, once, when answers cannot be stored (a full
	// disk, a read-only directory): the run goes on uncached.
	Warn io.Writer
	// Name is what the debug lines call the store ("cache" when empty).
	Name string
}

// Store keeps answers for a Searcher: the disk (*Cache) or a cache that
// many processes and hosts share. Both keep the same entries (Entry, with
// EncodeEntry's layout) under the same keys (Scope.Key).
type Store interface {
	// Get returns the answer stored under key unless it has expired or
	// does not decode: both are misses.
	Get(key string) (Entry, bool)
	Put(key string, body []byte, ttl time.Duration) error
	Now() time.Time
	// MaxAnswer is the largest answer worth storing.
	MaxAnswer() int64
}

// Claimer is a Store whose users take turns at a key: while one process
// asks the service for a value, another that wants it waits for that
// answer rather than asking too. Claim returns once the key is this
// caller's (or the wait is over: then the caller asks anyway).
type Claimer interface {
	Claim(ctx context.Context, key string) Claim
}

// Claim is one user's turn at a key.
type Claim interface {
	// HandedOver is the answer handed over by a user that held the key
	// while this one waited for it. A user that did not wait reads
	// nothing here, so that an answer handed over is never a later run's
	// cache hit.
	HandedOver() (Entry, bool)
	// HandOver gives the answer to the users waiting on this claim, for
	// about as long as they take to read it, without keeping it.
	HandOver(body []byte)
	// Release hands the key on.
	Release()
}

// Searcher wraps next: a value whose answer is stored is answered from
// disk, marked with when it was stored; any other is asked of next and its
// answer stored. Errors are never stored.
func (c *Cache) Searcher(next lookup.Searcher, scope Scope, o SearchOptions) lookup.Searcher {
	return NewSearcher(c, next, scope, o)
}

// NewSearcher is Cache.Searcher over any Store. When the store is a
// Claimer, a value missing from it is asked by one of its users at a time,
// and the others read that one's answer.
func NewSearcher(store Store, next lookup.Searcher, scope Scope, o SearchOptions) lookup.Searcher {
	if o.Name == "" {
		o.Name = "cache"
	}
	return &searcher{c: store, next: next, scope: scope, o: o}
}

type searcher struct {
	c        Store
	next     lookup.Searcher
	scope    Scope
	o        SearchOptions
	warnOnce sync.Once
}

func (s *searcher) Search(ctx context.Context, value string) (*api.SearchResponse, error) {
	key := s.scope.Key(value)
	if s.o.Refresh {
		return s.ask(ctx, key, value, nil)
	}
	if s.keeps() {
		if resp, ok := s.hit(key, value); ok {
			return resp, nil
		}
	}
	cl, ok := s.c.(Claimer)
	if !ok {
		return s.ask(ctx, key, value, nil)
	}
	claim := cl.Claim(ctx, key)
	defer claim.Release()
	if e, ok := claim.HandedOver(); ok {
		if resp, ok := s.decode(e, value); ok {
			s.debugf("%s hit: %s (handed over by the process that asked for it)", s.o.Name, value)
			return resp, nil
		}
	}
	// Read again once the key is ours: another user may have stored the
	// answer just before.
	if s.keeps() {
		if resp, ok := s.hit(key, value); ok {
			return resp, nil
		}
	}
	return s.ask(ctx, key, value, claim)
}

// ask asks next for the value, hands the answer to the users waiting on
// claim (nil: none) and stores it when the store keeps answers.
func (s *searcher) ask(ctx context.Context, key, value string, claim Claim) (*api.SearchResponse, error) {
	resp, err := s.next.Search(ctx, value)
	if err != nil || resp == nil {
		return resp, err
	}
	fits := int64(len(resp.Raw)) <= s.c.MaxAnswer()
	if claim != nil && fits {
		claim.HandOver(resp.Raw)
	}
	switch {
	case !s.keeps():
	case !fits:
		s.debugf("%s: not stored: the answer for %s (%d bytes) is larger than the %d bytes it keeps of one answer", s.o.Name, value, len(resp.Raw), s.c.MaxAnswer())
	default:
		s.store(key, value, resp)
	}
	return resp, nil
}

// keeps tells whether answers are kept (the cache setting is on).
func (s *searcher) keeps() bool { return s.o.TTL > 0 }

// hit reads a stored answer and makes of it what the client would have
// returned. A stored body that no longer decodes is a miss.
func (s *searcher) hit(key, value string) (*api.SearchResponse, bool) {
	e, ok := s.c.Get(key)
	if !ok {
		s.debugf("%s miss: %s", s.o.Name, value)
		return nil, false
	}
	resp, ok := s.decode(e, value)
	if !ok {
		return nil, false
	}
	// An answer stored under a longer --cache than this run's is too old
	// for this run, though not yet expired for the one that stored it.
	if age := s.c.Now().Sub(e.Stored); age > s.ttl(resp) {
		s.debugf("%s miss: %s (stored %s ago, older than this run's %s)", s.o.Name, value, FormatDuration(age.Round(time.Second)), FormatDuration(s.ttl(resp)))
		return nil, false
	}
	s.debugf("%s hit: %s (stored %s, expires %s)", s.o.Name, value, e.Stored.UTC().Format(time.RFC3339), e.Expires.UTC().Format(time.RFC3339))
	return resp, true
}

// decode makes of a stored answer what the client would have returned,
// marked with when it was stored.
func (s *searcher) decode(e Entry, value string) (*api.SearchResponse, bool) {
	decode := api.DecodeSearch
	if s.o.Raw {
		decode = api.DecodeSearchRaw
	}
	resp, err := decode(e.Body)
	if err != nil {
		s.debugf("%s miss: %s (the stored answer does not decode)", s.o.Name, value)
		return nil, false
	}
	resp.CachedAt = e.Stored
	return resp, true
}

func (s *searcher) store(key, value string, resp *api.SearchResponse) {
	ttl := s.ttl(resp)
	if err := s.c.Put(key, resp.Raw, ttl); err != nil {
		s.debugf("%s: cannot store the answer for %s: %v", s.o.Name, value, err)
		s.warnOnce.Do(func() {
			if s.o.Warn != nil {
				fmt.Fprintf(s.o.Warn, "tilookup: warning: answers are not being cached: %s\n", sanitize.String(err.Error()))
			}
		})
		return
	}
	s.debugf("%s store: %s for %s", s.o.Name, value, FormatDuration(ttl))
}

// ttl keeps a match for the configured time and an answer without one
// (no match, unsupported) for at most NoMatchTTL.
func (s *searcher) ttl(resp *api.SearchResponse) time.Duration {
	if resp.ResultCount() > 0 {
		return s.o.TTL
	}
	return min(s.o.TTL, NoMatchTTL)
}

func (s *searcher) debugf(format string, args ...any) {
	if s.o.Debug != nil {
		fmt.Fprintln(s.o.Debug, "[debug] "+sanitize.String(fmt.Sprintf(format, args...)))
	}
}

// FormatDuration prints d as a person writes it: 24h, not 24h0m0s, and
// whole days beyond two as 7d.
func FormatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	if d >= 2*day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
