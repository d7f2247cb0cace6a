package watch

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/lookup"
)

// StoreFor is the store of a run and the scope its state records: the
// built-in sandbox's lists under one scope of their own, "sandbox" (it
// listens on another port each run), else the lists of the profile and
// base URL that scope returns (without the URL's secrets; a list kept
// under the URL with them is moved).
func StoreFor(getenv func(string) string, sandbox bool, scope func() (profile, baseURL string, err error)) (st Store, profile, baseURL string, err error) {
	root, err := DefaultDir(getenv)
	if err != nil {
		return Store{}, "", "", err
	}
	if sandbox {
		return Store{Root: root, Dir: ScopeDir(root, "sandbox", "")}, "sandbox", "", nil
	}
	profile, base, err := scope()
	if err != nil {
		return Store{}, "", "", err
	}
	st = NewStore(root, profile, base)
	if err := st.Migrate(); err != nil {
		return Store{}, "", "", err
	}
	return st, profile, ScopeURL(base), nil
}

// Recheck is a run of the list NAME over its own values (those its state
// holds), as `tilookup watch --name NAME` runs over its input: under the
// list's lock, lookup runs the values through the lookup chain into the
// Check, each change goes to w, and the state is saved as the CLI saves
// it (a complete run's answers; an interrupted one keeps the old state of
// the values it did not reach). A NAME with no state is an error of its
// own that names the lists there are: there is nothing to check again.
func (s Store) Recheck(ctx context.Context, name string, now time.Time, look func(context.Context, lookup.Source, lookup.Sink) error, w Emitter) (failure.Tally, error) {
	if err := CheckName(name); err != nil {
		return failure.Tally{}, failure.New(failure.Usage, "%v", err)
	}
	// Open's profile and base URL go to a new state only, and a NAME
	// with no state file (looked for under the lock, so that a forget
	// between the look and the lock cannot leave an empty list) is not
	// checked at all.
	st, release, err := s.Open(name, "", "")
	if err != nil {
		return failure.Tally{}, err
	}
	defer release()
	if _, err := os.Lstat(s.Path(name)); errors.Is(err, os.ErrNotExist) {
		return failure.Tally{}, s.unknown(name)
	}
	values := make([]string, 0, len(st.Values))
	for v := range st.Values {
		values = append(values, v)
	}
	slices.Sort(values)
	c := NewCheck(st, w, now)
	runErr := look(ctx, &valueSource{values: values}, c)
	c.Finish(runErr == nil)
	if err := s.Save(st); err != nil && runErr == nil {
		runErr = err
	}
	return c.Tally, runErr
}

// unknown is the error of a NAME with no list: it names the lists there
// are.
func (s Store) unknown(name string) error {
	lists, err := s.List()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(lists))
	for _, l := range lists {
		names = append(names, l.Name)
	}
	known := "there is none yet (tilookup watch --name NAME FILE starts one)"
	if len(names) > 0 {
		known = "the lists are " + strings.Join(names, ", ")
	}
	return failure.New(failure.Usage, "no watch list %q in %s: %s", name, s.Dir, known)
}

// valueSource hands out the values of a state, as a run's input does.
type valueSource struct {
	values []string
	i      int
}

func (v *valueSource) Next() (lookup.Item, bool, error) {
	if v.i == len(v.values) {
		return lookup.Item{}, false, nil
	}
	in := v.values[v.i]
	v.i++
	// The values were prepared by the run that kept them: preparing them
	// again (no refang) finds their type and changes nothing else.
	value, t, err := ioc.Prepare(in, false)
	return lookup.Item{Input: in, Value: value, Type: t, Err: err}, true, nil
}
