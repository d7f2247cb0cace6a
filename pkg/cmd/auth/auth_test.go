package auth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// fakeStore records what the commands ask of the token store.
type fakeStore struct {
	canStore error
	tokens   map[string]string
	stored   map[string]string
	loggedIn []string
}

func newStore() *fakeStore {
	return &fakeStore{tokens: map[string]string{}, stored: map[string]string{}}
}

func (s *fakeStore) Token(host string) (string, credentials.Source, error) {
	if t, ok := s.tokens[host]; ok {
		return t, credentials.SourceKeyring, nil
	}
	return "", "", failure.New(failure.Config, "no token for %s", host)
}

func (s *fakeStore) EventsToken(events, search string, paired bool) (string, credentials.Source, error) {
	if t, ok := s.tokens[events]; ok {
		return t, credentials.SourceKeyring, nil
	}
	if paired {
		return s.Token(search)
	}
	return "", "", failure.New(failure.Config, "no token for the events host %s", events)
}

func (s *fakeStore) CanStore(string, bool) error { return s.canStore }

func (s *fakeStore) Login(host, token string, _ bool) (string, error) {
	s.stored[host] = token
	return "", nil
}

func (s *fakeStore) Logout(host string) error {
	s.loggedIn = append(s.loggedIn, host)
	return nil
}

var paired = config.Endpoints{
	BaseURL: "https://ti.example", BaseSource: "profile prod",
	EventsURL: "https://events.example", EventsSource: "profile prod", Paired: true,
}

type loginCase struct {
	opts    *LoginOptions
	store   *fakeStore
	prompts int
	checks  int
	errOut  *bytes.Buffer
}

func newLogin(verify error) *loginCase {
	ios, in, _, errOut := iostreams.Test()
	in.WriteString("tok-123\n")
	c := &loginCase{store: newStore(), errOut: errOut}
	c.opts = &LoginOptions{
		IO:        ios,
		Store:     func() (TokenStore, error) { return c.store, nil },
		Endpoints: func() (config.Endpoints, error) { return paired, nil },
		Prompt:    func() (string, error) { c.prompts++; return "tok-123", nil },
		Verify:    func(context.Context, string) error { c.checks++; return verify },
		// A real events endpoint refuses no one's token.
		Probe:     func(context.Context) error { return failure.New(failure.Auth, "401 unauthenticated") },
		WithToken: true,
	}
	return c
}

// Where the token goes is decided before the prompt: a keyring that is not
// there fails first, and the user never pastes a token for nothing.
func TestLoginFailsBeforePromptingWhenNowhereToStore(t *testing.T) {
	c := newLogin(nil)
	c.opts.WithToken = false
	c.opts.IO.SetTTY(true, false, false)
	c.store.canStore = failure.New(failure.Config, "no OS keyring is available")
	err := loginRun(context.Background(), c.opts)
	if failure.ExitCode(err) != 3 || c.prompts != 0 || c.checks != 0 || len(c.store.stored) != 0 {
		t.Fatalf("err=%v prompts=%d checks=%d stored=%v", err, c.prompts, c.checks, c.store.stored)
	}
	c.store.canStore = nil
	if err := loginRun(context.Background(), c.opts); err != nil || c.prompts != 1 {
		t.Fatalf("err=%v prompts=%d", err, c.prompts)
	}
}

func TestLoginRejectsTokensThatCannotBeSent(t *testing.T) {
	for _, bad := range []string{`ab"cd`, "ab;cd", "ab,cd", "tök"} {
		c := newLogin(nil)
		c.opts.IO.In = strings.NewReader(bad)
		err := loginRun(context.Background(), c.opts)
		if failure.ExitCode(err) != 2 || c.checks != 0 || len(c.store.stored) != 0 || strings.Contains(err.Error(), bad) {
			t.Errorf("%q: err=%v checks=%d stored=%v", bad, err, c.checks, c.store.stored)
		}
	}
}

func TestLoginVerifiesWithTheEventsHost(t *testing.T) {
	cases := []struct {
		verify error
		code   int
		stored bool
		say    string
	}{
		{nil, 0, true, "accepted by the service"},
		{failure.New(failure.Forbidden, "403 no permission"), 0, true, "known to the service"},
		{failure.New(failure.NotFound, "404 no event record"), 0, true, "known to the service"},
		{failure.New(failure.Auth, "401 unauthenticated"), 4, false, "nothing was stored"},
		{failure.New(failure.Network, "connection refused"), 0, true, "could not be checked"},
	}
	for _, tc := range cases {
		c := newLogin(tc.verify)
		err := loginRun(context.Background(), c.opts)
		_, stored := c.store.stored["ti.example"]
		if failure.ExitCode(err) != tc.code || stored != tc.stored || c.checks != 1 || !strings.Contains(c.errOut.String()+fmt.Sprint(err), tc.say) {
			t.Errorf("%v: exit %d stored=%v checks=%d %q %v", tc.verify, failure.ExitCode(err), stored, c.checks, c.errOut, err)
		}
	}
}

