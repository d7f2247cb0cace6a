package auth

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// StatusOptions is what `auth status` needs.
type StatusOptions struct {
	IO        *iostreams.IOStreams
	Store     func() (TokenStore, error)
	Endpoints func() (config.Endpoints, error)
	// FileHosts lists the hosts with a token in the config file, and
	// FilePath names that file, for the permission check.
	FileHosts func() []string
	FilePath  func() string
	// Check asks the service whether it accepts the stored token.
	Check func(ctx context.Context, forWhat online.ClientFor) error
	// Probe asks the events host with no one's token, to tell a wrong
	// events_base_url from a caller with no event record (both 404).
	Probe  func(ctx context.Context) error
	Getenv func(string) string

	Host    string
	NoCheck bool
}

// NewCmdStatus is `tilookup auth status`; runF replaces the run in tests.
func NewCmdStatus(f *online.Factory, runF func(context.Context, *StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{
		IO:        f.IO,
		Store:     storeFunc(f),
		Endpoints: endpointsFunc(f),
		Check:     checker(f),
		Probe:     prober(f),
		Getenv:    os.Getenv,
	}
	opts.FileHosts = func() []string {
		cfg, err := f.ConfigUnchecked()
		if err != nil {
			return nil
		}
		return cfg.Hosts()
	}
	opts.FilePath = func() string {
		cfg, err := f.ConfigUnchecked()
		if err != nil {
			return ""
		}
		return cfg.Path()
	}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each host's token, where it comes from, and whether the service accepts it",
		Long: `For the search host (base_url), the events host (events_base_url) and any
host with a token in the config file: the URL and the scope it was set in,
where the token comes from, a masked form, and, unless --no-check, whether
the service accepts it (one search on the search host, GET /api/events/me on
the events host). Exits 3 when a host has no token, when no base_url is
configured (searches would fail, whatever the token), or when
events_base_url answers 404 even without a token (it does not point to the
events service); 4 when the service refuses a token.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
	hostFlag(cmd, f, &opts.Host)
	cmd.Flags().BoolVar(&opts.NoCheck, "no-check", false, "do not ask the service about the token")
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	e, err := opts.Endpoints()
	if err != nil {
		return err
	}
	search, events := hosts(e)
	list, err := statusHosts(opts, search, events)
	if err != nil {
		return err
	}
	var tally failure.Tally
	if len(list) > 0 {
		store, err := opts.Store()
		if err != nil {
			return err
		}
		for _, h := range list {
			tally.RaiseCode(hostStatus(ctx, opts, store, e, h, search, events))
		}
	}
	return tally.Err(noBaseURL(search), false)
}

// noBaseURL is the configuration error of a status that found a token
// but no search host: whatever the token, every search would fail, so
// status must not exit 0 (the contract's exit 3, no base URL).
func noBaseURL(search string) error {
	if search != "" {
		return nil
	}
	return failure.New(failure.Config, "no base_url is configured, so searches will fail").
		WithHint("run `tilookup config set base_url URL`")
}

// statusHosts is the search host, the events host, then the other hosts
// with a token in the file; or only --host.
func statusHosts(opts *StatusOptions, search, events string) ([]string, error) {
	if opts.Host != "" {
		h, err := resolveHost(opts.Host, opts.Endpoints)
		return []string{h}, err
	}
	var list []string
	for _, h := range append([]string{search, events}, opts.FileHosts()...) {
		if h != "" && !contains(list, h) {
			list = append(list, h)
		}
	}
	if len(list) > 0 {
		return list, nil
	}
	if tok := strings.TrimSpace(opts.Getenv(credentials.EnvToken)); tok != "" {
		fmt.Fprintf(opts.IO.Out, "TILOOKUP_TOKEN\n  - token: %s (used for every host)\n  - not checked: no base_url is configured\n", credentials.Mask(tok))
		return nil, nil
	}
	return nil, failure.New(failure.Config, "no host is configured and no token is stored").
		WithHint("run `tilookup config set base_url URL` and `tilookup auth login`")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// hostStatus prints one host's block and returns its exit code.
func hostStatus(ctx context.Context, opts *StatusOptions, store TokenStore, e config.Endpoints, h, search, events string) int {
	out := opts.IO.Out
	fmt.Fprintln(out, h)
	if h == search {
		fmt.Fprintf(out, "  - base_url: %s (%s)\n", sanitize.String(api.RedactRawURL(e.BaseURL)), e.BaseSource)
	}
	if h == events {
		fmt.Fprintf(out, "  - events_base_url: %s (%s)\n", sanitize.String(api.RedactRawURL(e.EventsURL)), e.EventsSource)
	}
	tok, src, err := lookup(store, e, h, search, events)
	if err != nil {
		fmt.Fprintf(out, "  x %s\n", oneLine(err))
		return failure.ExitCode(err)
	}
	fmt.Fprintf(out, "  - token: %s (from %s)%s\n", credentials.Mask(tok), describeSource(src), eventsNote(e, h, search, events))
	if src == credentials.SourceConfig {
		if p := credentials.PermProblem(opts.FilePath()); p != "" {
			fmt.Fprintf(out, "  ! %s\n", p)
		}
	}
	if opts.NoCheck {
		return 0
	}
	var tally failure.Tally
	if h == search {
		tally.RaiseCode(check(ctx, opts, e, online.ForSearch, "search"))
	}
	if h == events {
		tally.RaiseCode(check(ctx, opts, e, online.ForEvents, "events"))
	}
	return tally.Code(false)
}

func lookup(store TokenStore, e config.Endpoints, h, search, events string) (string, credentials.Source, error) {
	if h == events && h != search && search != "" {
		return store.EventsToken(h, search, e.Paired)
	}
	return store.Token(h)
}

func eventsNote(e config.Endpoints, h, search, events string) string {
	if h != events || h == search || search == "" {
		return ""
	}
	if e.Paired {
		return "; its own entry, else the token of " + search + " (same scope as base_url)"
	}
	return "; its own entry only: events_base_url is not in the same scope as base_url"
}

// check prints what the service said of the token on one endpoint.
func check(ctx context.Context, opts *StatusOptions, e config.Endpoints, forWhat online.ClientFor, name string) int {
	err := opts.Check(ctx, forWhat)
	out := opts.IO.Out
	kind := failure.KindOf(err)
	if forWhat == online.ForEvents && kind == failure.NotFound {
		if wrong := noEventsEndpoint(ctx, e, opts.Probe); wrong != nil {
			fmt.Fprintf(out, "  x %s: %s\n", name, oneLine(wrong))
			return failure.ExitCode(wrong)
		}
	}
	switch {
	case err == nil:
		fmt.Fprintf(out, "  - %s: accepted by the service\n", name)
		return 0
	case forWhat == online.ForEvents && (kind == failure.Forbidden || kind == failure.NotFound):
		fmt.Fprintf(out, "  - %s: token known to the service (%s)\n", name, refusal(err))
		return 0
	case kind == failure.Auth || kind == failure.Forbidden:
		fmt.Fprintf(out, "  x %s: refused by the service: %s\n", name, oneLine(err))
		return failure.ExitAuth
	case kind == failure.Config:
		fmt.Fprintf(out, "  x %s: cannot check: %s\n", name, oneLine(err))
		return failure.ExitCode(err)
	default:
		fmt.Fprintf(out, "  ? %s: could not check: %s\n", name, oneLine(err))
		return failure.ExitCode(err)
	}
}
