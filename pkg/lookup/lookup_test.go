package lookup

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
)

// items is a Source over a fixed list; an error value ends the input.
type items struct {
	list []Item
	err  error
}

func (s *items) Next() (Item, bool, error) {
	if len(s.list) == 0 {
		return Item{}, false, s.err
	}
	it := s.list[0]
	s.list = s.list[1:]
	return it, true, nil
}

func values(vs ...string) *items {
	s := &items{}
	for _, v := range vs {
		s.list = append(s.list, Item{Input: v, Value: v})
	}
	return s
}

// collect is a Sink that keeps what it is given.
type collect struct {
	mu      sync.Mutex
	got     []Result
	flushes int
	failAt  int // Add fails on this record (1-based); 0 = never
}

func (c *collect) Add(r Result) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, r)
	if len(c.got) == c.failAt {
		return errors.New("disk full")
	}
	return nil
}

func (c *collect) Flush() error { c.mu.Lock(); c.flushes++; c.mu.Unlock(); return nil }

func (c *collect) inputs() []string {
	var out []string
	for _, r := range c.got {
		out = append(out, r.Item.Input)
	}
	return out
}

// counting is a Searcher that answers each value with its own name after
// an optional delay, and counts calls and the most calls in flight.
type counting struct {
	delay    func(v string) time.Duration
	mu       sync.Mutex
	calls    map[string]int
	inFlight int
	maxIn    int
}

func (c *counting) Search(ctx context.Context, v string) (*api.SearchResponse, error) {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[v]++
	c.inFlight++
	c.maxIn = max(c.maxIn, c.inFlight)
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.inFlight--; c.mu.Unlock() }()
	if c.delay != nil {
		select {
		case <-time.After(c.delay(v)):
		case <-ctx.Done():
			return nil, errInterrupted
		}
	}
	return &api.SearchResponse{Query: v, Raw: []byte(`{"query":"` + v + `"}`)}, nil
}

func TestRunKeepsInputOrder(t *testing.T) {
	var vs []string
	for i := range 300 {
		vs = append(vs, fmt.Sprint("v", i))
	}
	s := &counting{delay: func(string) time.Duration { return time.Duration(rand.IntN(3000)) * time.Microsecond }}
	sink := &collect{}
	if err := Run(context.Background(), values(vs...), s, Options{Concurrency: 8}, sink); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sink.inputs(), ","); got != strings.Join(vs, ",") {
		t.Fatalf("order broken:\n%s", got)
	}
	for _, r := range sink.got {
		if r.Resp == nil || r.Resp.Query != r.Item.Value {
			t.Fatalf("%s got the answer of %v", r.Item.Value, r.Resp)
		}
	}
}

func TestRunBoundsConcurrency(t *testing.T) {
	var vs []string
	for i := range 100 {
		vs = append(vs, fmt.Sprint("v", i))
	}
	s := &counting{delay: func(string) time.Duration { return time.Millisecond }}
	if err := Run(context.Background(), values(vs...), s, Options{Concurrency: 3}, &collect{}); err != nil {
		t.Fatal(err)
	}
	if s.maxIn > 3 {
		t.Fatalf("%d lookups in flight at once, want at most 3", s.maxIn)
	}
	if s.maxIn < 2 {
		t.Fatalf("at most %d lookup in flight: the workers do not run concurrently", s.maxIn)
	}
}

