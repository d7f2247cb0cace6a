package lookup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// UnreachableInARow is how many values in a row must fail to connect or
// get no answer in time, with no answer between them, before a run stops
// sending. One failure can be a blip; values in flight at once fail
// together when the service is down, so a few more than one say it is not.
const UnreachableInARow = 3

// StopSending wraps s so that a run stops sending once it cannot
// succeed: after the service refused the token (401), or after
// UnreachableInARow values in a row could not connect to it at all
// (api.Unreachable: refused, no such host, TLS or proxy failure) or got
// no answer before their time-out (api.Silent: a hung proxy, a load
// balancer with no backend, a firewall that drops packets). Every
// later value gets a failure.NotSent error saying why, so a bulk run
// still has one record per value, makes a handful of requests instead of
// thousands that can lock an account out, and ends in seconds when the
// network is down instead of retrying each value. 5xx and 429 answers do
// not stop it: they are answers, and keep their per-value retries.
func StopSending(s Searcher) Searcher { return &stopper{next: s} }

type stopper struct {
	next Searcher

	mu      sync.Mutex
	inARow  int   // values in a row that could not connect
	stopped error // the NotSent error of every later value, once stopped
}

func (r *stopper) Search(ctx context.Context, value string) (*api.SearchResponse, error) {
	if err := r.stoppedErr(); err != nil {
		return nil, err
	}
	resp, err := r.next.Search(ctx, value)
	r.observe(err)
	return resp, err
}

func (r *stopper) stoppedErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

func (r *stopper) observe(err error) {
	kind := failure.KindOf(err)
	if kind == failure.Interrupted || kind == failure.NotSent {
		return // says nothing about the service
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped != nil {
		return
	}
	switch {
	case kind == failure.Auth:
		r.stopped = failure.NotSentBecause(failure.Auth,
			"not sent: the service refused the token for an earlier value",
			"run `tilookup auth login` or set TILOOKUP_TOKEN, then run again")
	case api.Unreachable(err), api.Silent(err):
		r.inARow++
		if r.inARow < UnreachableInARow {
			break
		}
		what, hint := "could not reach the service", "check base_url, your network and any proxy (HTTPS_PROXY), then run again"
		if !api.Unreachable(err) {
			what, hint = "got no answer from the service", "check base_url and any proxy (HTTPS_PROXY), or raise --timeout if the service is only slow, then run again"
		}
		r.stopped = failure.NotSentBecause(failure.Network,
			fmt.Sprintf("not sent: %d values in a row %s (%s)", r.inARow, what, sanitize.Line(unreachableCause(err))), hint)
	default:
		r.inARow = 0 // an answer, or a failure after connecting
	}
}

// unreachableCause is the error's own words without its hint, which the
// NotSent error gives again.
func unreachableCause(err error) string {
	var e *api.APIError
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return err.Error()
}

// NothingMoreSent is the one line that says a run stopped sending and
// why, made from a value's failure.NotSent error; ok is false for any
// other error. Search's closing line, triage's table and the MCP tools say
// it once instead of one identical line per value.
func NothingMoreSent(err error) (line string, ok bool) {
	if failure.KindOf(err) != failure.NotSent {
		return "", false
	}
	return "nothing more was sent: " + strings.TrimPrefix(err.Error(), "not sent: "), true
}
