// Package cachecmd is `tilookup cache path|stats|clear`: where the answer
// cache lives, what it holds, and emptying it.
package cachecmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cache"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
	"github.com/tilookup/tilookup/pkg/sharedcache"
)

// Options is what the cache commands need, as functions so that tests can
// replace them.
type Options struct {
	IO *iostreams.IOStreams
	// Command is the subcommand that runs: path, stats or clear.
	Command string
	// Cache opens the answer cache in its directory, with the configured
	// size cap.
	Cache func() (*cache.Cache, error)
	// Shared opens the shared cache of cache_url; nil when none is set.
	Shared func() (*sharedcache.Store, error)
	// Setting is the cache setting's value and where it comes from.
	Setting func() (value, source string)
	Format  func() (output.Format, error)
	Now     func() time.Time

	OlderThan time.Duration // clear: only answers stored longer ago; 0 = all
	// ClearShared: clear empties the shared cache (cache_url), not the
	// disk's.
	ClearShared bool
}

// NewCmd is `tilookup cache`. runF, when set, replaces each subcommand's
// run in tests; o.Command names the subcommand.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:      f.IO,
		Cache:   func() (*cache.Cache, error) { return open(f) },
		Shared:  func() (*sharedcache.Store, error) { return openShared(f) },
		Setting: func() (string, string) { return setting(f) },
		Format:  func() (output.Format, error) { return cmdutil.Format(f, "cache") },
		Now:     time.Now,
	}
	cmd := &cobra.Command{
		Use:   "cache <command>",
		Short: "Show or clear the on-disk cache of answers",
		Long: `With the cache on (the cache setting, TILOOKUP_CACHE, or --cache on search),
answers are kept on disk as the service sent them, under
$XDG_CACHE_HOME/tilookup/answers (~/.cache on Linux): matches for the
configured time, answers without a match for at most an hour, errors never.
The key covers the base URL, a fingerprint of the token (never the token),
the limit and the value. The size cap (cache_max_size, 100MiB) evicts the
oldest answers. Any number of processes share the cache without locks.

With cache_url set, answers are also kept in that Redis, shared by every
process and host that uses it, with the same rules: stats shows both, and
clear --shared empties the shared one (tilookup's keys only).`,
		Example: `  tilookup search --cache 24h CVE-2021-44228
  tilookup cache stats
  tilookup cache clear --older-than 7d`,
	}
	run := func(name string, fn func(*Options) error) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, _ []string) error {
			opts.Command = name
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return fn(opts)
		}
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the directory of the answer cache",
		Args:  cmdutil.ExactArgs(0, "no arguments"),
		RunE:  run("path", runPath),
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "stats",
		Short: "Show how many answers the cache holds, their size and age",
		Args:  cmdutil.ExactArgs(0, "no arguments"),
		RunE:  run("stats", runStats),
	})
	var olderThan string
	clear := &cobra.Command{
		Use:   "clear",
		Short: "Remove the cached answers, or those older than a duration",
		Example: `  tilookup cache clear
  tilookup cache clear --older-than 24h`,
		Args: cmdutil.ExactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, args []string) error {
			if opts.ClearShared && c.Flags().Changed("older-than") {
				return cmdutil.UsageError("--older-than is for the disk cache: Redis expires shared answers itself")
			}
			if c.Flags().Changed("older-than") {
				d, err := config.ParseCacheTTL(olderThan)
				if err != nil {
					// The setting's message offers "0 for off", which
					// means nothing for an age.
					return cmdutil.UsageError("--older-than: want an age such as 24h or 7d, or a number of seconds")
				}
				opts.OlderThan = d
			}
			return run("clear", runClear)(c, args)
		},
	}
	clear.Flags().StringVar(&olderThan, "older-than", "", "only answers stored over `DURATION` ago (24h, 7d)")
	clear.Flags().BoolVar(&opts.ClearShared, "shared", false, "empty the shared cache (cache_url), not the disk's")
	cmd.AddCommand(clear)
	return cmd
}