// A key for misp_url's host is checked with MISP, never sent to the events
// service; what MISP refuses is not stored, and a host that is not MISP's
// is checked as before.
func TestLoginChecksAMISPKeyWithMISP(t *testing.T) {
	for _, tc := range []struct {
		verify error
		code   int
		stored bool
		say    string
	}{
		{nil, 0, true, "accepted by MISP"},
		{failure.New(failure.Auth, "403 Authentication failed"), 4, false, "MISP at misp.example refused the key"},
		{failure.New(failure.Network, "connection refused"), 0, true, "could not be checked with MISP"},
	} {
		c := newLogin(errors.New("the events service must not see a MISP key"))
		c.opts.Host = "https://misp.example/"
		c.opts.MISPHost = func() string { return "misp.example" }
		mispChecks := 0
		c.opts.VerifyMISP = func(_ context.Context, key string) error {
			mispChecks++
			if key != "tok-123" {
				t.Errorf("MISP was asked about %q", key)
			}
			return tc.verify
		}
		err := loginRun(context.Background(), c.opts)
		_, stored := c.store.stored["misp.example"]
		if failure.ExitCode(err) != tc.code || stored != tc.stored || c.checks != 0 || mispChecks != 1 || !strings.Contains(c.errOut.String()+fmt.Sprint(err), tc.say) {
			t.Errorf("%v: exit %d stored=%v events checks=%d MISP checks=%d %q %v", tc.verify, failure.ExitCode(err), stored, c.checks, mispChecks, c.errOut, err)
		}
	}
	c := newLogin(nil)
	c.opts.MISPHost = func() string { return "misp.example" }
	c.opts.VerifyMISP = func(context.Context, string) error { t.Error("MISP was asked about the lookup token"); return nil }
	if err := loginRun(context.Background(), c.opts); err != nil || c.checks != 1 {
		t.Errorf("the lookup host: err=%v checks=%d", err, c.checks)
	}
}

// A 404 that no one's token gets too is no caller's missing event record:
// nothing at events_base_url checks tokens, so the token was never
// checked, and login stores nothing and says which setting is wrong.
func TestLoginTellsAWrongEventsURLFromNoEventRecord(t *testing.T) {
	c := newLogin(failure.New(failure.NotFound, "404 no endpoint"))
	c.opts.Probe = func(context.Context) error { return failure.New(failure.NotFound, "404 no endpoint") }
	err := loginRun(context.Background(), c.opts)
	if failure.ExitCode(err) != failure.ExitConfig || len(c.store.stored) != 0 ||
		!strings.Contains(fmt.Sprint(err), "https://events.example/api/events/me answers 404 even without a token: events_base_url does not point to the events service; nothing was stored") {
		t.Errorf("exit %d stored=%v: %v", failure.ExitCode(err), c.store.stored, err)
	}
}

func TestLoginNoVerifyAndUnpairedSkipTheCheck(t *testing.T) {
	c := newLogin(errors.New("must not be called"))
	c.opts.NoVerify = true
	if err := loginRun(context.Background(), c.opts); err != nil || c.checks != 0 || c.store.stored["ti.example"] != "tok-123" {
		t.Fatalf("--no-verify: err=%v checks=%d", err, c.checks)
	}
	// The events host of another scope never gets this token, not even to
	// check it.
	c = newLogin(errors.New("must not be called"))
	c.opts.Endpoints = func() (config.Endpoints, error) {
		e := paired
		e.Paired = false
		return e, nil
	}
	if err := loginRun(context.Background(), c.opts); err != nil || c.checks != 0 || !strings.Contains(c.errOut.String(), "not checked") {
		t.Fatalf("unpaired: err=%v checks=%d %q", err, c.checks, c.errOut)
	}
}

func TestLoginFlagsReachOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios}}
	var got *LoginOptions
	cmd := NewCmdLogin(f, func(_ context.Context, o *LoginOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--host", "ti.example:8443", "--with-token", "--insecure-storage", "--no-verify"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Host != "ti.example:8443" || !got.WithToken || !got.Insecure || !got.NoVerify {
		t.Fatalf("options: %+v", got)
	}
}

func statusOpts(check func(online.ClientFor) error) (*StatusOptions, *bytes.Buffer, *fakeStore) {
	ios, _, out, _ := iostreams.Test()
	store := newStore()
	store.tokens["ti.example"] = "search-token-0123456789"
	return &StatusOptions{
		IO:        ios,
		Store:     func() (TokenStore, error) { return store, nil },
		Endpoints: func() (config.Endpoints, error) { return paired, nil },
		FileHosts: func() []string { return nil },
		FilePath:  func() string { return "" },
		Check:     func(_ context.Context, w online.ClientFor) error { return check(w) },
		Probe:     func(context.Context) error { return failure.New(failure.Auth, "401 unauthenticated") },
		Getenv:    func(string) string { return "" },
	}, out, store
}

