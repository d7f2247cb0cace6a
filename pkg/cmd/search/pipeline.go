package search

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/output"
)

// pipeline looks values up with a bounded pool of workers and emits one
// record per input, in input order. Its window (the queue between the
// reader and the printer) bounds memory: one slow value holds back at most
// window values, however long the input.
type pipeline struct {
	client      *api.Client
	limit       int
	refang      bool
	concurrency int
	rate        float64
	// idle is called when the next record is not ready yet: the moment to
	// flush buffered output, so that a stream reader sees every finished
	// record without a write per record in a fast bulk run.
	idle func()
	// rawOnly asks for the results to be counted, not decoded.
	rawOnly bool
}

// idleDelay is how long the printer waits for the next record before it
// flushes what it has written.
const idleDelay = 10 * time.Millisecond

// The answers kept for values repeated beyond the window.
const (
	recentEntries = 2048
	recentBytes   = 8 << 20
)

// call is one request; identical values inside the window share it.
// resp and err are set before done, and read only once done is seen.
type call struct {
	value string
	resp  *api.SearchResponse
	err   error
	refs  int // guarded by the pipeline's mutex
	done  atomic.Bool
}

// job is one input line and the call that answers it (nil when the value
// was rejected locally).
type job struct {
	in    input
	value string
	call  *call
	err   error
	// own is the call of a value not in flight yet, allocated with its
	// job: one allocation per value instead of two.
	own call
}

// waker tells the printer that the call it waits for is done, without a
// channel per call: the printer names the call it waits for, and only the
// worker finishing that call signals.
type waker struct {
	waiting atomic.Pointer[call]
	ch      chan struct{} // capacity 1; a stale signal only causes a recheck
}

// finish marks c done and wakes the printer if it waits for c. The store
// to done comes before the load of waiting, and the printer stores waiting
// before it loads done, so one of the two always sees the other.
func (w *waker) finish(c *call) {
	c.done.Store(true)
	if w.waiting.Load() == c {
		select {
		case w.ch <- struct{}{}:
		default:
		}
	}
}