// A slow first value must not idle the other workers (head-of-line
// blocking), and what waits behind it is bounded by bytes.
func TestRunSlowValueDoesNotStallOthers(t *testing.T) {
	release := make(chan struct{})
	var done atomic.Int64
	s := SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		if v == "slow" {
			<-release
		} else {
			done.Add(1)
		}
		return &api.SearchResponse{Raw: make([]byte, 1000)}, nil
	})
	vs := []string{"slow"}
	for i := range 5000 {
		vs = append(vs, fmt.Sprint("v", i))
	}
	maxHeld := int64(100_000) // room for about 80 answers of 1000 bytes and their cost
	errc := make(chan error, 1)
	sink := &collect{}
	go func() {
		errc <- Run(context.Background(), values(vs...), s, Options{Concurrency: 4, MaxHeld: maxHeld}, sink)
	}()

	// The other workers go on until the held bytes are full, then stop.
	deadline := time.Now().Add(5 * time.Second)
	for done.Load() < 60 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	n := done.Load()
	if n < 60 {
		t.Fatalf("only %d values answered while the first was slow: workers stall behind it", n)
	}
	if limit := maxHeld/(1000+itemCost) + 2*4; n > limit {
		t.Fatalf("%d values answered and held behind the slow one, want at most %d (the byte bound)", n, limit)
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != len(vs) || sink.got[0].Item.Value != "slow" {
		t.Fatalf("%d records, first %q", len(sink.got), sink.got[0].Item.Value)
	}
}

func TestDedupAsksOnce(t *testing.T) {
	s := &counting{delay: func(string) time.Duration { return 2 * time.Millisecond }}
	var vs []string
	for i := range 200 {
		vs = append(vs, fmt.Sprint("v", i%7)) // in flight together and repeated later
	}
	sink := &collect{}
	if err := Run(context.Background(), values(vs...), Dedup(s), Options{Concurrency: 8}, sink); err != nil {
		t.Fatal(err)
	}
	for v, n := range s.calls {
		if n != 1 {
			t.Errorf("%s asked %d times, want 1", v, n)
		}
	}
	if len(s.calls) != 7 || len(sink.got) != 200 {
		t.Fatalf("%d distinct calls, %d records", len(s.calls), len(sink.got))
	}
	for _, r := range sink.got {
		if r.Err != nil || r.Resp.Query != r.Item.Value {
			t.Fatalf("%s: %v %v", r.Item.Value, r.Resp, r.Err)
		}
	}
}

func TestDedupDoesNotKeepErrors(t *testing.T) {
	var calls atomic.Int64
	s := SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		if calls.Add(1) == 1 {
			return nil, failure.New(failure.Server, "503")
		}
		return &api.SearchResponse{}, nil
	})
	d := Dedup(s)
	if _, err := d.Search(context.Background(), "x"); err == nil {
		t.Fatal("first call should fail")
	}
	if _, err := d.Search(context.Background(), "x"); err != nil {
		t.Fatalf("an error was remembered: %v", err)
	}
	if calls.Load() != 2 {
		t.Fatalf("%d calls", calls.Load())
	}
}

func TestRunPanicBecomesRecord(t *testing.T) {
	s := SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		if v == "bad" {
			var b []byte
			_ = b[5] // index out of range
		}
		return &api.SearchResponse{}, nil
	})
	sink := &collect{}
	if err := Run(context.Background(), values("a", "bad", "c"), Dedup(s), Options{Concurrency: 2}, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 3 || sink.got[1].Err == nil || sink.got[0].Err != nil || sink.got[2].Err != nil {
		t.Fatalf("records: %+v", sink.got)
	}
	if !strings.Contains(sink.got[1].Err.Error(), "internal error") || failure.ExitCode(sink.got[1].Err) != failure.ExitService {
		t.Fatalf("panic record: %v", sink.got[1].Err)
	}
}

func TestRunLocalErrorsAndInputError(t *testing.T) {
	src := &items{list: []Item{
		{Input: "a", Value: "a"},
		{Input: "\x01", Err: failure.New(failure.Input, "control character")},
		{Input: "b", Value: "b"},
	}, err: failure.New(failure.IO, "cannot read f")}
	s := &counting{}
	sink := &collect{}
	err := Run(context.Background(), src, s, Options{Concurrency: 2}, sink)
	if failure.KindOf(err) != failure.IO {
		t.Fatalf("err = %v, want the input's error", err)
	}
	if got := strings.Join(sink.inputs(), ","); got != "a,\x01,b" {
		t.Fatalf("records %q", got)
	}
	if s.calls["\x01"] != 0 || failure.KindOf(sink.got[1].Err) != failure.Input {
		t.Fatalf("a rejected value was sent or lost its error")
	}
}

