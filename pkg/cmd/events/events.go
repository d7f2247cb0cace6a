// Package events is `tilookup events me`.
package events

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
)

// MeOptions is what `events me` needs, as small functions so that tests can
// run it with no config, network or terminal.
type MeOptions struct {
	IO *iostreams.IOStreams

	// StartSandbox points the calls at the built-in demo server.
	StartSandbox func() (io.Closer, error)
	// Fetch calls GET /api/events/me and returns the body as sent.
	Fetch func(ctx context.Context) ([]byte, error)
	// Output resolves the format and terminal facts (cmdutil.OutputOptions).
	Output func(jq string) (output.Options, error)
	// StartPager sends IO.Out through the pager; the returned function waits
	// for the user to quit it.
	StartPager func(noPager bool) (stop func())

	Sandbox bool
	JQ      string
	NoPager bool
}

// NewCmd is `tilookup events`.
func NewCmd(f *online.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "events <command>",
		Short: "Call the service's events endpoints",
	}
	cmd.AddCommand(newMeCmd(f, nil))
	return cmd
}

// newMeCmd is `tilookup events me`; runF replaces runMe in tests.
func newMeCmd(f *online.Factory, runF func(context.Context, *MeOptions) error) *cobra.Command {
	opts := &MeOptions{
		IO:           f.IO,
		StartSandbox: f.Sandbox,
		Fetch: func(ctx context.Context) ([]byte, error) {
			client, err := f.Client(online.ForEvents, 1)
			if err != nil {
				return nil, err
			}
			// Nothing shows until the answer: a spinner says the wait
			// is on, at a terminal.
			w := f.Waiting("fetching your events")
			defer w.Stop()
			return client.EventsMe(ctx)
		},
		Output:     func(jq string) (output.Options, error) { return cmdutil.OutputOptions(f.Factory, "events", jq) },
		StartPager: func(noPager bool) func() { return cmdutil.StartPager(f.Factory, noPager) },
	}
	me := &cobra.Command{
		Use:   "me",
		Short: "Show the current caller's events (GET /api/events/me)",
		Long: `Calls GET /api/events/me on events_base_url (default: base_url) with the token as
a bearer header and as the events_cookie_name cookie (default jwt), and renders
whatever JSON comes back, keeping the server's key order and exact numbers.

Table output: an object prints as "key: value" lines, nested objects as dotted
keys (user.name) and lists joined, then a table for each list of objects; a
table too wide for the terminal prints each record as "key: value" lines.
-o csv: one row per element of the payload's main list, with dotted columns.
-o json: the body exactly as received. On a terminal, long output goes through
the pager (TILOOKUP_PAGER, the pager config key, PAGER, else less -FRX).`,
		Example: `  tilookup events me
  tilookup events me -o csv | column -s, -t
  tilookup events me -o json | jq '.events[] | select(.severity == "critical")'
  tilookup events me --sandbox`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMe(cmd.Context(), opts)
		},
	}
	me.Flags().BoolVar(&opts.Sandbox, "sandbox", false, "run against the built-in demo server")
	me.Flags().StringVar(&opts.JQ, "jq", "", "filter the JSON output with a jq `expression`")
	me.Flags().BoolVar(&opts.NoPager, "no-pager", false, "do not send long output through the pager")
	cmdutil.AddNetworkFlags(me)
	return me
}

func runMe(ctx context.Context, opts *MeOptions) error {
	if opts.Sandbox {
		srv, err := opts.StartSandbox()
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	// A bad format fails before any network work.
	if o, err := opts.Output(opts.JQ); err != nil {
		return err
	} else if err := output.CheckFormat("events", o.Format); err != nil {
		return err
	}
	body, err := opts.Fetch(ctx)
	if err != nil {
		return err
	}
	// The pager starts once there is something to show, so that errors and
	// the wait for the network stay on the plain terminal.
	stop := opts.StartPager(opts.NoPager)
	outOpts, err := opts.Output(opts.JQ)
	if err == nil {
		err = output.PrintEvents(outOpts, body)
	}
	stop()
	if errors.Is(err, iostreams.ErrClosedPager) {
		return nil // the user quit the pager: the rest was not wanted
	}
	return err
}
