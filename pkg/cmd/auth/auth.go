// Package auth is `tilookup auth login|status|token|logout`: per-host
// tokens in the OS keyring, or, when the user opts in, the config file.
package auth

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// TokenStore is what the auth commands need of credentials.Store.
type TokenStore interface {
	Token(host string) (string, credentials.Source, error)
	EventsToken(eventsHost, searchHost string, paired bool) (string, credentials.Source, error)
	CanStore(host string, insecure bool) error
	Login(host, token string, insecure bool) (warning string, err error)
	Logout(host string) error
}

// NewCmd is `tilookup auth`.
func NewCmd(f *online.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth <command>",
		Short: "Store, show and remove the service token",
		Long: `Tokens are kept per host (the host[:port] of base_url) in the OS keyring:
the macOS Keychain, the Windows Credential Manager, or the Secret Service
(gnome-keyring, KWallet) on Linux. TILOOKUP_TOKEN, when set, overrides them.
Where no keyring exists (a headless server, CI), set TILOOKUP_TOKEN or use
auth login --insecure-storage, which writes the token to the config file (0600).
A token is never accepted as a command-line argument.

A stored token is sent only to the host it was stored for, and to the
events host when events_base_url is set in the same scope (profile, file,
environment or flags) as base_url.`,
	}
	cmd.AddCommand(NewCmdLogin(f, nil), NewCmdStatus(f, nil), NewCmdToken(f, nil), NewCmdLogout(f, nil))
	return cmd
}

// storeFunc and endpointsFunc adapt the Factory to the small functions the
// Options structs hold.
func storeFunc(f *online.Factory) func() (TokenStore, error) {
	return func() (TokenStore, error) {
		s, err := f.Credentials()
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

func endpointsFunc(f *online.Factory) func() (config.Endpoints, error) {
	return func() (config.Endpoints, error) {
		cfg, err := f.ConfigUnchecked()
		if err != nil {
			return config.Endpoints{}, err
		}
		return cfg.Endpoints(), nil
	}
}

func hostFlag(cmd *cobra.Command, f *online.Factory, host *string) {
	cmd.Flags().StringVar(host, "host", "", "`host` or URL the token is for (default: base_url's)")
	_ = cmd.RegisterFlagCompletionFunc("host", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return knownHosts(f), cobra.ShellCompDirectiveNoFileComp
	})
}

// resolveHost turns --host (a host, host:port or URL) or base_url into the
// keyring key.
func resolveHost(flag string, endpoints func() (config.Endpoints, error)) (string, error) {
	if flag != "" {
		u := flag
		if !strings.Contains(u, "://") {
			u = "https://" + u
		}
		h, err := credentials.HostKey(u)
		if err != nil {
			return "", failure.New(failure.Usage, "--host %q: %v", flag, err)
		}
		return h, nil
	}
	e, err := endpoints()
	if err != nil {
		return "", err
	}
	if e.BaseURL == "" {
		return "", failure.New(failure.Config, "no host given and no base URL configured").
			WithHint("pass --host HOST, or run `tilookup config set base_url URL`")
	}
	h, err := credentials.HostKey(e.BaseURL)
	if err != nil {
		return "", failure.New(failure.Config, "base_url: %v", err)
	}
	return h, nil
}

// hosts are the search and events host keys of the resolved endpoints;
// "" where a URL is missing or invalid.
func hosts(e config.Endpoints) (search, events string) {
	if e.BaseURL != "" {
		search, _ = credentials.HostKey(e.BaseURL)
	}
	if e.EventsURL != "" {
		events, _ = credentials.HostKey(e.EventsURL)
	}
	return search, events
}

// knownHosts lists the configured hosts and those with a token in the
// config file, for completion. It never touches the network or the keyring.
func knownHosts(f *online.Factory) []string {
	seen := map[string]bool{}
	var out []string
	add := func(h string) {
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	cfg, err := f.ConfigUnchecked()
	if err != nil {
		return nil
	}
	s, e := hosts(cfg.Endpoints())
	add(s)
	add(e)
	for _, u := range cfg.ConfiguredURLs() {
		h, _ := credentials.HostKey(u)
		add(h)
	}
	for _, h := range cfg.Hosts() {
		add(h)
	}
	return out
}

// verifier checks a token with GET /api/events/me on the events host.
func verifier(f *online.Factory) func(ctx context.Context, token string) error {
	return func(ctx context.Context, token string) error {
		client, err := f.ClientWithToken(online.ForEvents, token)
		if err != nil {
			return err
		}
		_, err = client.EventsMe(ctx)
		return err
	}
}

// probeToken is what the endpoint probe sends: no one's token, so that a
// real events endpoint refuses it (401) and only a path that is no
// endpoint at all answers 404.
const probeToken = "tilookup-endpoint-probe"

// prober calls GET /api/events/me on the events host with probeToken.
func prober(f *online.Factory) func(ctx context.Context) error {
	verify := verifier(f)
	return func(ctx context.Context) error { return verify(ctx, probeToken) }
}

// noEventsEndpoint tells, after a 404 from GET /api/events/me, whether
// that 404 says the events URL is wrong rather than that the caller has no
// event record: the spec's 404 is for a caller the service has
// authenticated, so the same path asked with no one's token must answer
// 401 (or 403); a 404 to that too means nothing there checks tokens. It
// returns the error to report, or nil when the 404 was the caller's.
func noEventsEndpoint(ctx context.Context, e config.Endpoints, probe func(context.Context) error) *failure.Error {
	if failure.KindOf(probe(ctx)) != failure.NotFound {
		return nil
	}
	setting := "events_base_url"
	if e.EventsURL == e.BaseURL && strings.HasPrefix(e.EventsSource, "base_url") {
		setting += " (not set, so base_url)"
	}
	return failure.New(failure.Config, "%s answers 404 even without a token: %s does not point to the events service",
		sanitize.String(api.RedactRawURL(strings.TrimSuffix(e.EventsURL, "/")+"/api/events/me")), setting)
}

// checker asks the service whether it accepts the stored token: a search
// for ForSearch, GET /api/events/me for ForEvents.
func checker(f *online.Factory) func(ctx context.Context, forWhat online.ClientFor) error {
	return func(ctx context.Context, forWhat online.ClientFor) error {
		client, err := f.Client(forWhat, 1)
		if err != nil {
			return err
		}
		if forWhat == online.ForEvents {
			_, err = client.EventsMe(ctx)
			return err
		}
		_, err = client.Search(ctx, "example.com", 1)
		return err
	}
}

func describeSource(src credentials.Source) string {
	switch src {
	case credentials.SourceEnv:
		return "TILOOKUP_TOKEN"
	case credentials.SourceKeyring:
		return "the OS keyring"
	case credentials.SourceConfig:
		return "the config file, in plain text"
	}
	return string(src)
}

func oneLine(err error) string { return sanitize.Line(err.Error()) }