func TestRunInterruptKeepsCompletePrefix(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &counting{delay: func(v string) time.Duration {
		if v == "v3" {
			return time.Hour
		}
		return 0
	}}
	sink := &collect{}
	var vs []string
	for i := range 10 {
		vs = append(vs, fmt.Sprint("v", i))
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	err := Run(ctx, values(vs...), s, Options{Concurrency: 4}, sink)
	if failure.KindOf(err) != failure.Interrupted {
		t.Fatalf("err = %v", err)
	}
	if got := strings.Join(sink.inputs(), ","); got != "v0,v1,v2" {
		t.Fatalf("records after interrupt: %q, want the prefix before the unfinished value", got)
	}
	if sink.flushes == 0 {
		t.Fatal("the sink was never flushed while the run waited")
	}
}

func TestRunStopsOnSinkError(t *testing.T) {
	var vs []string
	for i := range 1000 {
		vs = append(vs, fmt.Sprint("v", i))
	}
	s := &counting{}
	sink := &collect{failAt: 5}
	err := Run(context.Background(), values(vs...), s, Options{Concurrency: 4}, sink)
	if err == nil || err.Error() != "disk full" || len(sink.got) != 5 {
		t.Fatalf("err %v after %d records", err, len(sink.got))
	}
}

// blocking is a Source that yields its items, then blocks as an idle stdin
// does.
type blocking struct {
	items
	block chan struct{}
}

func (b *blocking) Next() (Item, bool, error) {
	if len(b.list) == 0 {
		<-b.block
		return Item{}, false, nil
	}
	return b.items.Next()
}

// Ctrl-C while the input is idle ends the run at once, with every answer
// printed, and says it was interrupted.
func TestInterruptWhileInputIsIdle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	src := &blocking{items: *values("a", "b"), block: make(chan struct{})}
	defer close(src.block)
	sink := &collect{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, src, &counting{}, Options{Concurrency: 2}, sink) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if failure.KindOf(err) != failure.Interrupted {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end after the cancel while the input was idle")
	}
	if got := strings.Join(sink.inputs(), ","); got != "a,b" {
		t.Fatalf("records %q", got)
	}
}

// An interrupted run over answers that come at once (de-duplicated or
// cached) still ends as interrupted, not as a complete run.
func TestInterruptOverInstantAnswersIsReported(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var vs []string
	for range 200000 {
		vs = append(vs, "same")
	}
	n := 0
	sink := &countingSink{add: func() {
		if n++; n == 1000 {
			cancel()
		}
	}}
	err := Run(ctx, values(vs...), Dedup(&counting{}), Options{Concurrency: 4}, sink)
	if failure.KindOf(err) != failure.Interrupted {
		t.Fatalf("err = %v after %d records, want interrupted", err, n)
	}
	if n == len(vs) {
		t.Fatal("the cancel did not stop the run")
	}
}

type countingSink struct{ add func() }

func (c *countingSink) Add(Result) error { c.add(); return nil }
func (c *countingSink) Flush() error     { return nil }

func TestStopSendingAfterARefusedToken(t *testing.T) {
	var calls atomic.Int64
	s := StopSending(SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		calls.Add(1)
		return nil, failure.New(failure.Auth, "401 Unauthorized")
	}))
	sink := runValues(t, s, 500, 4)
	if n := calls.Load(); n > 8 {
		t.Fatalf("%d requests with a refused token, want at most the ones in flight", n)
	}
	checkNotSent(t, sink, 500, failure.Auth, failure.ExitAuth)
}