func (p *pipeline) run(ctx context.Context, in *inputs, emit func(output.Record) error) error {
	window := max(4*p.concurrency, 16)
	queue := make(chan *job, window)
	// Every call in work belongs to a job in queue or being printed, so a
	// buffer the size of the window adds nothing to what the window holds;
	// it spares the producer a hand-off to an idle worker per value.
	work := make(chan *call, window)
	wake := &waker{ch: make(chan struct{}, 1)}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if p.rate > 0 {
		p.client.SetThrottle(rate.NewLimiter(rate.Limit(p.rate), 1).Wait)
	}
	var wg sync.WaitGroup
	for range p.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				p.do(ctx, c)
				wake.finish(c)
			}
		}()
	}

	var mu sync.Mutex
	inflight := map[string]*call{}
	cache := newRecent(recentEntries, recentBytes)

	lines := readLines(ctx, in)
	readErr := make(chan error, 1)
	go func() {
		defer close(queue)
		defer close(work)
		readErr <- p.produce(ctx, lines, queue, work, wake, &mu, inflight, cache)
	}()

	// While the next record is not ready, buffered output is flushed: after
	// a short wait (a reader of the stream sees each record within
	// idleDelay; a fast run is not made to write record by record), and
	// every second of a long one (for the table, whose rows wait in
	// batches).
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	soon := time.NewTimer(idleDelay)
	soon.Stop()
	idle := func() {
		if p.idle != nil {
			p.idle()
		}
	}
	nextJob := func() (*job, bool) {
		select {
		case j, ok := <-queue:
			return j, ok
		default:
		}
		soon.Reset(idleDelay)
		defer soon.Stop()
		for {
			select {
			case j, ok := <-queue:
				return j, ok
			case <-soon.C:
				idle()
			case <-tick.C:
				idle()
			}
		}
	}
	await := func(c *call) {
		if c.done.Load() {
			return
		}
		wake.waiting.Store(c)
		defer wake.waiting.Store(nil)
		if c.done.Load() {
			return
		}
		soon.Reset(idleDelay)
		defer soon.Stop()
		for !c.done.Load() {
			select {
			case <-wake.ch:
			case <-soon.C:
				idle()
			case <-tick.C:
				idle()
			}
		}
	}

	var emitErr error
	for {
		j, ok := nextJob()
		if !ok {
			break
		}
		if emitErr != nil {
			continue // drain so the producer and workers can finish
		}
		rec := output.Record{Input: j.in.text, Query: j.value, Err: j.err}
		if j.call != nil {
			await(j.call) // a cancelled call ends at once with an error
			rec.Resp, rec.Err = j.call.resp, j.call.err
			mu.Lock()
			if j.call.refs--; j.call.refs == 0 {
				delete(inflight, j.call.value)
				if j.call.err == nil && j.call.resp != nil {
					cache.put(j.call.value, j.call.resp)
				}
			}
			mu.Unlock()
		}
		if failure.KindOf(rec.Err) == failure.Interrupted {
			// An interrupted value is not a record: stop at the last
			// complete one, so every printed line is whole and true.
			emitErr = rec.Err
			cancel()
			continue
		}
		if err := emit(rec); err != nil {
			emitErr = err
			cancel()
		}
	}
	wg.Wait()
	err := <-readErr
	if emitErr != nil {
		if failure.KindOf(emitErr) == failure.Interrupted {
			return nil // run() reports the interruption from ctx
		}
		return emitErr
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// line is one value read, or the error that ended the input.
type line struct {
	in  input
	err error
}

// lineBatch is how many lines the reader hands over at most at once.
const lineBatch = 64

// readLines reads the inputs on a goroutine of its own, a little ahead of
// the pipeline, so that a cancel never waits for a read that may not come
// (a terminal, or a pipe whose writer is idle). That goroutine closes the
// input files when it ends; one blocked on stdin ends with the process.
// Lines go over in batches of those already buffered: a batch is sent
// before any read that could block, so that no value waits for the next.
func readLines(ctx context.Context, in *inputs) <-chan []line {
	ch := make(chan []line, 1)
	go func() {
		defer close(ch)
		defer in.close()
		var batch []line
		send := func() bool {
			if len(batch) == 0 {
				return true
			}
			select {
			case ch <- batch:
			case <-ctx.Done():
				return false
			}
			batch = nil
			return true
		}
		for {
			l, ok, err := in.next()
			if err == nil && !ok {
				send()
				return
			}
			if batch == nil {
				batch = make([]line, 0, lineBatch)
			}
			batch = append(batch, line{in: l, err: err})
			if err != nil || len(batch) == lineBatch || !in.ready() {
				if !send() || err != nil {
					return
				}
			}
		}
	}()
	return ch
}

// produce prepares each value read and queues it in order; a new value is
// also handed to the workers, a duplicate in the window is not.
func (p *pipeline) produce(ctx context.Context, lines <-chan []line, queue chan<- *job, work chan<- *call, wake *waker, mu *sync.Mutex, inflight map[string]*call, cache *recent) error {
	for {
		var batch []line
		var more bool
		select {
		case batch, more = <-lines:
		case <-ctx.Done():
			return ctx.Err()
		}
		if !more {
			return nil
		}
		for _, l := range batch {
			if l.err != nil {
				return l.err
			}
			if err := p.produceOne(ctx, l.in, queue, work, wake, mu, inflight, cache); err != nil {
				return err
			}
		}
	}
}

func (p *pipeline) produceOne(ctx context.Context, line input, queue chan<- *job, work chan<- *call, wake *waker, mu *sync.Mutex, inflight map[string]*call, cache *recent) error {
	j := &job{in: line, err: line.err}
	if j.err == nil {
		j.value, _, j.err = ioc.Prepare(line.text, p.refang)
	}
	var fresh *call
	if j.err == nil {
		mu.Lock()
		c, dup := inflight[j.value]
		if !dup {
			c = &j.own
			c.value = j.value
			if resp, ok := cache.get(j.value); ok {
				c.resp = resp
				c.done.Store(true) // before the job is queued: no one waits yet
			} else {
				fresh = c
			}
			inflight[j.value] = c
		}
		c.refs++
		j.call = c
		mu.Unlock()
	}
	// A plain send while there is room; the select with ctx only when full.
	select {
	case queue <- j:
	default:
		select {
		case queue <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if fresh != nil {
		select {
		case work <- fresh:
		default:
			select {
			case work <- fresh:
			case <-ctx.Done():
				fresh.err = &api.APIError{Op: api.OpSearch, Kind: failure.Interrupted, Message: "interrupted"}
				wake.finish(fresh)
				return ctx.Err()
			}
		}
	}
	return nil
}

func (p *pipeline) do(ctx context.Context, c *call) {
	if p.rawOnly {
		c.resp, c.err = p.client.SearchRaw(ctx, c.value, p.limit)
		return
	}
	c.resp, c.err = p.client.Search(ctx, c.value, p.limit)
}
