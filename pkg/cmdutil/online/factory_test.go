package online

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// mapKeyring is an OS keyring in memory.
type mapKeyring struct {
	mu    sync.Mutex
	items map[string]string
}

func (k *mapKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.items[user]
	if !ok {
		return "", credentials.ErrNotFound
	}
	return v, nil
}

func (k *mapKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.items[user] = secret
	return nil
}

func (k *mapKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.items[user]; !ok {
		return credentials.ErrNotFound
	}
	delete(k.items, user)
	return nil
}

// recorder is a loopback service that records every credential it sees.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.URL.Path+" "+req.Header.Get("Authorization")+" "+req.Header.Get("Cookie"))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"events": []}`))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) saw() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.seen, "\n")
}

func host(t *testing.T, u string) string {
	h, err := credentials.HostKey(u)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func testFactory(t *testing.T, cfgBody string, kr credentials.Keyring, args ...string) *Factory {
	t.Helper()
	for _, k := range config.Keys {
		if k.Env != "" {
			t.Setenv(k.Env, "")
			os.Unsetenv(k.Env)
		}
	}
	t.Setenv(credentials.EnvToken, "")
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cfgBody), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	for _, name := range []string{"profile", "base-url", "events-base-url", "timeout", "retries", "output"} {
		fs.String(name, "", "")
	}
	fs.String("color", "auto", "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	return &Factory{Factory: &cmdutil.Factory{IO: ios, Flags: fs, ConfigFlag: &path}, Keyring: kr}
}

// The staging/production case of issue 15: production's search and events
// hosts at the top level, a staging profile that sets only base_url. With
// --profile staging, the events call goes to staging and production's
// events host never sees the staging token.
func TestStagingTokenNeverReachesProductionEvents(t *testing.T) {
	prodEvents := newRecorder(t)
	prodSearch := newRecorder(t)
	staging := newRecorder(t)
	kr := &mapKeyring{items: map[string]string{
		host(t, prodSearch.URL): "prod-token",
		host(t, staging.URL):    "staging-token",
	}}
	cfg := "base_url: " + prodSearch.URL + "\nevents_base_url: " + prodEvents.URL +
		"\nprofiles:\n  staging:\n    base_url: " + staging.URL + "\n"

	f := testFactory(t, cfg, kr, "--profile", "staging")
	client, err := f.Client(ForEvents, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.EventsMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := staging.saw(); !strings.Contains(got, "/api/events/me Bearer staging-token jwt=staging-token") {
		t.Errorf("staging saw %q", got)
	}
	if got := prodEvents.saw() + prodSearch.saw(); got != "" {
		t.Fatalf("production saw the staging call: %q", got)
	}

	// Without the profile, production's events host gets production's
	// token (paired at the top level), and staging sees nothing more.
	f = testFactory(t, cfg, kr)
	client, err = f.Client(ForEvents, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.EventsMe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := prodEvents.saw(); !strings.Contains(got, "Bearer prod-token") || strings.Contains(got, "staging-token") {
		t.Errorf("production events saw %q", got)
	}
}

// A profile that points events elsewhere without its own base_url does not
// pair with the top-level base_url: that events host needs its own token,
// and gets nothing until it has one.
func TestUnpairedEventsHostGetsNoBorrowedToken(t *testing.T) {
	prodSearch := newRecorder(t)
	otherEvents := newRecorder(t)
	kr := &mapKeyring{items: map[string]string{host(t, prodSearch.URL): "prod-token"}}
	cfg := "base_url: " + prodSearch.URL + "\nprofiles:\n  lab:\n    events_base_url: " + otherEvents.URL + "\n"
	f := testFactory(t, cfg, kr, "--profile", "lab")
	_, err := f.Client(ForEvents, 1)
	if failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "no token for the events host") {
		t.Fatalf("err = %v", err)
	}
	if otherEvents.saw() != "" {
		t.Fatal("the unpaired events host was called")
	}
}

type oneAnswer map[string]string

func (r oneAnswer) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr(r[host])}, nil
}

// A plain-http *.localhost base URL that resolves off the machine is
// refused before any token is looked up.
func TestLocalhostNameResolvingAwayIsRefused(t *testing.T) {
	kr := &mapKeyring{items: map[string]string{"ti.localhost:8080": "tok"}}
	f := testFactory(t, "base_url: http://ti.localhost:8080\n", kr)
	f.Resolver = oneAnswer{"ti.localhost": "192.0.2.10"}
	_, err := f.Client(ForSearch, 1)
	if failure.ExitCode(err) != failure.ExitConfig || !strings.Contains(err.Error(), "192.0.2.10") {
		t.Fatalf("err = %v", err)
	}
}

// A search client knows no events host: even an events call made with it
// stays on the search host, so the search token cannot wander.
func TestSearchClientHasNoEventsHost(t *testing.T) {
	search := newRecorder(t)
	events := newRecorder(t)
	kr := &mapKeyring{items: map[string]string{host(t, search.URL): "search-token"}}
	f := testFactory(t, "base_url: "+search.URL+"\nevents_base_url: "+events.URL+"\n", kr)
	client, err := f.Client(ForSearch, 1)
	if err != nil {
		t.Fatal(err)
	}
	client.EventsMe(context.Background())
	if events.saw() != "" {
		t.Fatalf("the events host saw a search client's call: %q", events.saw())
	}
}
