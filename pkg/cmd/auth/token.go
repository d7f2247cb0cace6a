package auth

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/iostreams"
)

// TokenOptions is what `auth token` and `auth logout` need.
type TokenOptions struct {
	IO        *iostreams.IOStreams
	Store     func() (TokenStore, error)
	Endpoints func() (config.Endpoints, error)

	Host string
}

// NewCmdToken is `tilookup auth token`; runF replaces the run in tests.
func NewCmdToken(f *online.Factory, runF func(context.Context, *TokenOptions) error) *cobra.Command {
	return newHostCmd(f, "token", "Print the token for a host, for scripts", tokenRun, runF)
}

// NewCmdLogout is `tilookup auth logout`; runF replaces the run in tests.
func NewCmdLogout(f *online.Factory, runF func(context.Context, *TokenOptions) error) *cobra.Command {
	return newHostCmd(f, "logout", "Remove the stored token for a host", logoutRun, runF)
}

// newHostCmd is a command about the token of one host (--host).
func newHostCmd(f *online.Factory, use, short string, run func(*TokenOptions) error, runF func(context.Context, *TokenOptions) error) *cobra.Command {
	opts := &TokenOptions{IO: f.IO, Store: storeFunc(f), Endpoints: endpointsFunc(f)}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(opts)
		},
	}
	hostFlag(cmd, f, &opts.Host)
	return cmd
}

// hostStore resolves the host of the command and opens the token store.
func hostStore(opts *TokenOptions) (string, TokenStore, error) {
	h, err := resolveHost(opts.Host, opts.Endpoints)
	if err != nil {
		return "", nil, err
	}
	store, err := opts.Store()
	return h, store, err
}

func tokenRun(opts *TokenOptions) error {
	h, store, err := hostStore(opts)
	if err != nil {
		return err
	}
	tok, _, err := store.Token(h)
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, tok)
	return nil
}

func logoutRun(opts *TokenOptions) error {
	h, store, err := hostStore(opts)
	if err != nil {
		return err
	}
	if err := store.Logout(h); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Logged out of %s.\n", h)
	return nil
}
