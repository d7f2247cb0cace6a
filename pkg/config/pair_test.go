package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/failure"
)

func clearEnv(t *testing.T) {
	t.Helper()
	for _, k := range Keys {
		if k.Env != "" {
			t.Setenv(k.Env, "")
			os.Unsetenv(k.Env)
		}
	}
}

const twoEnvs = `base_url: https://prod.example
events_base_url: https://events.prod.example
profiles:
  staging:
    base_url: https://staging.example
  split:
    events_base_url: https://events.split.example
`

func TestEndpointsResolveAsAPair(t *testing.T) {
	clearEnv(t)
	p := writeFile(t, twoEnvs)
	cases := []struct {
		args   []string
		env    map[string]string
		events string
		source string
		paired bool
	}{
		{nil, nil, "https://events.prod.example", "file", true},
		// The staging profile sets base_url only: its events go to its
		// own base_url, never to production's events host.
		{[]string{"--profile", "staging"}, nil, "https://staging.example", "base_url, profile staging", true},
		// A scope that sets the events host alone is not paired with the
		// base_url of a lower scope.
		{[]string{"--profile", "split"}, nil, "https://events.split.example", "profile split", false},
		{nil, map[string]string{"TILOOKUP_BASE_URL": "https://env.example"}, "https://env.example", "base_url, env TILOOKUP_BASE_URL", true},
		{[]string{"--base-url", "https://flag.example", "--events-base-url", "https://ev.flag.example"}, nil, "https://ev.flag.example", "flag --events-base-url", true},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			fs := flags()
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			c, err := loadChecked(p, fs)
			if err != nil {
				t.Fatal(err)
			}
			e := c.Endpoints()
			if e.EventsURL != tc.events || e.EventsSource != tc.source || e.Paired != tc.paired {
				t.Errorf("events = %q from %q paired=%v, want %q from %q paired=%v", e.EventsURL, e.EventsSource, e.Paired, tc.events, tc.source, tc.paired)
			}
			if c.Get("events_base_url") != tc.events || c.Source("events_base_url") != tc.source {
				t.Errorf("Get/Source disagree with Endpoints: %q %q", c.Get("events_base_url"), c.Source("events_base_url"))
			}
		})
	}
}

func TestBareNumberIsSeconds(t *testing.T) {
	clearEnv(t)
	fs := flags()
	fs.Parse([]string{"--timeout", "5"})
	c, err := loadChecked(writeFile(t, "timeout: 10\nkeyring_timeout: 1.5\n"), fs)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.Timeout != 5*time.Second || s.KeyringTimeout != 1500*time.Millisecond || s.Deadline != DefaultDeadline {
		t.Errorf("settings = %+v", s)
	}
}

func TestDefaultsAgree(t *testing.T) {
	clearEnv(t)
	c, err := loadChecked(filepath.Join(t.TempDir(), "none.yaml"), flags())
	if err != nil {
		t.Fatal(err)
	}
	s, _ := c.Settings()
	if s.Timeout != DefaultTimeout || s.Deadline != DefaultDeadline || s.Retries != DefaultRetries ||
		s.KeyringTimeout != DefaultKeyringTimeout || s.MaxResponseSize != DefaultMaxResponseSize ||
		s.CookieName != DefaultCookieName || s.Output != DefaultOutput {
		t.Errorf("the Default strings of Keys and the typed defaults differ: %+v", s)
	}
}

