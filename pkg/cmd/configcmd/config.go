// Package configcmd is `tilookup config get|set|unset|list|path`.
package configcmd

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// Reader is what get and list need of the configuration.
type Reader interface {
	Get(key string) string
	Source(key string) string
}

// Editor is what set and unset need.
type Editor interface {
	Set(key, value string) error
	Unset(key string) error
}

// Options is what the config commands need; each uses some of it.
type Options struct {
	IO *iostreams.IOStreams
	// Config is the effective configuration, values unchecked so that a
	// bad one can be seen.
	Config func() (Reader, error)
	// Edit opens the file for writing; --profile may name a profile the
	// write creates.
	Edit func() (Editor, error)
	Path func() (string, error)
	// Format resolves -o for config list (cmdutil.ResolveFormat).
	Format func() (output.Format, error)

	// Command is the subcommand that runs (get, set, list...).
	Command    string
	Key, Value string
}

// NewCmd is `tilookup config`; runF, when set, replaces the run of every
// subcommand (tests); opts.Command names the subcommand.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	opts.Config = func() (Reader, error) { return f.ConfigUnchecked() }
	opts.Edit = func() (Editor, error) { return config.Open(f.ConfigPath(), f.Flags, true) }
	opts.Path = func() (string, error) { return config.Path(f.ConfigPath()) }
	opts.Format = func() (output.Format, error) { return cmdutil.ResolveFormat(f, "config") }
	run := func(name string, fn func(*Options) error) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			opts.Command, opts.Key, opts.Value = name, arg(args, 0), arg(args, 1)
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return fn(opts)
		}
	}
	cmd := &cobra.Command{
		Use:   "config <command>",
		Short: "Read and write settings in the config file",
		Long: `Settings resolve in this order, highest first: flag, environment variable
(TILOOKUP_*), the selected profile in the config file, the file's top level,
built-in default. With --profile NAME, set and unset write into that profile.
base_url and events_base_url resolve as a pair from one scope: a profile that
sets base_url but not events_base_url sends events to its own base_url.

Keys:
` + keyHelp(),
	}
	cmd.AddCommand(&cobra.Command{
		Use:               "get <key>",
		Short:             "Print the effective value of a key",
		Args:              cmdutil.ExactArgs(1, "a key"),
		ValidArgsFunction: completeKeys,
		RunE:              run("get", getRun),
	})
	cmd.AddCommand(&cobra.Command{
		Use:               "set <key> <value>",
		Short:             "Write a key to the config file (mode 0600)",
		Args:              cmdutil.ExactArgs(2, "a key and a value"),
		ValidArgsFunction: completeValues,
		RunE:              run("set", setRun),
	})
	cmd.AddCommand(&cobra.Command{
		Use:               "unset <key>",
		Short:             "Remove a key from the config file",
		Args:              cmdutil.ExactArgs(1, "a key"),
		ValidArgsFunction: completeKeys,
		RunE:              run("unset", unsetRun),
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "Print every key, its value and the scope it comes from",
		Args:  cobra.NoArgs,
		RunE:  run("list", listRun),
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the config file's path",
		Args:  cobra.NoArgs,
		RunE:  run("path", pathRun),
	})
	return cmd
}