// Status tells a 404 for a caller with no event record (a known token)
// from a 404 that no one's token gets too (a wrong events_base_url: exit 3).
func TestStatusTellsAWrongEventsURLFromNoEventRecord(t *testing.T) {
	for _, probe := range []error{failure.New(failure.Auth, "401"), failure.New(failure.NotFound, "404 no endpoint")} {
		opts, out, _ := statusOpts(func(w online.ClientFor) error {
			if w == online.ForEvents {
				return failure.New(failure.NotFound, "404")
			}
			return nil
		})
		opts.Probe = func(context.Context) error { return probe }
		err := statusRun(context.Background(), opts)
		wrongURL := failure.KindOf(probe) == failure.NotFound
		want, code := "events: token known to the service", 0
		if wrongURL {
			want, code = "x events: https://events.example/api/events/me answers 404 even without a token: events_base_url does not point to the events service", failure.ExitConfig
		}
		if !strings.Contains(out.String(), want) || exitOf(err) != code {
			t.Errorf("probe %v: exit %d, want %d and %q in:\n%s", probe, exitOf(err), code, want, out)
		}
	}
}

// A token with no base URL is no working setup: status says so on stderr
// and exits 3 (no base URL), whether the token is in the environment or
// the config file.
func TestStatusWithATokenButNoBaseURLExits3(t *testing.T) {
	for _, where := range []string{"environment", "file"} {
		opts, out, _ := statusOpts(func(online.ClientFor) error { return nil })
		opts.Endpoints = func() (config.Endpoints, error) { return config.Endpoints{}, nil }
		if where == "environment" {
			opts.Getenv = func(k string) string { return map[string]string{"TILOOKUP_TOKEN": "env-token-0123456789"}[k] }
		} else {
			opts.FileHosts = func() []string { return []string{"ti.example"} }
		}
		err := statusRun(context.Background(), opts)
		if exitOf(err) != failure.ExitConfig || !strings.Contains(fmt.Sprint(err), "no base_url is configured, so searches will fail; run `tilookup config set base_url URL`") || out.Len() == 0 {
			t.Errorf("%s: exit %d, err %v, stdout %q", where, exitOf(err), err, out)
		}
	}
}

// exitOf is the exit code err ends the run with, as cli reports it: a
// status already printed carries its own.
func exitOf(err error) int {
	var reported *failure.Reported
	var raised *failure.Raised
	switch {
	case errors.As(err, &reported):
		return reported.Code
	case errors.As(err, &raised):
		return raised.Code
	}
	return failure.ExitCode(err)
}

// auth status shows both hosts with the scope of each URL, and checks the
// events host too.
func TestStatusChecksBothHostsAndShowsScopes(t *testing.T) {
	var asked []online.ClientFor
	opts, out, _ := statusOpts(func(w online.ClientFor) error {
		asked = append(asked, w)
		if w == online.ForEvents {
			return failure.New(failure.Auth, "401 from events")
		}
		return nil
	})
	err := statusRun(context.Background(), opts)
	s := out.String()
	for _, want := range []string{
		"base_url: https://ti.example (profile prod)",
		"events_base_url: https://events.example (profile prod)",
		"search: accepted by the service",
		"events: refused by the service: 401 from events",
		"else the token of ti.example (same scope as base_url)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("status lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "search-token-0123456789") {
		t.Error("status printed the whole token")
	}
	var silent *failure.Reported
	if len(asked) != 2 || !errors.As(err, &silent) || silent.Code != 4 {
		t.Errorf("asked %v, err %v", asked, err)
	}
}

// The largest code of the hosts wins, whichever host fails: the search
// host is checked first, the events host last.
func TestStatusExitCodeWhicheverHostFails(t *testing.T) {
	for _, failing := range []online.ClientFor{online.ForSearch, online.ForEvents} {
		opts, _, _ := statusOpts(func(w online.ClientFor) error {
			if w == failing {
				return failure.New(failure.Auth, "401")
			}
			return nil
		})
		err := statusRun(context.Background(), opts)
		var silent *failure.Reported
		if !errors.As(err, &silent) || silent.Code != failure.ExitAuth {
			t.Errorf("refused by %v: err %v, want exit 4", failing, err)
		}
	}
}

func TestLogoutAndTokenUseTheResolvedHost(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	store := newStore()
	store.tokens["ti.example"] = "tok"
	opts := &TokenOptions{IO: ios, Store: func() (TokenStore, error) { return store, nil },
		Endpoints: func() (config.Endpoints, error) { return paired, nil }}
	if err := tokenRun(opts); err != nil || out.String() != "tok\n" {
		t.Fatalf("token: %v %q", err, out)
	}
	opts.Host = "https://other.example:8443/path"
	if err := logoutRun(opts); err != nil || len(store.loggedIn) != 1 || store.loggedIn[0] != "other.example:8443" {
		t.Fatalf("logout: %v %v", err, store.loggedIn)
	}
}
