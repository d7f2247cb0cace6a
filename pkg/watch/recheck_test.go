package watch_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/watch"
)

// looker runs a source through answer, as the lookup chain would.
func looker(answer func(v string) (*api.SearchResponse, error)) func(context.Context, lookup.Source, lookup.Sink) error {
	s := lookup.SearcherFunc(func(_ context.Context, v string) (*api.SearchResponse, error) { return answer(v) })
	return func(ctx context.Context, src lookup.Source, sink lookup.Sink) error {
		return lookup.Run(ctx, src, s, lookup.Options{Concurrency: 2}, sink)
	}
}

// seed keeps oldState as the list name, under its lock, as a run does.
func seed(t *testing.T, st watch.Store, name string) {
	t.Helper()
	_, release, err := st.Open(name, "default", "")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	saved := oldState()
	saved.Name = name
	if err := st.Save(saved); err != nil {
		t.Fatal(err)
	}
}

// A recheck compares the list's own values with their last answers,
// reports the same changes a run over them reports, and saves the state
// as that run does.
func TestRecheckIsARunOverTheListsValues(t *testing.T) {
	st := watch.Store{Root: t.TempDir()}
	st.Dir = st.Root + "/default"
	seed(t, st, "ours")
	counts := map[string]string{"a": "2", "b": "1", "c": "1"}
	got := &changes{}
	tally, err := st.Recheck(context.Background(), "ours", time.Unix(300, 0), looker(func(v string) (*api.SearchResponse, error) {
		if v == "c" {
			return nil, failure.New(failure.Server, "503")
		}
		return matched(counts[v]), nil
	}), got)
	if err != nil {
		t.Fatal(err)
	}
	if tally.Matched != 1 || tally.Failed != 1 || tally.NoMatch != 1 {
		t.Fatalf("tally %+v, want 1 changed, 1 failed, 1 unchanged", tally)
	}
	if len(got.got) != 2 || got.got[0].Value != "a" || got.got[0].Change != string(watch.KindChanged) || got.got[1].Change != watch.ErrorChange {
		t.Fatalf("changes %+v", got.got)
	}
	state, release, err := st.Open("ours", "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if state.Values["a"].At != 300 || state.Values["c"].At != 100 || state.CheckedAt != 300 || state.Changes != 1 || state.Errors != 1 {
		t.Fatalf("state after the recheck: a %+v, c %+v, checked %d, %d changes, %d errors", state.Values["a"], state.Values["c"], state.CheckedAt, state.Changes, state.Errors)
	}
}

// A NAME with no list is an error naming the lists there are, and
// creates nothing.
func TestRecheckUnknownList(t *testing.T) {
	st := watch.Store{Root: t.TempDir()}
	st.Dir = st.Root + "/default"
	never := looker(func(string) (*api.SearchResponse, error) { return nil, errors.New("looked up") })
	_, err := st.Recheck(context.Background(), "nope", time.Unix(1, 0), never, &changes{})
	if err == nil || !strings.Contains(err.Error(), "there is none yet") {
		t.Fatalf("err %v", err)
	}
	for _, name := range []string{"beta", "alpha"} {
		_, release, err := st.Open(name, "default", "")
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Save(watch.New(name, "default", "")); err != nil {
			t.Fatal(err)
		}
		release()
	}
	_, err = st.Recheck(context.Background(), "nope", time.Unix(1, 0), never, &changes{})
	if err == nil || !strings.Contains(err.Error(), "the lists are alpha, beta") || failure.KindOf(err) != failure.Usage {
		t.Fatalf("err %v", err)
	}
	if lists, _ := st.List(); len(lists) != 2 {
		t.Fatalf("lists %+v", lists)
	}
}

// Rechecks of one list at once never interleave: the lock serialises
// them, so exactly one sees the change and the others none.
func TestRecheckConcurrent(t *testing.T) {
	st := watch.Store{Root: t.TempDir()}
	st.Dir = st.Root + "/default"
	seed(t, st, "ours")
	slow := looker(func(v string) (*api.SearchResponse, error) {
		time.Sleep(5 * time.Millisecond)
		return matched("9"), nil
	})
	var wg sync.WaitGroup
	tallies := make([]failure.Tally, 5)
	for i := range tallies {
		wg.Go(func() {
			var err error
			if tallies[i], err = st.Recheck(context.Background(), "ours", time.Unix(int64(200+i), 0), slow, &changes{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	changed := 0
	for _, tl := range tallies {
		if tl.Matched == 3 {
			changed++
		} else if tl.Matched != 0 {
			t.Errorf("a recheck saw %d of 3 changes: the runs interleaved", tl.Matched)
		}
	}
	if changed != 1 {
		t.Fatalf("%d rechecks saw the change, want 1", changed)
	}
}
