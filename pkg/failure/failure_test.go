package failure

import (
	"errors"
	"fmt"
	"testing"
)

// TestExitCodes: every kind's code, as README and `help exit-codes` list
// them.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		code int
	}{
		{"", 0},
		{NoMatch, 1},
		{Usage, 2}, {Input, 2}, {BadRequest, 2}, {IO, 2},
		{Config, 3},
		{Auth, 4}, {Forbidden, 4},
		{NotFound, 5},
		{RateLimited, 6}, {Server, 6}, {Network, 6}, {Timeout, 6}, {Decode, 6}, {"a kind added later", 6},
		{Interrupted, 130},
	} {
		if got := tc.kind.ExitCode(); got != tc.code {
			t.Errorf("%q: code %d, want %d", tc.kind, got, tc.code)
		}
		if tc.kind == "" {
			continue
		}
		err := fmt.Errorf("context: %w", New(tc.kind, "x"))
		if KindOf(err) != tc.kind || ExitCode(err) != tc.code {
			t.Errorf("%q wrapped: kind %q code %d", tc.kind, KindOf(err), ExitCode(err))
		}
	}
	if ExitCode(nil) != 0 || KindOf(errors.New("plain")) != Usage {
		t.Error("nil is 0; an error without a kind is a usage error")
	}
}

// TestTallyCode: the largest code of the failures wins, in either order;
// an error code wins over both match codes; --exit-status gives 1 only
// when nothing matched and nothing failed.
func TestTallyCode(t *testing.T) {
	type value struct {
		err     error
		matched bool
	}
	ok, none := value{nil, true}, value{nil, false}
	fail := func(k Kind) value { return value{New(k, "%s", k), false} }
	for _, tc := range []struct {
		name       string
		values     []value
		exitStatus bool
		code       int
	}{
		{"empty", nil, false, 0},
		{"empty, exit-status", nil, true, 1},
		{"matched", []value{ok, none}, true, 0},
		{"no match", []value{none, none}, false, 0},
		{"no match, exit-status", []value{none, none}, true, 1},
		{"usage then auth", []value{fail(Usage), fail(Auth)}, false, 4},
		{"auth then usage", []value{fail(Auth), fail(Usage)}, false, 4},
		{"server then config", []value{fail(Server), ok, fail(Config)}, false, 6},
		{"config then server", []value{fail(Config), ok, fail(Server)}, false, 6},
		{"not found then input", []value{fail(NotFound), fail(Input)}, true, 5},
		{"input then not found", []value{fail(Input), fail(NotFound)}, true, 5},
		{"interrupted last", []value{fail(Server), fail(Interrupted)}, false, 130},
		{"interrupted first", []value{fail(Interrupted), fail(Server)}, false, 130},
		{"failure beats exit-status", []value{none, fail(Input)}, true, 2},
		{"failure beside a match", []value{ok, fail(Input)}, true, 2},
	} {
		var tally Tally
		for _, v := range tc.values {
			tally.Add(v.err, v.matched)
		}
		if got := tally.Code(tc.exitStatus); got != tc.code {
			t.Errorf("%s: code %d, want %d", tc.name, got, tc.code)
		}
		if tally.Total() != len(tc.values) {
			t.Errorf("%s: total %d, want %d", tc.name, tally.Total(), len(tc.values))
		}
	}
}

func TestTallyRaise(t *testing.T) {
	for _, codes := range [][]int{{3, 4, 0}, {0, 4, 3}, {4, 0, 3}} {
		var tally Tally
		for _, c := range codes {
			tally.RaiseCode(c)
		}
		if got := tally.Code(false); got != 4 {
			t.Errorf("%v: code %d, want 4", codes, got)
		}
		if tally.Total() != 0 {
			t.Errorf("%v: a raised code is not a value", codes)
		}
	}
	var tally Tally
	tally.Add(nil, true)
	tally.Raise(New(IO, "disk full"))
	tally.Raise(New(Config, "no token"))
	tally.Raise(New(Usage, "bad"))
	if tally.Code(true) != 3 || tally.Matched != 1 || tally.Failed != 0 {
		t.Errorf("code %d, %+v", tally.Code(true), tally)
	}
}

// TestTallyErr: what a command returns after its run.
func TestTallyErr(t *testing.T) {
	io := New(IO, "cannot write the output")
	var empty Tally
	if err := empty.Err(nil, false); err != nil {
		t.Errorf("a run with nothing wrong: %v", err)
	}
	var silent *Reported
	if err := empty.Err(nil, true); !errors.As(err, &silent) || silent.Code != 1 {
		t.Errorf("exit-status with nothing matched: %v", err)
	}
	if err := empty.Err(io, false); err != io {
		t.Errorf("a run error with a larger code than the tally's is returned as is: %v", err)
	}
	var auth Tally
	auth.Add(New(Auth, "401"), false)
	var raised *Raised
	if err := auth.Err(io, false); !errors.As(err, &raised) || raised.Code != 4 || ExitCode(err) != 2 || err.Error() != io.Error() {
		t.Errorf("a write error after a 401: %v (raised %+v)", err, raised)
	}
	if err := auth.Err(nil, false); !errors.As(err, &silent) || silent.Code != 4 {
		t.Errorf("failures already on screen: %v", err)
	}
	var interrupted Tally
	interrupted.Add(New(Input, "x"), false)
	stop := New(Interrupted, "interrupted")
	if err := interrupted.Err(stop, false); err != stop {
		t.Errorf("an interrupt keeps its own larger code: %v", err)
	}
}

func TestWriteError(t *testing.T) {
	if WriteError(nil) != nil {
		t.Error("nil is not an error")
	}
	err := WriteError(errors.New("broken pipe"))
	if KindOf(err) != IO || err.Error() != "cannot write the output: broken pipe" {
		t.Errorf("raw: %v (kind %s)", err, KindOf(err))
	}
	stop := New(Interrupted, "interrupted")
	if WriteError(stop) != stop {
		t.Error("an error with a kind keeps it")
	}
}
