package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/tilookup/tilookup/pkg/failure"
)

func flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("base-url", "", "")
	fs.String("events-base-url", "", "")
	fs.String("timeout", "", "")
	fs.String("retries", "", "")
	fs.StringP("output", "o", "", "")
	fs.String("profile", "", "")
	fs.String("color", "auto", "")
	return fs
}

// loadChecked is Open followed by Check, as the Factory does before a
// request.
func loadChecked(path string, fs *pflag.FlagSet) (*Config, error) {
	c, err := Open(path, fs, false)
	if err != nil {
		return nil, err
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	return c, nil
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const file = `# my settings
base_url: https://top.example
timeout: 10s
profile: ""
profiles:
  staging:
    base_url: https://staging.example/ti
    retries: 5
  empty: {}
`

func TestPrecedence(t *testing.T) {
	for _, k := range Keys {
		if k.Env != "" {
			t.Setenv(k.Env, "")
			os.Unsetenv(k.Env)
		}
	}
	p := writeFile(t, file)

	fs := flags()
	c, err := loadChecked(p, fs)
	if err != nil {
		t.Fatal(err)
	}
	check := func(key, want, source string) {
		t.Helper()
		if got := c.Get(key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
		if got := c.Source(key); got != source {
			t.Errorf("%s source = %q, want %q", key, got, source)
		}
	}
	check("base_url", "https://top.example", "file")
	check("timeout", "10s", "file")
	check("retries", "2", "default")
	check("events_base_url", "https://top.example", "base_url, file")
	check("events_cookie_name", "jwt", "default")

	// profile beats the top level
	fs = flags()
	fs.Parse([]string{"--profile", "staging"})
	if c, err = loadChecked(p, fs); err != nil {
		t.Fatal(err)
	}
	check("base_url", "https://staging.example/ti", "profile staging")
	check("retries", "5", "profile staging")
	check("timeout", "10s", "file")

	// env beats the profile, flag beats env
	t.Setenv("TILOOKUP_BASE_URL", "https://env.example")
	t.Setenv("TILOOKUP_RETRIES", "1")
	fs = flags()
	fs.Parse([]string{"--profile", "staging", "--retries", "0"})
	if c, err = loadChecked(p, fs); err != nil {
		t.Fatal(err)
	}
	check("base_url", "https://env.example", "env TILOOKUP_BASE_URL")
	check("retries", "0", "flag --retries")

	// an empty env value is a value: it turns the events cookie off
	t.Setenv("TILOOKUP_EVENTS_COOKIE_NAME", "")
	if c, err = loadChecked(p, flags()); err != nil {
		t.Fatal(err)
	}
	check("events_cookie_name", "", "env TILOOKUP_EVENTS_COOKIE_NAME")
}

func TestProfileFromEnvAndUnknownProfile(t *testing.T) {
	p := writeFile(t, file)
	t.Setenv("TILOOKUP_PROFILE", "staging")
	c, err := loadChecked(p, flags())
	if err != nil || c.Profile() != "staging" {
		t.Fatalf("profile = %q, %v", c.Profile(), err)
	}
	t.Setenv("TILOOKUP_PROFILE", "prod")
	_, err = loadChecked(p, flags())
	if failure.ExitCode(err) != 3 || !strings.Contains(err.Error(), `profile "prod" not found`) || !strings.Contains(err.Error(), "empty, staging") {
		t.Errorf("err = %v", err)
	}
}

func TestInvalidValues(t *testing.T) {
	for _, body := range []string{"timeout: soon\n", "timeout: -5\n", "events_cookie_name: a;b\n", "retries: many\n", "output: xml\n", "base_url: ftp://x\n", "a: [unclosed", "- a\n- b\n"} {
		_, err := loadChecked(writeFile(t, body), flags())
		if failure.ExitCode(err) != 3 {
			t.Errorf("%q: err = %v, want a config error", body, err)
		}
	}
}

func TestMissingFileIsEmpty(t *testing.T) {
	c, err := loadChecked(filepath.Join(t.TempDir(), "nope", "config.yaml"), flags())
	if err != nil {
		t.Fatal(err)
	}
	if c.Get("output") != "table" {
		t.Errorf("output = %q", c.Get("output"))
	}
}

func TestSetWritesFile0600KeepingComments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	p := filepath.Join(dir, "config.yaml")
	c, err := loadChecked(p, flags())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set("base_url", "https://a.example"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	if c.Get("base_url") != "" && c.Get("base_url") != "https://a.example" {
		t.Errorf("base_url = %q", c.Get("base_url"))
	}

	p = writeFile(t, file)
	fs := flags()
	fs.Parse([]string{"--profile", "staging"})
	if c, err = loadChecked(p, fs); err != nil {
		t.Fatal(err)
	}
	if err := c.Set("timeout", "45s"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	s := string(data)
	if !strings.Contains(s, "# my settings") {
		t.Errorf("comment lost:\n%s", s)
	}
	c2, _ := loadChecked(p, fs)
	if c2.Get("timeout") != "45s" || c2.Source("timeout") != "profile staging" {
		t.Errorf("timeout = %q from %q\n%s", c2.Get("timeout"), c2.Source("timeout"), s)
	}
	if err := c.Set("timeout", "never"); failure.ExitCode(err) != 2 {
		t.Errorf("invalid value: %v", err)
	}
	if err := c.Set("nope", "1"); failure.ExitCode(err) != 2 {
		t.Errorf("unknown key: %v", err)
	}
	if err := c.Set("token", "x"); err == nil || !strings.Contains(err.Error(), "auth login") {
		t.Errorf("token: %v", err)
	}
	if err := c.Unset("timeout"); err != nil {
		t.Fatal(err)
	}
	c3, _ := loadChecked(p, fs)
	if c3.Get("timeout") != "10s" {
		t.Errorf("after unset timeout = %q", c3.Get("timeout"))
	}
}

func TestTokenStore(t *testing.T) {
	p := writeFile(t, file)
	c, _ := loadChecked(p, flags())
	if err := c.SetToken("ti.example.com:8443", "tok"); err != nil {
		t.Fatal(err)
	}
	c2, _ := loadChecked(p, flags())
	if tok, ok := c2.Token("ti.example.com:8443"); !ok || tok != "tok" {
		t.Errorf("token = %q %v", tok, ok)
	}
	if c2.Get("base_url") != "https://top.example" {
		t.Error("token write disturbed other keys")
	}
	if err := c2.DeleteToken("ti.example.com:8443"); err != nil {
		t.Fatal(err)
	}
	if _, ok := c2.Token("ti.example.com:8443"); ok {
		t.Error("token still there")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1024": 1024, "32MiB": 32 << 20, "1 GiB": 1 << 30, "5KB": 5000} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("%s = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "-1", "0", "lots", "1TB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestUnsetInMissingProfileLeavesTopLevel(t *testing.T) {
	p := writeFile(t, "base_url: https://ti.example.com\n")
	fs := flags()
	fs.Parse([]string{"--profile", "staging"})
	c, err := Open(p, fs, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Unset("base_url"); err != nil {
		t.Fatal(err)
	}
	c2, _ := loadChecked(p, flags())
	if c2.Get("base_url") != "https://ti.example.com" {
		t.Errorf("unset in a missing profile removed the top-level key")
	}
}