// The advice for a bad value names the place to fix it.
func TestInvalidValueAdviceNamesItsSource(t *testing.T) {
	clearEnv(t)
	p := writeFile(t, "timeout: soon\nprofiles:\n  staging:\n    retries: lots\n")
	check := func(args []string, env string, code int, want ...string) {
		t.Helper()
		if env != "" {
			t.Setenv("TILOOKUP_TIMEOUT", env)
			defer os.Unsetenv("TILOOKUP_TIMEOUT")
		}
		fs := flags()
		fs.Parse(args)
		_, err := loadChecked(p, fs)
		if failure.ExitCode(err) != code {
			t.Fatalf("%v: exit %d (%v), want %d", args, failure.ExitCode(err), err, code)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q lacks %q", args, err, w)
			}
		}
	}
	check(nil, "", 3, "from file", "`tilookup config set timeout VALUE`")
	check([]string{"--timeout", "later"}, "", 2, "from flag --timeout", "fix --timeout")
	check(nil, "whenever", 3, "from env TILOOKUP_TIMEOUT", "unset TILOOKUP_TIMEOUT")
	check([]string{"--profile", "staging", "--timeout", "5"}, "", 3, "from profile staging", "tilookup --profile staging config set retries")
}

func TestNoConfigDirStillResolves(t *testing.T) {
	clearEnv(t)
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("TILOOKUP_CONFIG", "")
	t.Setenv("TILOOKUP_OUTPUT", "json")
	c, err := Open("", flags(), false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Get("output") != "json" || c.Get("timeout") != "30s" {
		t.Errorf("output=%q timeout=%q", c.Get("output"), c.Get("timeout"))
	}
	if err := c.Set("timeout", "5s"); failure.ExitCode(err) != 3 || !strings.Contains(err.Error(), "TILOOKUP_CONFIG") {
		t.Errorf("write without a config dir: %v", err)
	}
}

// Twenty writers, each with its own view of the file loaded before any of
// them wrote: every change survives.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	clearEnv(t)
	p := writeFile(t, "# keep me\nbase_url: https://ti.example\n")
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			fs := flags()
			fs.Parse([]string{"--profile", fmt.Sprintf("p%d", i)})
			c, err := Open(p, fs, true)
			if err == nil {
				<-start
				err = c.Set("timeout", fmt.Sprintf("%ds", i+1))
			}
			errs <- err
		}()
		go func() {
			defer wg.Done()
			c, err := Open(p, flags(), true)
			if err == nil {
				<-start
				err = c.SetToken(fmt.Sprintf("h%d.example", i), fmt.Sprintf("tok%d", i))
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := Open(p, flags(), false)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.Profiles()); got != n {
		t.Errorf("%d of %d profile writes survived", got, n)
	}
	if got := len(c.Hosts()); got != n {
		t.Errorf("%d of %d token writes survived", got, n)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), "# keep me") || c.Get("base_url") != "https://ti.example" {
		t.Errorf("the file lost what was there:\n%s", data)
	}
}

// A token removal racing unrelated writers, each of which loaded the file
// while the token was still there, is never undone.
func TestLogoutRacingSetsIsNeverUndone(t *testing.T) {
	clearEnv(t)
	for round := range 20 {
		p := writeFile(t, "tokens:\n  ti.example: secret\n")
		var writers []*Config
		for range 10 {
			c, err := Open(p, flags(), true)
			if err != nil {
				t.Fatal(err)
			}
			writers = append(writers, c)
		}
		logout, _ := Open(p, flags(), true)
		var wg sync.WaitGroup
		for i, c := range writers {
			wg.Go(func() {
				if err := c.Set("retries", fmt.Sprint(i)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Go(func() {
			if err := logout.DeleteToken("ti.example"); err != nil {
				t.Error(err)
			}
		})
		wg.Wait()
		c, _ := Open(p, flags(), false)
		if _, ok := c.Token("ti.example"); ok {
			t.Fatalf("round %d: the removed token is back in the file", round)
		}
	}
}

func TestLockTimeoutIsClear(t *testing.T) {
	clearEnv(t)
	p := writeFile(t, "")
	release, err := lock(p)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	old := LockTimeout
	LockTimeout = 50 * time.Millisecond
	defer func() { LockTimeout = old }()
	c, _ := Open(p, flags(), true)
	err = c.Set("timeout", "5s")
	if failure.ExitCode(err) != 3 || !strings.Contains(err.Error(), "another tilookup process") || !strings.Contains(err.Error(), p+".lock") {
		t.Errorf("err = %v", err)
	}
}