// open finds the cache of this user. The size cap only matters to stats;
// an invalid one is reported by the commands that store answers.
func open(f *cmdutil.Factory) (*cache.Cache, error) {
	dir, err := cache.DefaultDir()
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, "cannot find the user cache directory: "+err.Error()).
			WithHint("set XDG_CACHE_HOME (or HOME)")
	}
	var maxSize int64
	if v, err := f.Get("cache_max_size"); err == nil {
		maxSize, _ = config.ParseSize(v)
	}
	return cache.Open(cache.Options{Dir: dir, MaxSize: maxSize}), nil
}

// openShared is the shared cache of cache_url, or nil when none is set.
func openShared(f *cmdutil.Factory) (*sharedcache.Store, error) {
	cfg, err := f.ConfigUnchecked()
	if err != nil {
		return nil, err
	}
	v, err := cfg.Checked("cache_url")
	if err != nil || strings.TrimSpace(v) == "" {
		return nil, err
	}
	return sharedcache.Open(sharedcache.Options{URL: v})
}

// sharedStats is what the shared cache holds, for stats.
type sharedStats struct {
	URL     string `json:"url"`
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"`
	Error   string `json:"error,omitempty"`
}

func (o *Options) sharedStats() *sharedStats {
	if o.Shared == nil {
		return nil
	}
	store, err := o.Shared()
	if err != nil {
		return &sharedStats{Error: err.Error()}
	}
	if store == nil {
		return nil
	}
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := &sharedStats{URL: store.String()}
	if s.Entries, s.Bytes, err = store.Stats(ctx); err != nil {
		s.Error = err.Error()
	}
	return s
}

func setting(f *cmdutil.Factory) (string, string) {
	cfg, err := f.ConfigUnchecked()
	if err != nil {
		return "", ""
	}
	return cfg.Get("cache"), cfg.Source("cache")
}

func runPath(o *Options) error {
	c, err := o.Cache()
	if err != nil {
		return err
	}
	return write(o.IO.Out, c.Dir()+"\n")
}

// statsJSON is stats for scripts: sizes in bytes, times in RFC 3339.
type statsJSON struct {
	Path       string     `json:"path"`
	Enabled    bool       `json:"enabled"`
	TTLSeconds float64    `json:"ttl_seconds"`
	Entries    int        `json:"entries"`
	Expired    int        `json:"expired"`
	Bytes      int64      `json:"bytes"`
	MaxBytes   int64      `json:"max_bytes"`
	Oldest     *time.Time `json:"oldest,omitempty"`
	Newest     *time.Time `json:"newest,omitempty"`
	// Shared is the shared cache of cache_url, when one is set.
	Shared *sharedStats `json:"shared,omitempty"`
}

// open resolves the output format and opens the cache, in that order: a
// bad -o fails before the cache is touched.
func (o *Options) open() (output.Format, *cache.Cache, error) {
	format, err := o.Format()
	if err != nil {
		return "", nil, err
	}
	c, err := o.Cache()
	return format, c, err
}

