package lookup

import (
	"context"
	"sync"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
)

// DefaultMaxHeld is how many bytes of finished answers Run holds back at
// most while an earlier value is still in flight.
const DefaultMaxHeld = 4 << 20

// itemCost is what one value costs to hold beyond its answer's bytes, so
// that a run of empty answers is bounded too.
const itemCost = 256

// IdleDelay is how long Run waits for the next result before it asks the
// sink to flush: a reader of a stream sees each record within it, and a
// fast run still writes in blocks.
const IdleDelay = 10 * time.Millisecond

var (
	errInterrupted = failure.New(failure.Interrupted, "interrupted")
	errNoAnswer    = failure.New(failure.Decode, "no answer for this value (internal error)")
)

// Source yields the items to look up, in order. Next returns ok=false at
// the end of the input, or an error that ends it (the items before it are
// still looked up). Run calls Next from one goroutine of its own.
type Source interface {
	Next() (it Item, ok bool, err error)
}

// Sink receives the results in input order.
type Sink interface {
	Add(Result) error
	// Flush is called when the next result is not ready: the moment to
	// push buffered output to a reader.
	Flush() error
}

// Options bound a Run.
type Options struct {
	Concurrency int   // lookups in flight at once; at least 1
	MaxHeld     int64 // bytes held for ordering; 0 = DefaultMaxHeld
}

// slot is one item on its way; resp and err are set before done closes.
type slot struct {
	item Item
	res  Result
	cost int64
	done chan struct{}
}

