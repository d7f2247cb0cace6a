package watch_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/watch"
)

func matched(count string) *api.SearchResponse {
	return &api.SearchResponse{Results: []api.Result{{Resource: "r", Label: "R", Count: json.Number(count)}}}
}

// oldState: a, b and c all matched once, at time 100.
func oldState() *watch.State {
	st := watch.New("n", "default", "")
	for _, v := range []string{"a", "b", "c"} {
		st.Values[v] = watch.EntryOf(matched("1"), 100, st.Labels)
	}
	return st
}

func TestCheckKeepsWhatARunDidNotFinishOrGetRight(t *testing.T) {
	tests := []struct {
		name     string
		complete bool
		want     map[string]int64 // value -> At of its entry afterwards
	}{
		// interrupted after a (changed) and b (failed): c was never
		// reached and keeps its old answer, b its last good one.
		{"interrupted", false, map[string]int64{"a": 200, "b": 100, "c": 100}},
		// complete: the list is the input; c was not in it.
		{"complete", true, map[string]int64{"a": 200, "b": 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := oldState()
			s := watch.NewCheck(st, &changes{}, time.Unix(200, 0))
			s.Add(lookup.Result{Item: lookup.Item{Value: "a"}, Resp: matched("2")})
			s.Add(lookup.Result{Item: lookup.Item{Value: "b"}, Err: failure.New(failure.Server, "503")})
			s.Finish(tt.complete)
			if len(st.Values) != len(tt.want) {
				t.Fatalf("values %v, want %v", st.Values, tt.want)
			}
			for v, at := range tt.want {
				if e := st.Values[v]; e == nil || e.At != at {
					t.Errorf("%s: entry %+v, want one from %d", v, e, at)
				}
			}
			if st.Changes != 1 || st.Errors != 1 {
				t.Errorf("changes %d errors %d, want 1 and 1", st.Changes, st.Errors)
			}
			if code := s.Tally.Code(true); code != failure.ExitService {
				t.Errorf("exit %d, want the failure's %d", code, failure.ExitService)
			}
		})
	}
}

func TestCheckExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp *api.SearchResponse
		err  error
		want int
	}{
		{"a change", matched("2"), nil, failure.ExitOK},
		{"no change", matched("1"), nil, failure.ExitNoMatch},
		{"a failure wins", nil, failure.New(failure.Auth, "401"), failure.ExitAuth},
	} {
		st := oldState()
		s := watch.NewCheck(st, &changes{}, time.Unix(200, 0))
		s.Add(lookup.Result{Item: lookup.Item{Value: "a"}, Resp: tt.resp, Err: tt.err})
		got := failure.ExitOK
		var rep *failure.Reported
		if err := s.Tally.Err(nil, true); errors.As(err, &rep) {
			got = rep.Code
		} else if err != nil {
			got = failure.ExitCode(err)
		}
		if got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

// changes is an Emitter that keeps the changes.
type changes struct{ got []watch.Change }

func (c *changes) Add(ch watch.Change) error { c.got = append(c.got, ch); return nil }
func (c *changes) Flush() error              { return nil }