// A real closed port: the values after a few connection failures in a row
// are not sent, each still has its record, and the run's code is 6.
func TestStopSendingWhenTheServiceCannotBeReached(t *testing.T) {
	var calls atomic.Int64
	client := closedPortClient(t)
	s := StopSending(SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		calls.Add(1)
		return client.Search(ctx, v, 0)
	}))
	start := time.Now()
	sink := runValues(t, s, 2000, 4)
	if n := calls.Load(); n > UnreachableInARow+4 {
		t.Fatalf("%d requests to a closed port, want at most %d in a row and the ones in flight", n, UnreachableInARow)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("2000 values against a closed port took %s", d)
	}
	checkNotSent(t, sink, 2000, failure.Network, failure.ExitService)
	for _, r := range sink.got {
		if k := failure.KindOf(r.Err); k == failure.NotSent && !strings.Contains(r.Err.Error(), "could not reach the service (cannot connect to") {
			t.Fatalf("the not-sent error does not say why: %v", r.Err)
		}
	}
}

// Connection failures with an answer between them (a 503 is an answer)
// never stop a run: only failures in a row do.
func TestStopSendingNeedsFailuresInARow(t *testing.T) {
	client := closedPortClient(t)
	s := StopSending(SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		if strings.HasPrefix(v, "up") {
			return nil, failure.New(failure.Server, "503 Service Unavailable")
		}
		return client.Search(ctx, v, 0)
	}))
	var vs []string
	for i := range 50 {
		vs = append(vs, fmt.Sprint("down", i), fmt.Sprint("down-again", i), fmt.Sprint("up", i))
	}
	sink := &collect{}
	if err := Run(context.Background(), values(vs...), s, Options{Concurrency: 1}, sink); err != nil {
		t.Fatal(err)
	}
	for _, r := range sink.got {
		if failure.KindOf(r.Err) == failure.NotSent {
			t.Fatalf("%s was not sent, though the service answered between the failures: %v", r.Item.Value, r.Err)
		}
	}
}

