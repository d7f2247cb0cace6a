package push

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/push"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// The TAXII server's credentials. TILOOKUP_TOKEN is the lookup service's
// token and never goes to a TAXII server.
const (
	EnvTAXIIToken    = "TILOOKUP_TAXII_TOKEN"
	EnvTAXIIUser     = "TILOOKUP_TAXII_USER"
	EnvTAXIIPassword = "TILOOKUP_TAXII_PASSWORD"
)

// defaultWait bounds how long push taxii follows the status resources.
const defaultWait = 2 * time.Minute

// TAXIIOptions is what `push taxii` needs, as functions that tests
// replace.
type TAXIIOptions struct {
	IO *iostreams.IOStreams
	// Client builds the TAXII client for the API root, collection and
	// credentials found.
	Client func() (*push.TAXII, error)
	// Format is the output format: table (the one line) or json.
	Format func() (output.Format, error)

	File string
	push.TAXIIOptions
}

func newTAXIICmd(f *online.Factory, runF func(context.Context, *TAXIIOptions) error) *cobra.Command {
	opts := &TAXIIOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "taxii [FILE]",
		Short: "Send a STIX bundle (-o stix) to a TAXII 2.1 collection",
		Long: `Sends the objects of the STIX 2.1 bundle that search, triage or pivot -o stix
wrote (FILE, or stdin) to collection taxii_collection of the TAXII 2.1 API root
taxii_url: POST {api-root}/collections/{id}/objects/ with the envelope
{"objects": [...]}, media type application/taxii+json;version=2.1, in as many
requests as the API root's max_content_length needs (an object larger than
that alone is named as failed, not sent). Each request's status resource is
then followed until it is complete, for --wait in all (--wait 0 reports the
first answers as they are).

TAXII servers keep one copy of an object per id and modified, and the bundle
keeps its ids: pushing it again adds nothing, and a push cut off by a fault
is finished by running it again.

Auth: a bearer token, TILOOKUP_TAXII_TOKEN, else the keyring's entry for the
TAXII host (tilookup auth login --host HOST); or HTTP basic, when
TILOOKUP_TAXII_USER is set, with TILOOKUP_TAXII_PASSWORD, else the keyring's
entry for the host as the password. TILOOKUP_TOKEN never goes to TAXII.

Reports "N objects: S succeeded, F failed, P pending", each failed object
named on stderr with the server's message; -o json: the status resources'
counts and lists, added up. Exit 1 when some objects failed, 2 when the
input is not a STIX bundle, 3 with no URL, collection or credentials, 4
when the server refuses the credentials or the collection is read-only, 5
for an unknown collection, 6 when the server fails (what was sent stays).`,
		Example: `  tilookup triage -o stix report.txt | tilookup push taxii
  tilookup push taxii --taxii-url https://taxii.example/api1/ --collection 91a7b528-80eb-42ed-a74d-c6fbd5a26116 bundle.json
  tilookup push taxii --dry-run bundle.json
  TILOOKUP_TAXII_USER=analyst tilookup push taxii --wait 5m -o json bundle.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			if opts.Wait < 0 {
				return cmdutil.UsageError("--wait must not be negative")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runTAXII(cmd.Context(), opts)
		},
	}
	opts.Client = func() (*push.TAXII, error) { return taxiiClient(f) }
	opts.Format = func() (output.Format, error) { return cmdutil.ResolveFormat(f.Factory, "push") }
	settingFlag(cmd, "taxii_url", "the TAXII 2.1 API root's `URL`")
	settingFlag(cmd, "taxii_collection", "the collection's `ID`")
	networkFlags(cmd)
	fl := cmd.Flags()
	fl.DurationVar(&opts.Wait, "wait", defaultWait, "how long to follow the statuses in all")
	_ = cmd.RegisterFlagCompletionFunc("wait", cobra.FixedCompletions([]string{"0", "30s", "2m", "10m"}, cobra.ShellCompDirectiveNoFileComp))
	fl.BoolVar(&opts.DryRun, "dry-run", false, "write nothing: say what would be sent")
	return cmd
}

func runTAXII(ctx context.Context, opts *TAXIIOptions) error {
	format, err := opts.Format()
	if err != nil {
		return err
	}
	bundle, err := readInput(opts.IO, opts.File, "give the STIX bundle as FILE, or on stdin (tilookup triage -o stix FILE | tilookup push taxii)", push.ReadBundle)
	if err != nil {
		return err
	}
	client, err := opts.Client()
	if err != nil {
		return err
	}
	res, pushErr := client.Push(ctx, bundle, opts.TAXIIOptions)
	if failure.KindOf(pushErr) == failure.Interrupted {
		return interrupted(opts.IO, format, res, " (the server keeps one copy of each)")
	}
	return finish(opts.IO, res, pushErr, reportTAXII(opts.IO, format, res, pushErr), "objects", " (the server keeps one copy of each)")
}

// reportTAXII prints what a push did: the one line (each failed object,
// what is still pending and what could not be followed on stderr), or the
// JSON object. A push that failed before it sent anything prints nothing
// here: its error says it all.
func reportTAXII(ios *iostreams.IOStreams, format output.Format, res *push.TAXIIResult, pushErr error) error {
	if res == nil || (pushErr != nil && len(res.StatusIDs) == 0 && res.FailureCount == 0) {
		return nil
	}
	if format == output.JSON || format == output.NDJSON {
		return json.NewEncoder(ios.Out).Encode(res)
	}
	for _, fl := range res.Failures {
		fmt.Fprintf(ios.ErrOut, "tilookup: %s failed: %s\n", sanitize.String(fl.ID), sanitize.String(fl.Message))
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(ios.ErrOut, "tilookup: %s\n", sanitize.String(w))
	}
	if res.DryRun {
		for _, o := range res.WouldSend {
			fmt.Fprintf(ios.Out, "would send %s\n", o.ID)
		}
		_, err := fmt.Fprintf(ios.Out, "%d objects: %d would be sent in %d requests (max_content_length %d), %d failed (dry run: nothing written)\n",
			res.TotalCount, len(res.WouldSend), res.Requests, res.MaxContentLength, res.FailureCount)
		return err
	}
	if res.PendingCount > 0 {
		fmt.Fprintf(ios.ErrOut, "tilookup: %d objects still pending after --wait; the server goes on with them (status %s)\n",
			res.PendingCount, sanitize.String(strings.Join(res.StatusIDs, ", ")))
	}
	_, err := fmt.Fprintf(ios.Out, "%d objects: %d succeeded, %d failed, %d pending\n", res.TotalCount, res.SuccessCount, res.FailureCount, res.PendingCount)
	return err
}

// taxiiClient finds the API root, the collection and the credentials, and
// builds a client with the lookup client's transport rules.
func taxiiClient(f *online.Factory) (*push.TAXII, error) {
	raw, err := configured(f, "taxii_url", "TAXII API root URL")
	if err != nil {
		return nil, err
	}
	collection, err := configured(f, "taxii_collection", "TAXII collection")
	if err != nil {
		return nil, err
	}
	var auth push.TAXIIAuth
	client, err := platformClient(f, raw, func() (string, error) {
		var err error
		auth, err = taxiiAuth(f, raw)
		return auth.Token + auth.Password, err
	})
	if err != nil {
		return nil, err
	}
	return push.NewTAXII(client, collection, auth, f.UserAgent), nil
}

// taxiiAuth is HTTP basic when TILOOKUP_TAXII_USER is set, else a bearer
// token; the secret of either comes from its variable or the keyring's
// entry for the host.
func taxiiAuth(f *online.Factory, rawURL string) (push.TAXIIAuth, error) {
	if user := strings.TrimSpace(os.Getenv(EnvTAXIIUser)); user != "" {
		if strings.ContainsAny(user, ":\x00\r\n") {
			return push.TAXIIAuth{}, failure.New(failure.Config, "%s holds a character HTTP basic cannot send (a colon or a control character)", EnvTAXIIUser)
		}
		pw, err := secret(f, rawURL, EnvTAXIIPassword, "TAXII password")
		return push.TAXIIAuth{User: user, Password: pw}, err
	}
	token, err := secret(f, rawURL, EnvTAXIIToken, "TAXII token")
	return push.TAXIIAuth{Token: token}, err
}