// Run looks up every item of src with s and hands the results to sink in
// input order. Workers never wait for the printer: results that finish
// early are held until their turn, so one slow value delays only its own
// record. New values are taken only while what is held stays under
// MaxHeld; the answers of the lookups already in flight come on top, so
// memory is bounded by MaxHeld plus Concurrency answers. It returns the input's error, the sink's
// error, or an interrupted error when ctx ended (after the last complete
// prefix of results).
func Run(ctx context.Context, src Source, s Searcher, opts Options, sink Sink) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &run{ctx: ctx, s: s, maxHeld: opts.MaxHeld}
	if r.maxHeld <= 0 {
		r.maxHeld = DefaultMaxHeld
	}
	r.room = sync.NewCond(&r.mu)
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.room.Broadcast()
		r.mu.Unlock()
	})
	defer stop()

	order := make(chan *slot, r.maxHeld/itemCost+1)
	work := make(chan *slot, max(opts.Concurrency, 1))
	var wg sync.WaitGroup
	for range max(opts.Concurrency, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A worker leaves when the run ends, not only when work is
			// closed: the producer may sit in a read of an idle stdin.
			for {
				select {
				case sl, ok := <-work:
					if !ok {
						return
					}
					r.lookup(sl)
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	// The producer is not waited for: it may sit in a read of a terminal
	// or an idle pipe, which must not hold up a cancel.
	go r.produce(src, order, work)

	err := r.emit(order, sink)
	cancel()
	wg.Wait()
	return err
}

type run struct {
	ctx     context.Context
	s       Searcher
	maxHeld int64

	mu   sync.Mutex
	room *sync.Cond // signalled when held drops or ctx ends
	held int64

	inputErr error // set before order is closed
}

func (r *run) produce(src Source, order, work chan<- *slot) {
	defer close(order)
	defer close(work)
	for r.ctx.Err() == nil {
		it, ok, err := src.Next()
		if err != nil {
			r.inputErr = err
			return
		}
		if !ok || !r.reserve(int64(itemCost+len(it.Input)+len(it.Value))) {
			return
		}
		sl := &slot{item: it, cost: int64(itemCost + len(it.Input) + len(it.Value)), done: make(chan struct{})}
		sl.res.Item = it
		if it.Err != nil {
			sl.res.Err = it.Err
			close(sl.done)
		}
		select {
		case order <- sl:
		case <-r.ctx.Done():
			return
		}
		if it.Err != nil {
			continue
		}
		select {
		case work <- sl:
		case <-r.ctx.Done():
			return
		}
	}
}

// reserve waits until what is held leaves room for n more bytes. It
// always lets one through when nothing is held, so that no single value
// can stall the run. It returns false when the run ends.
func (r *run) reserve(n int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.held > 0 && r.held+n > r.maxHeld && r.ctx.Err() == nil {
		r.room.Wait()
	}
	if r.ctx.Err() != nil {
		return false
	}
	r.held += n
	return true
}

func (r *run) hold(n int64) {
	r.mu.Lock()
	r.held += n
	r.mu.Unlock()
}

func (r *run) release(n int64) {
	r.mu.Lock()
	r.held -= n
	r.room.Signal()
	r.mu.Unlock()
}

// joiner is a Searcher that can answer a value from another copy of it
// without holding the caller (Dedup).
type joiner interface {
	join(value string, then func(*api.SearchResponse, error)) bool
}

// lookup answers one slot. A copy of a value already in flight is left to
// that value's call, so that the worker goes on to the next value: a slow
// value repeated in the input holds one worker, not one per copy. A panic
// in the Searcher (a hostile answer that trips a bug) becomes this value's
// error, not the end of the run.
func (r *run) lookup(sl *slot) {
	if j, ok := r.s.(joiner); ok && j.join(sl.item.Value, func(resp *api.SearchResponse, err error) { r.answer(sl, resp, err) }) {
		return
	}
	var resp *api.SearchResponse
	var err error = errNoAnswer
	defer func() {
		if p := recover(); p != nil {
			resp, err = nil, panicked(p)
		}
		r.answer(sl, resp, err)
	}()
	resp, err = r.s.Search(r.ctx, sl.item.Value)
}

// panicked is the error of a value whose lookup panicked.
func panicked(p any) error {
	return failure.New(failure.Decode, "cannot handle the answer for this value (internal error: %v)", p)
}

// answer records a slot's answer and hands it to the emitter.
func (r *run) answer(sl *slot, resp *api.SearchResponse, err error) {
	if err == nil && resp == nil {
		err = errNoAnswer
	}
	sl.res.Resp, sl.res.Err = resp, err
	if resp != nil {
		sl.cost += int64(len(resp.Raw))
		r.hold(int64(len(resp.Raw)))
	}
	close(sl.done)
}

func (r *run) emit(order <-chan *slot, sink Sink) error {
	idle := &idler{sink: sink}
	defer idle.stop()
	for {
		sl, ok, live := await(r.ctx, idle, order)
		if !live {
			return errInterrupted
		}
		if !ok {
			if r.inputErr != nil {
				return r.inputErr
			}
			if r.ctx.Err() != nil {
				return errInterrupted // the input was cut short, not done
			}
			return nil
		}
		if _, _, live := await(r.ctx, idle, sl.done); !live {
			return errInterrupted
		}
		if failure.KindOf(sl.res.Err) == failure.Interrupted {
			// An interrupted value is not a record: stop at the last
			// complete one, so every printed line is whole and true.
			return errInterrupted
		}
		if err := sink.Add(sl.res); err != nil {
			return err
		}
		idle.added()
		r.release(sl.cost)
	}
}

// await receives from ch, flushing the sink when it is due while it
// waits. live is false when ctx ended first.
func await[T any](ctx context.Context, idle *idler, ch <-chan T) (v T, ok, live bool) {
	select {
	case v, ok = <-ch:
		return v, ok, true
	default:
	}
	for {
		select {
		case v, ok = <-ch:
			return v, ok, true
		case <-ctx.Done():
			return v, false, false
		case <-idle.due():
			idle.flush()
		}
	}
}

// idler flushes the sink while the emitter waits, at most IdleDelay after
// the first record added since the last flush: a reader of a stream sees
// each record within it, and a fast run still writes in blocks. The timer
// is armed once per batch of records, not at every wait, which a fast run
// does for almost every value.
type idler struct {
	sink  Sink
	timer *time.Timer // nil until the first record
	armed bool        // records wait for a flush and the timer runs
}

func (i *idler) added() {
	if i.armed {
		return
	}
	i.armed = true
	if i.timer == nil {
		i.timer = time.NewTimer(IdleDelay)
	} else {
		i.timer.Reset(IdleDelay)
	}
}

// due is the timer's channel, or nil (never ready) when nothing waits.
func (i *idler) due() <-chan time.Time {
	if !i.armed {
		return nil
	}
	return i.timer.C
}

func (i *idler) flush() {
	i.armed = false
	_ = i.sink.Flush() // a write error shows again at the next Add
}

func (i *idler) stop() {
	if i.timer != nil {
		i.timer.Stop()
	}
}