func closedPortClient(t *testing.T) *api.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := api.New(api.Options{BaseURL: "http://" + addr, Token: "t", Timeout: 5 * time.Second, Retries: 2,
		Sleep: func(context.Context, time.Duration) error { return nil }}, false)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func runValues(t *testing.T, s Searcher, n, concurrency int) *collect {
	t.Helper()
	var vs []string
	for i := range n {
		vs = append(vs, fmt.Sprint("v", i))
	}
	sink := &collect{}
	if err := Run(context.Background(), values(vs...), s, Options{Concurrency: concurrency}, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != n {
		t.Fatalf("%d records for %d values", len(sink.got), n)
	}
	return sink
}

// checkNotSent: every value failed, as why or as not sent, most were not
// sent, and the run's exit code is code.
func checkNotSent(t *testing.T, sink *collect, n int, why failure.Kind, code int) {
	t.Helper()
	var tally failure.Tally
	notSent := 0
	for _, r := range sink.got {
		tally.Add(r.Err, false)
		switch failure.KindOf(r.Err) {
		case failure.NotSent:
			notSent++
			if c := failure.ExitCode(r.Err); c != code {
				t.Fatalf("a value not sent exits %d, want %d", c, code)
			}
		case why:
		default:
			t.Fatalf("%s: %v (kind %s)", r.Item.Value, r.Err, failure.KindOf(r.Err))
		}
	}
	if notSent < n-10 {
		t.Fatalf("%d of %d values not sent", notSent, n)
	}
	if c := tally.Code(false); c != code {
		t.Fatalf("exit %d, want %d", c, code)
	}
}

// Copies of a value in flight wait for its answer without taking a worker
// each: the slow value here answers only once every other value has been
// asked, which cannot happen if its copies hold all the workers.
func TestRunCopiesOfASlowValueLeaveTheWorkersFree(t *testing.T) {
	const fast = 100
	var asked atomic.Int32
	allAsked := make(chan struct{})
	var vs []string
	for i := range fast {
		vs = append(vs, "slow", fmt.Sprint("v", i))
	}
	s := &slowGate{asked: &asked, all: allAsked, want: fast}
	sink := &collect{}
	if err := Run(context.Background(), values(vs...), Dedup(s), Options{Concurrency: 4}, sink); err != nil {
		t.Fatal(err)
	}
	if s.timedOut.Load() {
		t.Fatal("the copies of the slow value held the workers: the other values waited for it")
	}
	if got := strings.Join(sink.inputs(), ","); got != strings.Join(vs, ",") {
		t.Fatalf("order broken:\n%s", got)
	}
	for _, r := range sink.got {
		if r.Err != nil || r.Resp == nil || r.Resp.Query != r.Item.Value {
			t.Fatalf("%s: %v, %v", r.Item.Value, r.Resp, r.Err)
		}
	}
	if n := s.slowCalls.Load(); n != 1 {
		t.Fatalf("the slow value was asked %d times, want once", n)
	}
}

// slowGate answers "slow" only once want other values were asked (or after
// a few seconds, which the test counts as a failure).
type slowGate struct {
	asked     *atomic.Int32
	all       chan struct{}
	want      int32
	slowCalls atomic.Int32
	timedOut  atomic.Bool
}

func (b *slowGate) Search(ctx context.Context, v string) (*api.SearchResponse, error) {
	if v == "slow" {
		b.slowCalls.Add(1)
		select {
		case <-b.all:
		case <-time.After(3 * time.Second):
			b.timedOut.Store(true)
		}
	} else if b.asked.Add(1) == b.want {
		close(b.all)
	}
	return &api.SearchResponse{Query: v, Raw: []byte(`{"query":"` + v + `"}`)}, nil
}

// A copy that joins a value in flight gets that value's error too, and a
// panic in the one call reaches every copy as an error record.
func TestRunCopiesShareTheErrorOrPanic(t *testing.T) {
	release := make(chan struct{})
	s := SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		<-release
		panic("hostile answer")
	})
	go func() { time.Sleep(50 * time.Millisecond); close(release) }()
	sink := &collect{}
	if err := Run(context.Background(), values("x", "x", "x"), Dedup(s), Options{Concurrency: 3}, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.got) != 3 {
		t.Fatalf("%d records, want 3", len(sink.got))
	}
	for _, r := range sink.got {
		if r.Err == nil || !strings.Contains(r.Err.Error(), "hostile answer") {
			t.Fatalf("a copy of the panicking value did not get its error: %+v", r)
		}
	}
}

// A firewall that drops the SYN: every dial waits until the request's
// time-out cuts it, so no dial error is ever seen (issue 39). Such
// time-outs in a row stop the run as refused connections do.
func TestStopSendingWhenDialsTimeOut(t *testing.T) {
	var dials atomic.Int64
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		dials.Add(1)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	client, err := api.New(api.Options{BaseURL: "https://ti.test", Token: "t", Timeout: 50 * time.Millisecond, Retries: 1,
		Transport: tr, Sleep: func(context.Context, time.Duration) error { return nil }}, false)
	if err != nil {
		t.Fatal(err)
	}
	s := StopSending(SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		return client.Search(ctx, v, 0)
	}))
	sink := runValues(t, s, 500, 4)
	if n := dials.Load(); n > 2*(UnreachableInARow+4) {
		t.Fatalf("%d dials that never connect, want at most the tries of %d in a row and the ones in flight", n, UnreachableInARow)
	}
	checkNotSent(t, sink, 500, failure.Timeout, failure.ExitService)
	for _, r := range sink.got {
		if failure.KindOf(r.Err) == failure.NotSent && !strings.Contains(r.Err.Error(), "got no answer from the service") {
			t.Fatalf("the not-sent error does not say why: %v", r.Err)
		}
	}
}
