package cachecmd

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// fixture is a cache holding two answers, stored 3 days and 2 hours ago,
// the first of them expired.
func fixture(t *testing.T, format output.Format, setting string) (*Options, *bytes.Buffer) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "answers")
	clock := now.Add(-72 * time.Hour)
	c := cache.Open(cache.Options{Dir: dir, MaxSize: 1 << 20, Now: func() time.Time { return clock }})
	if err := c.Put("old", []byte(`{"query":"old"}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	clock = now.Add(-2 * time.Hour)
	if err := c.Put("new", []byte(`{"query":"new"}`), 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	clock = now
	var out bytes.Buffer
	return &Options{
		Out:     &out,
		Cache:   func() (*cache.Cache, error) { return c, nil },
		Setting: func() (string, string) { return setting, "env TILOOKUP_CACHE" },
		Format:  func() (output.Format, error) { return format, nil },
		Now:     func() time.Time { return now },
	}, &out
}

func TestNewCmdWiresSubcommands(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var ran []string
	var olderThan time.Duration
	cmd := NewCmd(&cmdutil.Factory{IO: ios}, func(name string, o *Options) error {
		ran = append(ran, name)
		olderThan = o.OlderThan
		return nil
	})
	for _, args := range [][]string{{"path"}, {"stats"}, {"clear"}, {"clear", "--older-than", "7d"}} {
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	if strings.Join(ran, " ") != "path stats clear clear" || olderThan != 7*24*time.Hour {
		t.Fatalf("ran %v, --older-than %v", ran, olderThan)
	}
	for _, args := range [][]string{{"clear", "--older-than", "soon"}, {"path", "extra"}} {
		cmd.SetArgs(args)
		err := cmd.Execute()
		if failure.ExitCode(err) != failure.ExitUsage {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
		if args[0] == "clear" && (strings.Contains(err.Error(), "off") || !strings.Contains(err.Error(), "7d")) {
			t.Errorf("%v: %q should show an age and never offer 0 for off", args, err)
		}
	}
}

func TestPath(t *testing.T) {
	o, out := fixture(t, output.Table, "0")
	if err := runPath(o); err != nil {
		t.Fatal(err)
	}
	c, _ := o.Cache()
	if out.String() != c.Dir()+"\n" {
		t.Fatalf("path printed %q", out)
	}
}

func TestStatsTable(t *testing.T) {
	o, out := fixture(t, output.Table, "24h")
	if err := runStats(o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Cache:    on, matches kept 24h, no match 1h (from env TILOOKUP_CACHE)\n",
		"Answers:  2 (1 expired: replaced when asked again)\n",
		" of 1 MiB\n",
		"Oldest:   3d ago\n",
		"Newest:   2h ago\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	o, out = fixture(t, output.Table, "0")
	runStats(o)
	if !strings.Contains(out.String(), "Cache:    off (turn it on with: tilookup config set cache 24h)") {
		t.Errorf("stats of a cache that is off:\n%s", out)
	}
}

func TestStatsJSON(t *testing.T) {
	o, out := fixture(t, output.JSON, "7d")
	if err := runStats(o); err != nil {
		t.Fatal(err)
	}
	var got statsJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !got.Enabled || got.TTLSeconds != 7*86400 || got.Entries != 2 || got.Expired != 1 || got.Bytes == 0 || got.MaxBytes != 1<<20 ||
		!got.Oldest.Equal(now.Add(-72*time.Hour)) || !got.Newest.Equal(now.Add(-2*time.Hour)) {
		t.Fatalf("stats %+v", got)
	}
}

func TestClear(t *testing.T) {
	o, out := fixture(t, output.Table, "24h")
	o.OlderThan = 24 * time.Hour
	if err := runClear(o); err != nil || !strings.HasPrefix(out.String(), "Removed 1 answer stored more than 24h ago (") {
		t.Fatalf("clear --older-than 24h: %q %v", out, err)
	}
	out.Reset()
	runClear(o)
	if out.String() != "No answers stored more than 24h ago to remove.\n" {
		t.Fatalf("again: %q", out)
	}
	o.OlderThan = 0
	o.Format = func() (output.Format, error) { return output.JSON, nil }
	out.Reset()
	if err := runClear(o); err != nil || !strings.HasPrefix(out.String(), `{"removed":1,"bytes":`) {
		t.Fatalf("clear -o json: %q %v", out, err)
	}
	c, _ := o.Cache()
	if s, _ := c.Stats(); s.Entries != 0 {
		t.Fatalf("left %+v", s)
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 5779: "5.6 KiB", 100 << 20: "100 MiB", 3 << 30: "3 GiB"} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %q, want %q", n, got, want)
		}
	}
}
