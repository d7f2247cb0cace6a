// Package sandboxcmd is `tilookup sandbox serve`: the built-in reference
// server, for trying tilookup and developing scripts with no account.
package sandboxcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// ServeOptions are the parsed command line of `sandbox serve`.
type ServeOptions struct {
	Out, ErrOut io.Writer

	Addr, EventsAddr string
	Token            string // accepted bearer token; "" is the demo token
	Faults           string
	Quiet            bool
}

// NewCmd is `tilookup sandbox`. runF replaces serve's run function in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *ServeOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox <command>",
		Short: "Run the built-in reference server with demo data",
	}
	opts := &ServeOptions{Out: f.IO.Out, ErrOut: f.IO.ErrOut}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve the search and events API on loopback until interrupted",
		Long: `Serves GET /api/ti/resources/search on --addr and GET /api/events/me on
--events-addr (the spec's two hosts), with a demo data set of documentation-
reserved addresses and public facts. Requests need the demo token as a bearer
header. --fault (or the X-Sandbox-Fault request header, for one request)
injects failures.

A fault spec is clauses joined by ";", at most one action and any modifiers:
  actions    status=N (or just N), reset, reset=mid, truncate, malformed,
             html, html-latin1, huge=MiB, empty, array, slow-drip[=D],
             redirect-loop, redirect=URL, invisible, escape
  modifiers  latency=D, content-type=T, retry-after=S, retry-after-date[=S],
             times=N (only the first N requests of each value),
             rate=P (only the values whose FNV-1a hash is below P of 2^32)
For example 'status=503;times=2' fails every value twice, then answers.
The README's section "The sandbox" has the details.`,
		Example: `  tilookup sandbox serve --addr 127.0.0.1:8080 --events-addr 127.0.0.1:8081
  curl -H "Authorization: Bearer ` + sandbox.DemoToken + `" 'http://127.0.0.1:8080/api/ti/resources/search?q=CVE-2021-44228'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return serve(c.Context(), opts)
		},
	}
	fl := serve.Flags()
	fl.StringVar(&opts.Addr, "addr", "127.0.0.1:0", "search listener `address`")
	fl.StringVar(&opts.EventsAddr, "events-addr", "127.0.0.1:0", "events listener `address`")
	fl.StringVar(&opts.Token, "token", "", "accepted bearer `token` (default: the demo token)")
	fl.StringVar(&opts.Faults, "fault", "", "fault `spec` for every request (see above)")
	fl.BoolVarP(&opts.Quiet, "quiet", "q", false, "do not log requests to stderr")
	cmd.AddCommand(serve)
	return cmd
}

// serve runs the sandbox until ctx ends.
func serve(ctx context.Context, opts *ServeOptions) error {
	so := sandbox.Options{Token: opts.Token, Faults: opts.Faults}
	if !opts.Quiet {
		so.Log = opts.ErrOut
	}
	srv, err := sandbox.Start(so, opts.Addr, opts.EventsAddr)
	if err != nil {
		return failure.Wrap(failure.Usage, err, "cannot start the sandbox: "+err.Error())
	}
	defer srv.Close()
	tok := opts.Token
	if tok == "" {
		tok = sandbox.DemoToken
	}
	fmt.Fprintf(opts.Out, "search:  %s\nevents:  %s\ntoken:   %s\n\n", srv.SearchURL, srv.EventsURL, tok)
	fmt.Fprintf(opts.Out, "Try:     TILOOKUP_TOKEN=%s tilookup search --base-url %s --events-base-url %s 44d88612fea8a8f36de82e1278abb02f\n", tok, srv.SearchURL, srv.EventsURL)
	fmt.Fprintln(opts.Out, "Press Ctrl-C to stop.")
	<-ctx.Done()
	fmt.Fprintln(opts.ErrOut, "Stopping the sandbox.")
	return nil
}