func runStats(o *Options) error {
	format, c, err := o.open()
	if err != nil {
		return err
	}
	s, err := c.Stats()
	if err != nil {
		return failure.Wrap(failure.IO, err, "cannot read the cache: "+err.Error())
	}
	value, source := o.Setting()
	ttl, _ := config.ParseCacheTTL(value)
	shared := o.sharedStats()
	if format == output.JSON || format == output.NDJSON {
		j := statsJSON{Path: c.Dir(), Enabled: ttl > 0, TTLSeconds: ttl.Seconds(), Entries: s.Entries, Expired: s.Expired, Bytes: s.Bytes, MaxBytes: c.MaxSize(), Shared: shared}
		if s.Entries > 0 {
			oldest, newest := s.Oldest.UTC(), s.Newest.UTC()
			j.Oldest, j.Newest = &oldest, &newest
		}
		return failure.WriteError(cmdutil.WriteJSON(cmdutil.ListOptions(o.IO, format), j))
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Path:\t%s\n", sanitize.String(c.Dir()))
	fmt.Fprintf(tw, "Cache:\t%s\n", describeSetting(ttl, source))
	answers := fmt.Sprint(s.Entries)
	if s.Expired > 0 {
		answers += fmt.Sprintf(" (%d expired: replaced when asked again)", s.Expired)
	}
	fmt.Fprintf(tw, "Answers:\t%s\n", answers)
	fmt.Fprintf(tw, "Size:\t%s of %s\n", humanSize(s.Bytes), humanSize(c.MaxSize()))
	if s.Entries > 0 {
		fmt.Fprintf(tw, "Oldest:\t%s\n", output.Ago(o.Now().Sub(s.Oldest)))
		fmt.Fprintf(tw, "Newest:\t%s\n", output.Ago(o.Now().Sub(s.Newest)))
	}
	if shared != nil {
		line := sanitize.String(shared.URL)
		if shared.Error != "" {
			// A cache_url that is not valid has no URL to show.
			line = strings.TrimPrefix(line+": ", ": ") + "cannot be read (" + sanitize.String(shared.Error) + ")"
		} else {
			line += fmt.Sprintf(": %d answers, %s", shared.Entries, humanSize(shared.Bytes))
		}
		fmt.Fprintf(tw, "Shared:\t%s\n", line)
	}
	tw.Flush()
	return write(o.IO.Out, b.String())
}

func describeSetting(ttl time.Duration, source string) string {
	if ttl <= 0 {
		return "off (turn it on with: tilookup config set cache 24h)"
	}
	s := "on, matches kept " + cache.FormatDuration(ttl)
	if ttl > cache.NoMatchTTL {
		s += ", no match " + cache.FormatDuration(cache.NoMatchTTL)
	}
	if source != "" && source != "default" {
		s += " (from " + source + ")"
	}
	return s
}

type clearJSON struct {
	Removed int   `json:"removed"`
	Bytes   int64 `json:"bytes"`
}

func runClear(o *Options) error {
	if o.ClearShared {
		return runClearShared(o)
	}
	format, c, err := o.open()
	if err != nil {
		return err
	}
	n, freed, err := c.Clear(o.OlderThan)
	if err != nil {
		return failure.Wrap(failure.IO, err, "cannot clear the cache: "+err.Error())
	}
	if format == output.JSON || format == output.NDJSON {
		return failure.WriteError(cmdutil.WriteJSON(cmdutil.ListOptions(o.IO, format), clearJSON{Removed: n, Bytes: freed}))
	}
	which := ""
	if o.OlderThan > 0 {
		which = " stored more than " + cache.FormatDuration(o.OlderThan) + " ago"
	}
	switch n {
	case 0:
		return write(o.IO.Out, "No answers"+which+" to remove.\n")
	case 1:
		return write(o.IO.Out, fmt.Sprintf("Removed 1 answer%s (%s).\n", which, humanSize(freed)))
	}
	return write(o.IO.Out, fmt.Sprintf("Removed %d answers%s (%s).\n", n, which, humanSize(freed)))
}

// runClearShared empties the shared cache: every key tilookup keeps
// there, and no other.
func runClearShared(o *Options) error {
	format, err := o.Format()
	if err != nil {
		return err
	}
	var store *sharedcache.Store
	if o.Shared != nil {
		if store, err = o.Shared(); err != nil {
			return err
		}
	}
	if store == nil {
		return failure.New(failure.Config, "no shared cache is configured").WithHint("set cache_url (or pass --cache-url to a search) first")
	}
	defer store.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := store.Clear(ctx)
	if err != nil {
		return failure.New(failure.Network, "cannot clear the shared cache %s: %s", sanitize.String(store.String()), sanitize.String(err.Error()))
	}
	if format == output.JSON || format == output.NDJSON {
		return failure.WriteError(cmdutil.WriteJSON(cmdutil.ListOptions(o.IO, format), clearJSON{Removed: n}))
	}
	return write(o.IO.Out, fmt.Sprintf("Removed %d answers from the shared cache %s.\n", n, sanitize.String(store.String())))
}

// humanSize prints a byte count in binary units, as the size settings
// are written.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	num := strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/float64(div)), ".0")
	return fmt.Sprintf("%s %ciB", num, "KMGTPE"[exp])
}

func write(w io.Writer, s string) error {
	_, err := io.WriteString(w, s)
	return failure.WriteError(err)
}
