// Package push is `tilookup push`: a finding handed to the team's
// platform over the wire.
package push

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/push"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// EnvMISPKey is the MISP key's environment variable. TILOOKUP_TOKEN is the
// lookup service's token and never goes to MISP.
const EnvMISPKey = "TILOOKUP_MISP_KEY"

// NewCmd is `tilookup push`.
func NewCmd(f *online.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "push <command>",
		Short: "Send a finding to MISP or a TAXII 2.1 server",
		Long: `Send what -o misp wrote to a MISP instance, or what -o stix wrote to a
TAXII 2.1 collection (OpenCTI's among them), idempotently: what the platform
already has is never duplicated, so a push cut off by a fault is finished by
running it again.`,
	}
	cmd.AddCommand(newMISPCmd(f, nil), newTAXIICmd(f, nil))
	return cmd
}

// MISPOptions is what `push misp` needs, as functions that tests replace.
type MISPOptions struct {
	IO *iostreams.IOStreams
	// Client builds the MISP client for the URL and key found.
	Client func() (*push.MISP, error)
	// Format is the output format: table (the one line) or json.
	Format func() (output.Format, error)

	File string
	push.MISPOptions
}

func newMISPCmd(f *online.Factory, runF func(context.Context, *MISPOptions) error) *cobra.Command {
	opts := &MISPOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "misp [FILE]",
		Short: "Send a MISP event (-o misp) to a MISP instance",
		Long: `Sends the MISP event that search, triage or pivot -o misp wrote (FILE, or
stdin) to misp_url with MISP's REST API. An event MISP already has (the same
uuid) gets only the attributes it lacks (matched by uuid, or by type and
value): pushing the same document again adds nothing, and a push cut off by
a fault is completed by running it again.

The key is TILOOKUP_MISP_KEY, else the keyring's entry for the MISP host
(tilookup auth login --host HOST). TILOOKUP_TOKEN never goes to MISP.

Reports "event UUID (id N): A attributes added, E already there, F failed";
-o json: {"event_id", "event_uuid", "added", "existing", "failed"}.
Exit 1 when MISP refused some attributes (they are named), 2 when the input
is not a MISP event, 3 with no URL or key, 4 when MISP refuses the key, 5
for an unknown --event, 6 when the instance fails (what was added stays).`,
		Example: `  tilookup triage -o misp report.txt | tilookup push misp
  tilookup push misp --misp-url https://misp.example event.json
  tilookup push misp --event 1234 --dry-run event.json
  tilookup push misp --publish -o json event.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMISP(cmd.Context(), opts)
		},
	}
	opts.Client = func() (*push.MISP, error) { return mispClient(f) }
	opts.Format = func() (output.Format, error) { return cmdutil.ResolveFormat(f.Factory, "push") }
	settingFlag(cmd, "misp_url", "the MISP instance's `URL`")
	networkFlags(cmd)
	fl := cmd.Flags()
	fl.StringVar(&opts.Event, "event", "", "add the attributes to this existing event (`ID|UUID`)")
	_ = cmd.RegisterFlagCompletionFunc("event", cobra.NoFileCompletions)
	fl.BoolVar(&opts.DryRun, "dry-run", false, "write nothing: say what would be added")
	fl.BoolVar(&opts.Publish, "publish", false, "publish the event once its attributes are in")
	return cmd
}

func runMISP(ctx context.Context, opts *MISPOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	ev, err := readEvent(opts)
	if err != nil {
		return err
	}
	client, err := opts.Client()
	if err != nil {
		return err
	}
	res, pushErr := client.Push(ctx, ev, opts.MISPOptions)
	if failure.KindOf(pushErr) == failure.Interrupted {
		return interrupted(opts.IO, format, res, "")
	}
	return finish(opts.IO, res, pushErr, report(opts.IO, format, res, pushErr), "attributes", "")
}

func readEvent(opts *MISPOptions) (*push.Event, error) {
	return readInput(opts.IO, opts.File, "give the MISP event as FILE, or on stdin (tilookup triage -o misp FILE | tilookup push misp)", push.ReadEvent)
}

// report prints what a push did: the one line (and each refused attribute
// on stderr), or the JSON object. A push that failed before it knew the
// event prints nothing here: its error says it all.
func report(ios *iostreams.IOStreams, format output.Format, res *push.MISPResult, pushErr error) error {
	if res == nil || (pushErr != nil && res.EventID == "" && res.Added == 0) {
		return nil
	}
	if format == output.JSON || format == output.NDJSON {
		enc := json.NewEncoder(ios.Out)
		return enc.Encode(res)
	}
	for _, fl := range res.Failed {
		fmt.Fprintf(ios.ErrOut, "tilookup: MISP refused attribute %s (%s): %s\n", fl.UUID, sanitize.String(fl.Value), sanitize.String(fl.Error))
	}
	id := "id " + res.EventID
	if res.NewEvent {
		id = "new"
	}
	if res.DryRun {
		for _, a := range res.WouldAdd {
			fmt.Fprintf(ios.Out, "would add %s %s\n", a.Type, sanitize.String(a.Value))
		}
		_, err := fmt.Fprintf(ios.Out, "event %s (%s): %d attributes would be added, %d already there (dry run: nothing written)\n",
			res.EventUUID, id, len(res.WouldAdd), res.Existing)
		return err
	}
	line := fmt.Sprintf("event %s (%s): %d attributes added, %d already there, %d failed", res.EventUUID, id, res.Added, res.Existing, len(res.Failed))
	if res.Published {
		line += ", published"
	}
	_, err := fmt.Fprintln(ios.Out, line)
	return err
}

// mispClient finds the URL and the key, and builds a client with the
// lookup client's transport rules.
func mispClient(f *online.Factory) (*push.MISP, error) {
	return newMISP(f, func(raw string) (string, error) { return secret(f, raw, EnvMISPKey, "MISP key") })
}

// CheckMISPKey asks the MISP instance of misp_url whether it takes key
// (GET /users/view/me), as auth login does before it stores a key for
// that host: an error of kind Auth when MISP refuses it.
func CheckMISPKey(ctx context.Context, f *online.Factory, key string) error {
	m, err := newMISP(f, func(string) (string, error) { return key, nil })
	if err != nil {
		return err
	}
	return m.CheckKey(ctx)
}

// newMISP builds the MISP client for misp_url with the key that key finds
// for it.
func newMISP(f *online.Factory, key func(rawURL string) (string, error)) (*push.MISP, error) {
	raw, err := configured(f, "misp_url", "MISP URL")
	if err != nil {
		return nil, err
	}
	var k string
	client, err := platformClient(f, raw, func() (string, error) {
		var err error
		k, err = key(raw)
		return k, err
	})
	if err != nil {
		return nil, err
	}
	return push.NewMISP(client, k, f.UserAgent), nil
}
