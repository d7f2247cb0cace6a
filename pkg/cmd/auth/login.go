package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	pushcmd "github.com/tilookup/tilookup/pkg/cmd/push"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// maxTokenInput bounds what --with-token reads from stdin.
const maxTokenInput = 64 << 10

// LoginOptions is what `auth login` needs.
type LoginOptions struct {
	IO        *iostreams.IOStreams
	Store     func() (TokenStore, error)
	Endpoints func() (config.Endpoints, error)
	// Prompt reads the token from the terminal without echo.
	Prompt func() (string, error)
	// Verify sends token to GET /api/events/me on the events host.
	Verify func(ctx context.Context, token string) error
	// Probe asks the same with no one's token, to tell a wrong
	// events_base_url from a caller with no event record (both 404).
	Probe func(ctx context.Context) error
	// MISPHost is the host of misp_url, "" when none is set: a key for
	// it is checked by VerifyMISP (MISP's GET /users/view/me) instead.
	MISPHost   func() string
	VerifyMISP func(ctx context.Context, key string) error

	Host      string
	WithToken bool
	Insecure  bool
	NoVerify  bool
}

// NewCmdLogin is `tilookup auth login`; runF replaces the run in tests.
func NewCmdLogin(f *online.Factory, runF func(context.Context, *LoginOptions) error) *cobra.Command {
	opts := &LoginOptions{
		IO:        f.IO,
		Store:     storeFunc(f),
		Endpoints: endpointsFunc(f),
		Verify:    verifier(f),
		Probe:     prober(f),
		MISPHost:  mispHost(f),
		VerifyMISP: func(ctx context.Context, key string) error {
			return pushcmd.CheckMISPKey(ctx, f, key)
		},
	}
	opts.Prompt = func() (string, error) {
		b, err := f.IO.ReadPassword()
		return string(b), err
	}
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Store a token for a host",
		Long: `Prompts for the token without echo, or reads it from stdin with --with-token,
and stores it in the OS keyring under service "tilookup", user HOST.

Before prompting, login checks that the token can be stored (the keyring
answers, or --insecure-storage). Before storing, it checks the token with
GET /api/events/me on the events host: a 401 refuses it (exit 4) and
nothing is stored; 200, 403 and 404 mean the service knows the token, except
a 404 that the same request with no one's token gets too: then
events_base_url does not point to the events service, and nothing is stored
(exit 3). When the service cannot be reached, the token is stored with a
warning.

When HOST is misp_url's host, the key is checked with MISP's
GET /users/view/me instead, and nothing that MISP refuses is stored (exit 4).`,
		Example: `  tilookup auth login
  tilookup auth login --host ti.example.com
  tilookup auth login --host misp.example   # a MISP key, for push misp
  printenv TI_TOKEN | tilookup auth login --with-token
  tilookup auth login --insecure-storage   # no keyring: the config file (0600)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return loginRun(cmd.Context(), opts)
		},
	}
	hostFlag(cmd, f, &opts.Host)
	cmd.Flags().BoolVar(&opts.WithToken, "with-token", false, "read the token from stdin")
	cmd.Flags().BoolVar(&opts.Insecure, "insecure-storage", false, "store the token in the config file (plain text)")
	cmd.Flags().BoolVar(&opts.NoVerify, "no-verify", false, "store the token without checking it")
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

// loginRun decides where the token goes before asking for it, checks it,
// and only then stores it.
func loginRun(ctx context.Context, opts *LoginOptions) error {
	h, err := resolveHost(opts.Host, opts.Endpoints)
	if err != nil {
		return err
	}
	store, err := opts.Store()
	if err != nil {
		return err
	}
	if err := store.CanStore(h, opts.Insecure); err != nil {
		return err
	}
	raw, err := readToken(opts, h)
	if err != nil {
		return err
	}
	token, err := credentials.CheckToken(raw)
	if err != nil {
		return err
	}
	checked := "not checked with the service"
	if !opts.NoVerify {
		if checked, err = verify(ctx, opts, h, token); err != nil {
			return err
		}
	}
	warning, err := store.Login(h, token, opts.Insecure)
	if err != nil {
		return err
	}
	if warning != "" {
		fmt.Fprintln(opts.IO.ErrOut, "Warning: "+warning)
	}
	where := "the OS keyring"
	if opts.Insecure {
		where = "the config file"
	}
	fmt.Fprintf(opts.IO.ErrOut, "Logged in to %s (token stored in %s; %s).\n", h, where, checked)
	return nil
}

// verify asks the events host about the token, when that host is one the
// token may go to. It returns what to tell the user, or an error when the
// service refused the token.
func verify(ctx context.Context, opts *LoginOptions, host, token string) (string, error) {
	if opts.MISPHost != nil && host == opts.MISPHost() {
		return verifyMISP(ctx, opts, host, token)
	}
	e, err := opts.Endpoints()
	if err != nil {
		return "", err
	}
	search, events := hosts(e)
	if host != events && !(host == search && e.Paired) {
		reason := host + " is not the events host of the configuration"
		if host == search {
			reason = "events_base_url is not in the same scope as base_url, so this token is not sent there"
		}
		warn(opts, "the token was not checked: "+reason)
		return "not checked with the service", nil
	}
	err = opts.Verify(ctx, token)
	switch failure.KindOf(err) {
	case "":
		return "accepted by the service", nil
	case failure.NotFound:
		if err := noEventsEndpoint(ctx, e, opts.Probe); err != nil {
			return "", err.WithHint("nothing was stored; run `tilookup config set events_base_url URL`, or use --no-verify to store the token anyway")
		}
		return "known to the service", nil
	case failure.Forbidden:
		return "known to the service", nil
	case failure.Auth:
		return "", failure.New(failure.Auth, "the events service at %s refused the token (%s); nothing was stored", sanitize.String(e.EventsURL), refusal(err)).
			WithHint("check that it is the token for " + host + ", or use --no-verify to store it anyway")
	}
	warn(opts, "the token could not be checked ("+oneLine(err)+"); it is stored anyway: `tilookup auth status` checks it again")
	return "not checked: the service could not be reached", nil
}

// verifyMISP asks MISP about the key. MISP answers a refused key with 403
// "Authentication failed" (push reads it as an Auth error); a key MISP
// could not be asked about is stored with a warning, as a token is when
// the events service cannot be reached.
func verifyMISP(ctx context.Context, opts *LoginOptions, host, key string) (string, error) {
	err := opts.VerifyMISP(ctx, key)
	switch failure.KindOf(err) {
	case "":
		return "accepted by MISP", nil
	case failure.Auth:
		return "", failure.New(failure.Auth, "MISP at %s refused the key (%s); nothing was stored", host, refusal(err)).
			WithHint("check that it is the key of an API-enabled MISP user, or use --no-verify to store it anyway")
	}
	warn(opts, "the key could not be checked with MISP ("+oneLine(err)+"); it is stored anyway")
	return "not checked: MISP could not be reached", nil
}

// mispHost is the host key of misp_url, "" when none is set.
func mispHost(f *online.Factory) func() string {
	return func() string {
		raw, err := f.Get("misp_url")
		if err != nil || strings.TrimSpace(raw) == "" {
			return ""
		}
		h, _ := credentials.HostKey(strings.TrimSpace(raw))
		return h
	}
}

// refusal is the status and the server's own words, without the advice an
// API error carries for lookups ("run auth login"), which is wrong here.
func refusal(err error) string {
	var apiErr *api.APIError
	if errors.As(err, &apiErr) && apiErr.Status != 0 {
		if apiErr.Message != "" {
			return fmt.Sprintf("%d: %s", apiErr.Status, apiErr.Message)
		}
		return fmt.Sprintf("%d %s", apiErr.Status, http.StatusText(apiErr.Status))
	}
	return oneLine(err)
}

func warn(opts *LoginOptions, msg string) { fmt.Fprintln(opts.IO.ErrOut, "Warning: "+msg) }

func readToken(opts *LoginOptions, host string) (string, error) {
	if opts.WithToken {
		b, err := io.ReadAll(io.LimitReader(opts.IO.In, maxTokenInput+1))
		if err != nil {
			return "", failure.New(failure.Usage, "cannot read the token from stdin: %v", err)
		}
		if len(b) > maxTokenInput {
			return "", failure.New(failure.Usage, "the token on stdin is larger than %d KiB", maxTokenInput>>10)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if !opts.IO.IsStdinTTY() {
		return "", failure.New(failure.Usage, "stdin is not a terminal, so there is no prompt").
			WithHint("pipe the token with --with-token, or set TILOOKUP_TOKEN")
	}
	fmt.Fprintf(opts.IO.ErrOut, "Paste the token for %s: ", host)
	s, err := opts.Prompt()
	fmt.Fprintln(opts.IO.ErrOut)
	if err != nil {
		return "", failure.New(failure.Usage, "cannot read the token: %v", err)
	}
	return strings.TrimSpace(s), nil
}
