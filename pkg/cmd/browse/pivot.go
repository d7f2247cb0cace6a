package browse

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/pivot"
	"github.com/tilookup/tilookup/pkg/triage"
)

// pivoter is the browser's p key: one hop from an indicator, through the
// one lookup pipeline (online.Lookups, pivot.Walk) as pivot runs it,
// within --max-lookups (the indicator's own lookup included), with
// pivot's skip rules. The lookup flags are cmd's own (--sandbox,
// --concurrency, --rate, --limit, --refresh), where it has them.
//
// The service is started at the first p and kept until stop (the
// browser's end): one sandbox for the session, so that the detail links
// of what p added still open, and its notice is said once. What the
// lookups write for stderr goes to held; each pivot returns it as its
// notice, except --debug's dump, which is too long for the status line
// and is written out once the browser has ended.
func pivoter(ctx context.Context, cmd *cobra.Command, f *online.Factory, held *heldStderr) (pv func(value, typ string) ([]byte, string, error), stop func()) {
	fl := cmd.Flags()
	l := online.NewLookups(f)
	l.Sandbox, _ = fl.GetBool("sandbox")
	l.Concurrency, _ = fl.GetInt("concurrency")
	l.Rate, _ = fl.GetFloat64("rate")
	l.Limit, _ = fl.GetInt("limit")
	l.Refresh, _ = fl.GetBool("refresh")
	maxLookups := pivot.DefaultMaxLookups
	if n, err := fl.GetInt("max-lookups"); err == nil {
		maxLookups = n
	}
	noSkip, _ := fl.GetBool("no-skip")
	debug := f.Debug() != nil

	var mu sync.Mutex
	var service *online.Service
	start := func() (*online.Service, error) {
		mu.Lock()
		defer mu.Unlock()
		if service == nil {
			s, err := l.Start(online.Chain{})
			var fe *failure.Error
			if errors.Is(err, api.ErrNoBaseURL) && errors.As(err, &fe) {
				// browse has no --base-url, but a --sandbox.
				fe.Hint = "set TILOOKUP_BASE_URL or run `tilookup config set base_url URL`, or browse with --sandbox"
			}
			if err != nil {
				return nil, err
			}
			service = s
		}
		return service, nil
	}
	stop = func() {
		mu.Lock()
		defer mu.Unlock()
		if service != nil {
			service.Close()
		}
	}
	walk := func(value, typ string) ([]byte, error) {
		var skipper *triage.Skipper
		if !noSkip {
			var err error
			if skipper, err = triage.ConfiguredSkipper(f.Get); err != nil {
				return nil, err
			}
		}
		service, err := start()
		if err != nil {
			return nil, err
		}
		g, walkErr := pivot.Walk(ctx, service.Searcher, []pivot.Start{{Value: value, Type: ioc.Type(typ)}}, pivot.Config{
			Depth: 1, MaxLookups: maxLookups, Concurrency: service.Concurrency(), Skipper: skipper,
		})
		var b bytes.Buffer
		if err := pivot.JSON(&b, g, pivot.RenderOptions{}); err != nil {
			return nil, err
		}
		// Nothing matched (1) is an answer, not a failure.
		if failure.ExitCode(walkErr) <= failure.ExitNoMatch {
			walkErr = nil
		}
		return b.Bytes(), walkErr
	}
	pv = func(value, typ string) ([]byte, string, error) {
		doc, err := walk(value, typ)
		if debug {
			return doc, "(--debug's output is written to stderr when you quit)", err
		}
		return doc, held.take(), err
	}
	return pv, stop
}
