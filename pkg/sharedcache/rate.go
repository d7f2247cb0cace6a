package sharedcache

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tilookup/tilookup/pkg/cache"
)

// reserveScript is the fleet's token bucket, atomic in Redis: each call
// takes the next slot at `rate` a second (burst 1, as --rate's limiter)
// and returns how many microseconds to wait for it, at least as long as a
// pause a 429 set. The bucket is the time its next slot is free, on
// Redis's clock, so that hosts whose clocks differ share it fairly.
var reserveScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local pause = redis.call('PTTL', KEYS[2])
local start = now
if pause > 0 then start = now + pause * 1000 end
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if nextFree > start then start = nextFree end
redis.call('SET', KEYS[1], string.format('%.0f', start + interval), 'PX', math.floor((start - now + interval) / 1000) + 1000)
return start - now
`)

// pauseScript holds every member back for ARGV[1] ms, unless a longer
// pause is already set.
var pauseScript = redis.NewScript(`
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
end
return 0
`)

// Pacer is the fleet's shared rate for one service and token: every
// process and host with the same store, base URL and token draws on one
// bucket. It is what api.Client.SetPacer takes.
type Pacer struct {
	s        *Store
	bucket   string
	pause    string
	interval int64 // microseconds between two requests
	sleep    func(context.Context, time.Duration) error
}

// Pacer is the shared rate of perSecond requests to the service of scope
// (its limit aside: the quota is the token's).
func (s *Store) Pacer(scope cache.Scope, perSecond float64) *Pacer {
	id := cache.HashKey(scope.BaseURL + "\x00" + scope.TokenFingerprint)
	return &Pacer{
		s:        s,
		bucket:   prefix + "rate:" + id,
		pause:    prefix + "pause:" + id,
		interval: int64(1e6 / perSecond),
		sleep:    sleepCtx,
	}
}

// Wait takes the next slot of the shared bucket, sleeping until it comes.
// Once the store has failed it returns at once: the client's own --rate
// goes on pacing this process.
func (p *Pacer) Wait(ctx context.Context) error {
	if p.s.Down() {
		return ctx.Err()
	}
	octx, cancel := p.s.ctx()
	wait, err := reserveScript.Run(octx, p.s.rdb, []string{p.bucket, p.pause}, strconv.FormatInt(p.interval, 10)).Int64()
	cancel()
	if err != nil {
		p.s.fail(err)
		return ctx.Err()
	}
	return p.sleep(ctx, time.Duration(wait)*time.Microsecond)
}

// Pause holds every member back for d: the service answered 429 with
// Retry-After, and it is the fleet's pace that it objects to.
func (p *Pacer) Pause(d time.Duration) {
	if p.s.Down() || d <= 0 {
		return
	}
	ctx, cancel := p.s.ctx()
	defer cancel()
	if err := pauseScript.Run(ctx, p.s.rdb, []string{p.pause}, strconv.FormatInt(d.Milliseconds()+1, 10)).Err(); err != nil {
		p.s.fail(err)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
