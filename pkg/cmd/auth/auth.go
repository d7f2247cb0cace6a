// Package auth is `tilookup auth login|status|token|logout`: per-host
// tokens in the OS keyring, or, when the user opts in, the config file.
package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// maxTokenInput bounds what --with-token reads from stdin.
const maxTokenInput = 64 << 10

// NewCmd is `tilookup auth`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth <command>",
		Short: "Store, show and remove the service token",
		Long: `Tokens are kept per host (the host[:port] of base_url) in the OS keyring:
the macOS Keychain, the Windows Credential Manager, or the Secret Service
(gnome-keyring, KWallet) on Linux. TILOOKUP_TOKEN, when set, overrides them.
Where no keyring exists (a headless server, CI), set TILOOKUP_TOKEN or use
auth login --insecure-storage, which writes the token to the config file (0600).
A token is never accepted as a command-line argument.`,
	}
	cmd.AddCommand(newLogin(f), newStatus(f), newToken(f), newLogout(f))
	return cmd
}

func hostFlag(cmd *cobra.Command, f *cmdutil.Factory, host *string) {
	cmd.Flags().StringVar(host, "host", "", "`host` or URL the token is for (default: base_url's)")
	_ = cmd.RegisterFlagCompletionFunc("host", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return knownHosts(f), cobra.ShellCompDirectiveNoFileComp
	})
}

// resolveHost turns --host (a host, host:port or URL) or base_url into the
// keyring key.
func resolveHost(f *cmdutil.Factory, flag string) (string, error) {
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
	base, err := f.Get("base_url")
	if err != nil {
		return "", err
	}
	if base == "" {
		return "", failure.New(failure.Config, "no host given and no base URL configured").
			WithHint("pass --host HOST, or run `tilookup config set base_url URL`")
	}
	h, err := credentials.HostKey(base)
	if err != nil {
		return "", failure.New(failure.Config, "base_url: %v", err)
	}
	return h, nil
}

// knownHosts lists the configured hosts and those with a stored token, for
// completion and status. It never touches the network or the keyring.
func knownHosts(f *cmdutil.Factory) []string {
	seen := map[string]bool{}
	var hosts []string
	add := func(h string) {
		if h != "" && !seen[h] {
			seen[h] = true
			hosts = append(hosts, h)
		}
	}
	for _, key := range []string{"base_url", "events_base_url"} {
		if u, _ := f.Get(key); u != "" {
			h, _ := credentials.HostKey(u)
			add(h)
		}
	}
	if cfg, err := f.Config(); err == nil {
		for _, h := range cfg.Hosts() {
			add(h)
		}
	}
	return hosts
}