func arg(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func completeKeys(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return config.KeyNames(), cobra.ShellCompDirectiveNoFileComp
}

func completeValues(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return config.KeyNames(), cobra.ShellCompDirectiveNoFileComp
	}
	if k, ok := config.Lookup(args[0]); ok && len(args) == 1 {
		return k.Settable(), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// getRun prints the value as stored, for scripts, except a password that
// is never printed (cache_url's), which shows as in config list.
func getRun(opts *Options) error {
	k, ok := config.Lookup(opts.Key)
	if !ok {
		return config.UnknownKey(opts.Key)
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	v := cfg.Get(opts.Key)
	if k.Password {
		v = redactValue(v)
	}
	fmt.Fprintln(opts.IO.Out, v)
	return nil
}

func setRun(opts *Options) error {
	k, ok := config.Lookup(opts.Key)
	if !ok {
		return config.UnknownKey(opts.Key)
	}
	if err := k.CheckSettable(opts.Value); err != nil {
		return failure.New(failure.Usage, "%v", err)
	}
	cfg, err := opts.Edit()
	if err != nil {
		return err
	}
	if err := cfg.Set(opts.Key, opts.Value); err != nil {
		return err
	}
	warnPlainHTTP(opts)
	return nil
}

// warnPlainHTTP warns, when a URL just set is plain http to a host that
// is not loopback, that no token will be sent there: legal (a test
// service, allow_insecure_http), but a first search would fail with exit 3
// long after the mistake.
func warnPlainHTTP(opts *Options) {
	if opts.Key != "base_url" && opts.Key != "events_base_url" {
		return
	}
	u, err := url.Parse(opts.Value)
	if err != nil || u.Scheme != "http" || api.IsLoopback(u.Hostname()) {
		return
	}
	if cfg, err := opts.Config(); err == nil && cfg.Get("allow_insecure_http") == "true" {
		return
	}
	fmt.Fprintf(opts.IO.ErrOut, "tilookup: warning: %s is plain http to %s: the token is never sent there unless allow_insecure_http is true; did you mean https://?\n", opts.Key, sanitize.String(u.Host))
}

func unsetRun(opts *Options) error {
	if _, ok := config.Lookup(opts.Key); !ok {
		return config.UnknownKey(opts.Key)
	}
	cfg, err := opts.Edit()
	if err != nil {
		return err
	}
	return cfg.Unset(opts.Key)
}

func pathRun(opts *Options) error {
	p, err := opts.Path()
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, p)
	return nil
}

// listRun prints every key, its value and its scope: flag, env, profile
// NAME, file, default, or "base_url, SCOPE" for an events host that is the
// base URL.
func listRun(opts *Options) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	format, err := opts.Format()
	if err != nil {
		return err
	}
	if format != output.Table {
		return listRecords(opts, cfg, format)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	for _, k := range config.Keys {
		value, src := listed(opts, cfg, k.Name)
		if src != "" {
			src = "(" + src + ")"
		}
		// Values come from a file anyone may have edited: sanitized.
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, sanitize.String(redactValue(value)), src)
	}
	return tw.Flush()
}

// listed is a key's value and where it comes from, as config list shows
// it. The pager has no default of its own in the key table (PAGER comes
// between the setting and less -FRX), so the one the terminal streams would
// run is shown.
func listed(opts *Options, cfg Reader, key string) (value, source string) {
	value, source = cfg.Get(key), cfg.Source(key)
	if key == "pager" && value == "" {
		switch value = opts.IO.PagerCommand(); value {
		case iostreams.DefaultPager:
			source = "default"
		case "":
			value, source = "cat", "PAGER"
		default:
			source = "PAGER"
		}
	}
	return value, source
}

func listRecords(opts *Options, cfg Reader, format output.Format) error {
	type entry struct {
		Key    string `json:"key"`
		Value  string `json:"value"`
		Source string `json:"source"`
	}
	w := cmdutil.NewListWriter(cmdutil.ListOptions(opts.IO, format), []string{"key", "value", "source"})
	for _, k := range config.Keys {
		value, src := listed(opts, cfg, k.Name)
		e := entry{k.Name, redactValue(value), src}
		if err := w.Write(e, []string{e.Key, e.Value, e.Source}); err != nil {
			return err
		}
	}
	return w.Close()
}

// redactValue hides the password (and user name) of a URL with user info
// (https://alice:pw@ti.example), as every printed URL does; `config get`
// prints the value as stored, for scripts that asked for it, but for a
// key whose password is never printed (config.Key.Password).
func redactValue(v string) string {
	if strings.Contains(v, "://") {
		return api.RedactRawURL(v)
	}
	return v
}

// keyHelp lists the keys for `config --help`, wrapped to 80 columns.
func keyHelp() string {
	const indent = 23
	var b strings.Builder
	for _, k := range config.Keys {
		text := k.Help
		if k.Env != "" {
			text += "; " + k.Env
		}
		fmt.Fprintf(&b, "  %-20s", k.Name)
		col := indent
		for i, word := range strings.Fields(text) {
			if i > 0 && col+1+len(word) > 80 {
				b.WriteString("\n" + strings.Repeat(" ", indent-1))
				col = indent - 1
			}
			b.WriteString(" " + word)
			col += 1 + len(word)
		}
		b.WriteString("\n")
	}
	return b.String()
}
