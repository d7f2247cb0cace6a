package lookup

import (
	"context"
	"sync"

	"github.com/tilookup/tilookup/pkg/api"
)

// The answers Dedup keeps for values repeated after their lookup ended.
const (
	recentEntries = 2048
	recentBytes   = 8 << 20
)

// Dedup wraps s so that identical values are asked once: a value already
// in flight waits for that call's answer, and a value answered recently
// gets that answer again. Only successful answers are remembered; an error
// is shared with the callers that waited for it, not with later ones.
func Dedup(s Searcher) Searcher {
	return &dedup{next: s, inflight: map[string]*flight{}, recent: newRecent(recentEntries, recentBytes)}
}

type dedup struct {
	next     Searcher
	mu       sync.Mutex
	inflight map[string]*flight
	recent   *recent
}

// flight is one call that identical values share; resp and err are set
// before done is closed and the waiters are called. done is made by the
// first caller of Search that waits, under the lock: most values have
// none, and are spared the channel.
type flight struct {
	done    chan struct{}
	waiters []func(*api.SearchResponse, error)
	resp    *api.SearchResponse
	err     error
}

// join answers value from another copy of it without holding the caller:
// when value was answered recently, then gets that answer at once; when it
// is in flight, then gets its answer when the call ends (on the goroutine
// that made it). It returns false when value must be asked. Run uses it
// so that copies of a slow value waiting for their answer do not take the
// workers the other values need.
func (d *dedup) join(value string, then func(*api.SearchResponse, error)) bool {
	d.mu.Lock()
	if resp, ok := d.recent.get(value); ok {
		d.mu.Unlock()
		then(resp, nil)
		return true
	}
	f, ok := d.inflight[value]
	if ok {
		f.waiters = append(f.waiters, then)
	}
	d.mu.Unlock()
	return ok
}

func (d *dedup) Search(ctx context.Context, value string) (resp *api.SearchResponse, err error) {
	d.mu.Lock()
	if recent, ok := d.recent.get(value); ok {
		d.mu.Unlock()
		return recent, nil
	}
	if f, ok := d.inflight[value]; ok {
		if f.done == nil {
			f.done = make(chan struct{})
		}
		d.mu.Unlock()
		select {
		case <-f.done:
			return f.resp, f.err
		case <-ctx.Done():
			return nil, errInterrupted
		}
	}
	f := &flight{}
	d.inflight[value] = f
	d.mu.Unlock()

	// Whatever happens in next, the waiters are released, with the same
	// answer as this call: a panic becomes everyone's error.
	defer func() {
		if p := recover(); p != nil {
			f.resp, f.err = nil, panicked(p)
			resp, err = f.resp, f.err
		}
		d.mu.Lock()
		delete(d.inflight, value)
		if f.err == nil && f.resp != nil {
			d.recent.put(value, f.resp)
		}
		if f.done != nil {
			close(f.done)
		}
		waiters := f.waiters
		d.mu.Unlock()
		for _, then := range waiters {
			then(f.resp, f.err)
		}
	}()
	f.resp, f.err = d.next.Search(ctx, value)
	if f.err == nil && f.resp == nil {
		f.err = errNoAnswer
	}
	return f.resp, f.err
}
