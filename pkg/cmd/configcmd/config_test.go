package configcmd

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/output/format"
)

type fakeConfig struct {
	values, sources map[string]string
	set             map[string]string
	unset           []string
}

func (c *fakeConfig) Get(k string) string    { return c.values[k] }
func (c *fakeConfig) Source(k string) string { return c.sources[k] }
func (c *fakeConfig) Set(k, v string) error  { c.set[k] = v; return nil }
func (c *fakeConfig) Unset(k string) error   { c.unset = append(c.unset, k); return nil }

func newOpts() (*Options, *fakeConfig, *strings.Builder) {
	ios, _, _, _ := iostreams.Test()
	out := &strings.Builder{}
	ios.Out = out
	c := &fakeConfig{
		values: map[string]string{"base_url": "https://staging.example", "events_base_url": "https://staging.example", "timeout": "5s", "output": "table"},
		sources: map[string]string{"base_url": "profile staging", "events_base_url": "base_url, profile staging",
			"timeout": "env TILOOKUP_TIMEOUT", "output": "default"},
		set: map[string]string{},
	}
	opts := &Options{
		IO:     ios,
		Config: func() (Reader, error) { return c, nil },
		Edit:   func() (Editor, error) { return c, nil },
		Path:   func() (string, error) { return "/cfg/config.yaml", nil },
		Format: func() (output.Format, error) { return format.Resolve("config", c.values["output"], false) },
	}
	return opts, c, out
}

func TestArgsReachOptions(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var name, key, value string
	cmd := NewCmd(&cmdutil.Factory{IO: ios}, func(_ context.Context, o *Options) error {
		name, key, value = o.Command, o.Key, o.Value
		return nil
	})
	cmd.SetArgs([]string{"set", "timeout", "5"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if name != "set" || key != "timeout" || value != "5" {
		t.Fatalf("got %q %q %q", name, key, value)
	}
}

func TestListShowsEachValuesScope(t *testing.T) {
	opts, _, out := newOpts()
	if err := listRun(opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"base_url              https://staging.example  (profile staging)",
		"events_base_url       https://staging.example  (base_url, profile staging)",
		"timeout               5s                       (env TILOOKUP_TIMEOUT)",
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
}

func TestListAsJSON(t *testing.T) {
	opts, c, out := newOpts()
	c.values["output"] = "json"
	if err := listRun(opts); err != nil {
		t.Fatal(err)
	}
	var entries []struct{ Key, Value, Source string }
	if err := json.Unmarshal([]byte(out.String()), &entries); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if entries[1].Key != "events_base_url" || entries[1].Source != "base_url, profile staging" {
		t.Errorf("entries: %+v", entries[:2])
	}
}

func TestSetUnsetGetPath(t *testing.T) {
	opts, c, out := newOpts()
	opts.Key, opts.Value = "timeout", "10"
	if err := setRun(opts); err != nil || c.set["timeout"] != "10" {
		t.Fatalf("set: %v %v", err, c.set)
	}
	if err := unsetRun(opts); err != nil || len(c.unset) != 1 {
		t.Fatalf("unset: %v %v", err, c.unset)
	}
	if err := getRun(opts); err != nil || out.String() != "5s\n" {
		t.Fatalf("get: %v %q", err, out)
	}
	out.Reset()
	if err := pathRun(opts); err != nil || out.String() != "/cfg/config.yaml\n" {
		t.Fatalf("path: %v %q", err, out)
	}
	// An unknown key never opens the file.
	opts.Edit = func() (Editor, error) { t.Fatal("opened for an unknown key"); return nil, nil }
	for _, run := range []func(*Options) error{setRun, unsetRun, getRun} {
		opts.Key = "nope"
		if err := run(opts); failure.ExitCode(err) != 2 || !strings.Contains(err.Error(), "unknown config key") {
			t.Errorf("unknown key: %v", err)
		}
	}
}

func TestSetWarnsOfPlainHTTPToARemoteHost(t *testing.T) {
	for _, tt := range []struct {
		key, value, allow string
		warn              bool
	}{
		{"base_url", "http://ti.example.com", "", true},
		{"events_base_url", "http://ti.example.com", "false", true},
		{"base_url", "http://ti.example.com", "true", false},
		{"base_url", "http://127.0.0.1:8080", "", false},
		{"base_url", "https://ti.example.com", "", false},
		{"timeout", "http://x", "", false},
	} {
		opts, c, _ := newOpts()
		c.values["allow_insecure_http"] = tt.allow
		errOut := &strings.Builder{}
		opts.IO.ErrOut = errOut
		opts.Key, opts.Value = tt.key, tt.value
		if err := setRun(opts); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(errOut.String(), "warning: "+tt.key+" is plain http"); got != tt.warn {
			t.Errorf("%s %s (allow %q): warned %v: %q", tt.key, tt.value, tt.allow, got, errOut.String())
		}
		if c.set[tt.key] != tt.value {
			t.Errorf("%s %s: not set", tt.key, tt.value)
		}
	}
}

func TestListShowsThePagerThatWouldRun(t *testing.T) {
	opts, _, out := newOpts()
	if err := listRun(opts); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^pager +less -FRX +\(default\)$`).MatchString(out.String()) {
		t.Errorf("list:\n%s", out.String())
	}
}

// config get prints a value as stored, except a password that is never
// printed (cache_url's), which it shows as config list does.
func TestGetNeverPrintsThePasswordListHides(t *testing.T) {
	const secret = "s3cretpw"
	opts, c, out := newOpts()
	for _, k := range config.Keys {
		if !k.Password {
			continue
		}
		c.values[k.Name] = "redis://:" + secret + "@redis.test:6379/0"
		c.sources[k.Name] = "file"
		opts.Key = k.Name
		out.Reset()
		if err := getRun(opts); err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSuffix(out.String(), "\n")
		out.Reset()
		c.values["output"] = "json"
		if err := listRun(opts); err != nil {
			t.Fatal(err)
		}
		c.values["output"] = "table"
		var entries []struct{ Key, Value string }
		if err := json.Unmarshal([]byte(out.String()), &entries); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Key == k.Name && e.Value != got {
				t.Errorf("config get %s printed %q, config list %q", k.Name, got, e.Value)
			}
		}
		if strings.Contains(got, secret) || !strings.Contains(got, "@redis.test:6379/0") {
			t.Errorf("config get %s printed %q", k.Name, got)
		}
	}
	// Other values are printed as stored, for scripts.
	c.values["base_url"] = "https://alice:pw@ti.example"
	opts.Key = "base_url"
	out.Reset()
	if err := getRun(opts); err != nil || out.String() != "https://alice:pw@ti.example\n" {
		t.Errorf("config get base_url: %q, %v", out, err)
	}
}
