// Package push is `tilookup push`: a finding handed to the team's
// platform over the wire.
package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
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
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "push <command>",
		Short: "Send a finding to MISP",
		Long: `Send what -o misp wrote to a MISP instance, idempotently: what the
instance already has is never sent again.`,
	}
	cmd.AddCommand(newMISPCmd(f, nil))
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

func newMISPCmd(f *cmdutil.Factory, runF func(context.Context, *MISPOptions) error) *cobra.Command {
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
	opts.Format = func() (output.Format, error) { return cmdutil.ResolveFormat(f, "push") }
	fl := cmd.Flags()
	// The config layer reads these from the running command's flags.
	fl.String("misp-url", "", "the MISP instance's `URL` (config misp_url)")
	fl.String("timeout", "", "per-request `duration` or seconds (default "+config.DefaultOf("timeout")+")")
	fl.String("retries", "", "`N` retries on 429/502/503/504/network (default "+config.DefaultOf("retries")+")")
	fl.Bool("debug", false, "log HTTP requests to stderr, the key redacted")
	fl.StringVar(&opts.Event, "event", "", "add the attributes to this existing event (`ID|UUID`)")
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
	if err := report(opts.IO, format, res, pushErr); err != nil {
		return err
	}
	if pushErr != nil {
		if res.NotSent > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "tilookup: %d attributes were not sent; run the same push again to send them\n", res.NotSent)
		}
		return pushErr
	}
	if len(res.Failed) > 0 {
		return &failure.Reported{Code: failure.ExitNoMatch}
	}
	return nil
}

func readEvent(opts *MISPOptions) (*push.Event, error) {
	var in io.Reader = opts.IO.In
	if opts.File != "" && opts.File != "-" {
		fh, err := cmdutil.OpenInput(opts.File)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		in = fh
	} else if opts.IO.IsStdinTTY() {
		return nil, cmdutil.UsageError("give the MISP event as FILE, or on stdin (tilookup triage -o misp FILE | tilookup push misp)")
	}
	return push.ReadEvent(in)
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

// mispClient finds the URL and the key, checks that the key may go there,
// and builds a client with the lookup client's transport rules: the same
// CA file, proxy, TLS floor, retries and time-outs.
func mispClient(f *cmdutil.Factory) (*push.MISP, error) {
	s, err := f.Settings()
	if err != nil {
		return nil, err
	}
	raw, err := f.Get("misp_url")
	if err != nil {
		return nil, err
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, failure.New(failure.Config, "no MISP URL is configured").
			WithHint("pass --misp-url, set TILOOKUP_MISP_URL, or run `tilookup config set misp_url URL`")
	}
	if k, ok := config.Lookup("misp_url"); ok {
		if err := k.Validate(raw); err != nil {
			return nil, failure.New(failure.Config, "%v", err)
		}
	}
	opts := api.Options{BaseURL: raw, Timeout: s.Timeout, Deadline: s.Deadline, Retries: s.Retries,
		MaxBody: s.MaxResponseSize, UserAgent: f.UserAgent, Debug: f.Debug()}
	// The URL is checked before the key is looked up: a key that would
	// cross the network in clear is never read.
	if err := api.CheckBaseURLs(opts, s.AllowInsecureHTTP); err != nil {
		return nil, err
	}
	guard, err := loopbackGuard(f, raw, s.AllowInsecureHTTP)
	if err != nil {
		return nil, err
	}
	transport, err := api.NewTransport(api.TransportOptions{CACertFile: s.CACert, InsecureSkipVerify: s.InsecureSkipVerify,
		HeaderTimeout: s.Timeout, Concurrency: 1, Guard: guard})
	if err != nil {
		return nil, err
	}
	opts.Transport = transport
	key, err := mispKey(f, raw)
	if err != nil {
		return nil, err
	}
	opts.Token = key // for --debug's redaction; MISP's header is push's own
	client, err := api.New(opts, s.AllowInsecureHTTP)
	if err != nil {
		return nil, err
	}
	return push.NewMISP(client, key, f.UserAgent), nil
}

// loopbackGuard pins a plain-http MISP name to the loopback addresses it
// resolves to, as the lookup client does for its base URL.
func loopbackGuard(f *cmdutil.Factory, raw string, allowInsecure bool) (*api.LoopbackGuard, error) {
	u, err := url.Parse(raw)
	if allowInsecure || err != nil || u.Scheme != "http" {
		return nil, nil
	}
	g := &api.LoopbackGuard{Resolver: f.Resolver}
	return g, g.Check(context.Background(), u.Hostname())
}

// mispKey is TILOOKUP_MISP_KEY, else the keyring's (or the opted-in
// file's) entry for the MISP host. The lookup token's variable is hidden
// from the store: it belongs to another service.
func mispKey(f *cmdutil.Factory, mispURL string) (string, error) {
	if v := strings.TrimSpace(os.Getenv(EnvMISPKey)); v != "" {
		k, err := credentials.CheckToken(v)
		if err != nil {
			return "", failure.New(failure.Config, "%s does not hold a valid key", EnvMISPKey)
		}
		return k, nil
	}
	host, err := credentials.HostKey(mispURL)
	if err != nil {
		return "", err
	}
	base, err := f.Credentials()
	if err != nil {
		return "", err
	}
	store := &credentials.Store{Keyring: base.Keyring, File: base.File, Timeout: base.Timeout, Warn: base.Warn,
		Getenv: func(k string) string {
			if k == credentials.EnvToken {
				return ""
			}
			return os.Getenv(k)
		}}
	key, _, err := store.Token(host)
	if errors.Is(err, credentials.ErrNoToken) {
		return "", failure.New(failure.Config, "no MISP key for %s", host).
			WithHint("run `tilookup auth login --host " + host + "`, or set " + EnvMISPKey)
	}
	return key, err
}
