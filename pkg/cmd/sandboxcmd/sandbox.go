// Package sandboxcmd is `tilookup sandbox serve`: the built-in reference
// server, for trying tilookup and developing scripts with no account.
package sandboxcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/sandbox"
)

// NewCmd is `tilookup sandbox`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox <command>",
		Short: "Run the built-in reference server with demo data",
	}
	var addr, eventsAddr, token, faults string
	var quiet bool
	serve := &cobra.Command{
		Use:   "serve",
		Short: "Serve the search and events API on loopback until interrupted",
		Long: `Serves GET /api/ti/resources/search on --addr and GET /api/events/me on
--events-addr (the spec's two hosts), with a demo data set of documentation-
reserved addresses and public facts. Requests need the demo token as a bearer
header. --fault (or the X-Sandbox-Fault request header) injects failures; see
pkg/sandbox/FAULTS.md.`,
		Example: `  tilookup sandbox serve --addr 127.0.0.1:8080 --events-addr 127.0.0.1:8081
  curl -H "Authorization: Bearer ` + sandbox.DemoToken + `" 'http://127.0.0.1:8080/api/ti/resources/search?q=CVE-2021-44228'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts := sandbox.Options{Token: token, Faults: faults}
			if !quiet {
				opts.Log = f.IO.ErrOut
			}
			srv, err := sandbox.Start(opts, addr, eventsAddr)
			if err != nil {
				return failure.Wrap(failure.Usage, err, "cannot start the sandbox: "+err.Error())
			}
			defer srv.Close()
			tok := token
			if tok == "" {
				tok = sandbox.DemoToken
			}
			fmt.Fprintf(f.IO.Out, "search:  %s\nevents:  %s\ntoken:   %s\n\n", srv.SearchURL, srv.EventsURL, tok)
			fmt.Fprintf(f.IO.Out, "Try:     TILOOKUP_TOKEN=%s tilookup search --base-url %s --events-base-url %s 44d88612fea8a8f36de82e1278abb02f\n", tok, srv.SearchURL, srv.EventsURL)
			fmt.Fprintln(f.IO.Out, "Press Ctrl-C to stop.")
			<-c.Context().Done()
			fmt.Fprintln(f.IO.ErrOut, "Stopping the sandbox.")
			return nil
		},
	}
	fl := serve.Flags()
	fl.StringVar(&addr, "addr", "127.0.0.1:0", "search listener `address`")
	fl.StringVar(&eventsAddr, "events-addr", "127.0.0.1:0", "events listener `address`")
	fl.StringVar(&token, "token", "", "accepted bearer `token` (default: the demo token)")
	fl.StringVar(&faults, "fault", "", "fault `spec` for every request (see FAULTS.md)")
	fl.BoolVarP(&quiet, "quiet", "q", false, "do not log requests to stderr")
	cmd.AddCommand(serve)
	return cmd
}
