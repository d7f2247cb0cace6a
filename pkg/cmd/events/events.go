// Package events is `tilookup events me`.
package events

import (
	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/output"
)

// NewCmd is `tilookup events`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "events <command>",
		Short: "Call the service's events endpoints",
	}
	var sandbox bool
	var jq string
	me := &cobra.Command{
		Use:   "me",
		Short: "Show the current caller's events (GET /api/events/me)",
		Long: `Calls GET /api/events/me on events_base_url (default: base_url) with the token as
a bearer header and as the events_cookie_name cookie (default jwt), and renders
whatever JSON comes back: an array of objects as a table, an object as
key/value rows plus a table for each of its arrays of objects.`,
		Example: `  tilookup events me
  tilookup events me -o json | jq .
  tilookup events me --sandbox`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sandbox {
				srv, err := f.StartSandbox()
				if err != nil {
					return err
				}
				defer srv.Close()
			}
			opts, err := cmdutil.OutputOptions(f, jq)
			if err != nil {
				return err
			}
			if err := cmdutil.NoDocument(opts.Format); err != nil {
				return err
			}
			client, err := f.Client(cmdutil.ForEvents, 1)
			if err != nil {
				return err
			}
			body, err := client.EventsMe(cmd.Context())
			if err != nil {
				return err
			}
			return output.PrintEvents(opts, body)
		},
	}
	me.Flags().BoolVar(&sandbox, "sandbox", false, "run against the built-in demo server")
	me.Flags().StringVar(&jq, "jq", "", "filter the JSON output with a jq `expression`")
	cmdutil.AddNetworkFlags(me)
	cmd.AddCommand(me)
	return cmd
}