func newLogin(f *cmdutil.Factory) *cobra.Command {
	var host string
	var withToken, insecure bool
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Store a token for a host",
		Long: `Prompts for the token without echo, or reads it from stdin with --with-token,
and stores it in the OS keyring under service "tilookup", user HOST.`,
		Example: `  tilookup auth login
  tilookup auth login --host ti.example.com
  printenv TI_TOKEN | tilookup auth login --with-token
  tilookup auth login --insecure-storage   # no keyring: store in the config file (0600)`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			h, err := resolveHost(f, host)
			if err != nil {
				return err
			}
			store, err := f.Credentials()
			if err != nil {
				return err
			}
			token, err := readToken(f, withToken, h)
			if err != nil {
				return err
			}
			warning, err := store.Login(h, token, insecure)
			if err != nil {
				return err
			}
			if warning != "" {
				fmt.Fprintln(f.IO.ErrOut, "Warning: "+warning)
			}
			where := "the OS keyring"
			if insecure {
				where = "the config file"
			}
			fmt.Fprintf(f.IO.ErrOut, "Logged in to %s (token stored in %s).\n", h, where)
			return nil
		},
	}
	hostFlag(cmd, f, &host)
	cmd.Flags().BoolVar(&withToken, "with-token", false, "read the token from stdin")
	cmd.Flags().BoolVar(&insecure, "insecure-storage", false, "store the token in plain text in the config file")
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func readToken(f *cmdutil.Factory, withToken bool, host string) (string, error) {
	if withToken {
		b, err := io.ReadAll(io.LimitReader(f.IO.In, maxTokenInput+1))
		if err != nil {
			return "", failure.New(failure.Usage, "cannot read the token from stdin: %v", err)
		}
		if len(b) > maxTokenInput {
			return "", failure.New(failure.Usage, "the token on stdin is larger than %d KiB", maxTokenInput>>10)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if !f.IO.IsStdinTTY() {
		return "", failure.New(failure.Usage, "stdin is not a terminal, so there is no prompt").
			WithHint("pipe the token with --with-token, or set TILOOKUP_TOKEN")
	}
	fmt.Fprintf(f.IO.ErrOut, "Paste the token for %s: ", host)
	b, err := f.IO.ReadPassword()
	fmt.Fprintln(f.IO.ErrOut)
	if err != nil {
		return "", failure.New(failure.Usage, "cannot read the token: %v", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func newToken(f *cmdutil.Factory) *cobra.Command {
	var host string
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print the token for a host, for scripts",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			h, err := resolveHost(f, host)
			if err != nil {
				return err
			}
			store, err := f.Credentials()
			if err != nil {
				return err
			}
			tok, _, err := store.Token(h)
			if err != nil {
				return err
			}
			fmt.Fprintln(f.IO.Out, tok)
			return nil
		},
	}
	hostFlag(cmd, f, &host)
	return cmd
}

func newLogout(f *cmdutil.Factory) *cobra.Command {
	var host string
	cmd := &cobra.Command{
		Use:   "logout",
		Short: "Remove the stored token for a host",
		Args:  cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			h, err := resolveHost(f, host)
			if err != nil {
				return err
			}
			store, err := f.Credentials()
			if err != nil {
				return err
			}
			if err := store.Logout(h); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.ErrOut, "Logged out of %s.\n", h)
			return nil
		},
	}
	hostFlag(cmd, f, &host)
	return cmd
}

func newStatus(f *cmdutil.Factory) *cobra.Command {
	var host string
	var noCheck bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show where each host's token comes from, masked, and whether the service accepts it",
		Long: `For the configured hosts (base_url, events_base_url) and any host with a token
in the config file: where the token comes from, a masked form, and, unless
--no-check, whether the search service accepts it (one search request).
Exits 3 when a host has no token and 4 when the service refuses one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			hosts := knownHosts(f)
			if host != "" {
				h, err := resolveHost(f, host)
				if err != nil {
					return err
				}
				hosts = []string{h}
			}
			if len(hosts) == 0 {
				if tok := strings.TrimSpace(os.Getenv(credentials.EnvToken)); tok != "" {
					fmt.Fprintf(f.IO.Out, "TILOOKUP_TOKEN\n  - token: %s (used for every host)\n  - not checked: no base_url is configured\n", credentials.Mask(tok))
					return nil
				}
				return failure.New(failure.Config, "no host is configured and no token is stored").
					WithHint("run `tilookup config set base_url URL` and `tilookup auth login`")
			}
			store, err := f.Credentials()
			if err != nil {
				return err
			}
			searchHost, eventsHost := "", ""
			if base, _ := f.Get("base_url"); base != "" {
				searchHost, _ = credentials.HostKey(base)
			}
			if base, _ := f.Get("events_base_url"); base != "" {
				eventsHost, _ = credentials.HostKey(base)
			}
			code := 0
			for _, h := range hosts {
				lookup := func() (string, credentials.Source, error) { return store.Token(h) }
				fallback := ""
				if h == eventsHost && h != searchHost && searchHost != "" {
					// The events host uses its own entry, else the search host's.
					lookup = func() (string, credentials.Source, error) { return store.EventsToken(h, searchHost) }
					fallback = searchHost
				}
				c := status(cmd.Context(), f, h, lookup, fallback, h == searchHost && !noCheck)
				code = max(code, c)
			}
			return cmdutil.ExitWith(code)
		},
	}
	hostFlag(cmd, f, &host)
	cmd.Flags().BoolVar(&noCheck, "no-check", false, "do not check the token with the service")
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func status(ctx context.Context, f *cmdutil.Factory, host string, lookup func() (string, credentials.Source, error), fallback string, check bool) int {
	out := f.IO.Out
	fmt.Fprintln(out, host)
	tok, src, err := lookup()
	if err != nil {
		fmt.Fprintf(out, "  x %s\n", oneLine(err))
		return failure.ExitCode(err)
	}
	via := ""
	if fallback != "" {
		via = " (events host: its own entry, else the token of " + fallback + ")"
	}
	fmt.Fprintf(out, "  - token: %s (from %s)%s\n", credentials.Mask(tok), describeSource(src), via)
	if !check {
		return 0
	}
	client, err := f.Client(cmdutil.ForSearch, 1)
	if err != nil {
		fmt.Fprintf(out, "  x cannot check: %s\n", oneLine(err))
		return failure.ExitCode(err)
	}
	_, err = client.Search(ctx, "example.com", 1)
	var kinded failure.Kinded
	switch {
	case err == nil:
		fmt.Fprintln(out, "  - accepted by the service")
		return 0
	case errors.As(err, &kinded) && (kinded.FailureKind() == failure.Auth || kinded.FailureKind() == failure.Forbidden):
		fmt.Fprintf(out, "  x refused by the service: %s\n", oneLine(err))
		return failure.ExitAuth
	default:
		fmt.Fprintf(out, "  ? could not check: %s\n", oneLine(err))
		return failure.ExitCode(err)
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
