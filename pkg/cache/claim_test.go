package cache

import (
	"bytes"
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
)

// memClaimer is a Store and Claimer in memory, as pkg/sharedcache keeps
// them in Redis: answers under their key, one claim per key that others
// wait on, and the answers handed over under the token of the claim.
type memClaimer struct {
	clk *clock

	mu       sync.Mutex
	changed  *sync.Cond
	answers  map[string]Entry
	claims   map[string]string // key -> token of the holder
	handed   map[string]Entry  // token -> answer handed over
	waiting  int               // users waiting on a claim now
	tokens   int
	puts     int
	handOver int
}

func newMemClaimer(clk *clock) *memClaimer {
	m := &memClaimer{clk: clk, answers: map[string]Entry{}, claims: map[string]string{}, handed: map[string]Entry{}}
	m.changed = sync.NewCond(&m.mu)
	return m
}

func (m *memClaimer) Get(key string) (Entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.answers[key]
	return e, ok && m.clk.Now().Before(e.Expires)
}

func (m *memClaimer) Put(key string, body []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.puts++
	m.answers[key] = Entry{Body: body, Stored: m.clk.Now(), Expires: m.clk.Now().Add(ttl)}
	return nil
}

func (m *memClaimer) Now() time.Time   { return m.clk.Now() }
func (m *memClaimer) MaxAnswer() int64 { return 1 << 20 }

func (m *memClaimer) Claim(_ context.Context, key string) Claim {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := &memClaim{m: m, key: key}
	for holder, held := m.claims[key]; held; holder, held = m.claims[key] {
		c.waitedFor = append(c.waitedFor, holder)
		m.waiting++
		m.changed.Broadcast()
		m.changed.Wait()
		m.waiting--
	}
	m.tokens++
	c.token = strconv.Itoa(m.tokens)
	m.claims[key] = c.token
	return c
}

// waitFor returns once n users wait on a claim.
func (m *memClaimer) waitFor(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for m.waiting < n {
		m.changed.Wait()
	}
}

type memClaim struct {
	m          *memClaimer
	key, token string
	waitedFor  []string // the holders, in turn: the first may have handed over
}

func (c *memClaim) HandedOver() (Entry, bool) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	for _, holder := range c.waitedFor {
		if e, ok := c.m.handed[holder]; ok {
			return e, true
		}
	}
	return Entry{}, false
}

func (c *memClaim) HandOver(body []byte) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	c.m.handOver++
	c.m.handed[c.token] = Entry{Body: body, Stored: c.m.clk.Now(), Expires: c.m.clk.Now().Add(time.Minute)}
}

func (c *memClaim) Release() {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	delete(c.m.claims, c.key)
	c.m.changed.Broadcast()
}

// gatedService answers every value with matchBody, each request once the
// gate opens (a closed gate holds it, as a slow service does).
type gatedService struct {
	asked atomic.Int32
	gate  chan struct{}
}

func (g *gatedService) Search(ctx context.Context, _ string) (*api.SearchResponse, error) {
	g.asked.Add(1)
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return api.DecodeSearchRaw([]byte(matchBody))
}

func openGate() *gatedService {
	g := &gatedService{gate: make(chan struct{})}
	close(g.gate)
	return g
}

var claimScope = Scope{BaseURL: "https://ti.test", TokenFingerprint: "fp"}

// With the cache off, the shared store keeps nothing: a later run asks
// again, however soon it comes.
func TestCacheOffAnswersAreNotKeptForALaterRun(t *testing.T) {
	clk := newClock()
	store := newMemClaimer(clk)
	svc := openGate()
	for run := range 2 {
		s := NewSearcher(store, svc, claimScope, SearchOptions{TTL: 0, Raw: true})
		resp, err := s.Search(context.Background(), "a.example")
		if err != nil || string(resp.Raw) != matchBody || !resp.CachedAt.IsZero() {
			t.Fatalf("run %d: %v, cached at %v, %s", run, err, resp.CachedAt, resp.Raw)
		}
		clk.Advance(3 * time.Second)
	}
	if n := svc.asked.Load(); n != 2 {
		t.Errorf("the service was asked %d times over two runs in sequence, want 2", n)
	}
	if store.puts != 0 {
		t.Errorf("%d answers stored with the cache off, want none", store.puts)
	}
}

// With the cache off or on, users that want a value at the same moment
// send one request: those that waited read the answer handed over.
func TestWaitingUsersReadTheAnswerHandedOver(t *testing.T) {
	for _, ttl := range []time.Duration{0, time.Hour} {
		clk := newClock()
		store := newMemClaimer(clk)
		svc := &gatedService{gate: make(chan struct{})}
		const users = 4
		bodies := make([][]byte, users)
		var wg sync.WaitGroup
		for i := range users {
			wg.Go(func() {
				s := NewSearcher(store, svc, claimScope, SearchOptions{TTL: ttl, Raw: true})
				resp, err := s.Search(context.Background(), "a.example")
				if err != nil {
					t.Errorf("ttl %s, user %d: %v", ttl, i, err)
					return
				}
				bodies[i] = resp.Raw
			})
		}
		store.waitFor(users - 1)
		close(svc.gate)
		wg.Wait()
		if n := svc.asked.Load(); n != 1 {
			t.Errorf("ttl %s: %d requests for %d users at once, want 1", ttl, n, users)
		}
		for i, b := range bodies {
			if !bytes.Equal(b, []byte(matchBody)) {
				t.Errorf("ttl %s, user %d: %s", ttl, i, b)
			}
		}
		if wantPuts := map[bool]int{true: 1, false: 0}[ttl > 0]; store.puts != wantPuts || store.handOver != 1 {
			t.Errorf("ttl %s: %d answers stored, %d handed over; want %d and 1", ttl, store.puts, store.handOver, wantPuts)
		}
	}
}

// With the cache on, a later run reads the stored answer without a claim.
func TestCacheOnAnswersServeALaterRun(t *testing.T) {
	clk := newClock()
	store := newMemClaimer(clk)
	svc := openGate()
	for range 2 {
		if _, err := NewSearcher(store, svc, claimScope, SearchOptions{TTL: time.Hour, Raw: true}).Search(context.Background(), "a.example"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(3 * time.Second)
	}
	if n := svc.asked.Load(); n != 1 {
		t.Errorf("the service was asked %d times, want once", n)
	}
}
