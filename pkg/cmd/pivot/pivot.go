// Package pivot is `tilookup pivot`: from a few indicators to their
// neighbourhood, looked up breadth-first within a budget, and drawn.
package pivot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	browsecmd "github.com/tilookup/tilookup/pkg/cmd/browse"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/export"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/ioc"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	"github.com/tilookup/tilookup/pkg/output/format"
	"github.com/tilookup/tilookup/pkg/pivot"
	"github.com/tilookup/tilookup/pkg/triage"
)

// Options are the parsed command line of one pivot and what it needs from
// its environment, as functions so that tests can replace them.
type Options struct {
	IO *iostreams.IOStreams
	// Lookups is how the values are looked up (the one chain).
	online.Lookups
	// Setting reads a config key (output, allowlist, warninglists) through
	// every layer: flag, environment, profile, file.
	Setting func(key string) (string, error)
	// Format resolves -o (cmdutil.ResolveFormat).
	Format func() (format.Name, error)
	Now    func() time.Time
	// StartPager sends stdout through the pager when it is a terminal
	// (cmdutil.StartPager); nil = never.
	StartPager func() (stop func())
	// Wait shows a spinner during the walk at a terminal
	// (online.Factory.Waiting); nil = none.
	Wait func(what string) *online.Waiting

	Values     []string
	Depth      int
	MaxLookups int
	NoDefang   bool
	NoSkip     bool
	NoRefang   bool
	TLP        string
	ToIDS      bool
	NoPager    bool

	// Interactive (-i) browses the JSON document (pkg/cmd/browse).
	Interactive bool
}

// NewCmd is `tilookup pivot`. runF replaces the run function in tests.
func NewCmd(f *online.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:      f.IO,
		Lookups: online.NewLookups(f),
		Setting: f.Get,
		Format:  func() (format.Name, error) { return cmdutil.ResolveFormat(f.Factory, "pivot") },
		Now:     time.Now,
		Wait:    f.Waiting,
	}
	opts.StartPager = func() func() { return cmdutil.StartPager(f.Factory, opts.NoPager) }
	cmd := &cobra.Command{
		Use:   "pivot VALUE...",
		Short: "Walk from indicators to their neighbourhood, and draw it",
		Long: fmt.Sprintf(`Pivot looks the VALUEs up, extracts the indicators named in their answers'
preview records and matched values (with the rules of extract), and looks
those up in turn, breadth-first: --depth levels of neighbours (default %d, at
most %d), never more than --max-lookups lookups in all (default %d, the
VALUEs included). Each indicator is looked up once. What is found goes
through the skip rules of triage (private and reserved addresses, internal
names such as .local, .internal, home.arpa and .corp, --allowlist,
--warninglists; --no-skip looks everything up), each skipped one with its
reason; what the budget left out is shown as not_looked_up.

Output (-o): at a terminal a tree that fits its width, each indicator with
its type and what matched, an indicator already shown marked and not
expanded again; json, {"nodes", "edges", "summary"}, with ids that stay the
same between runs and edges saying in which resource's preview, under which
field, a neighbour was found; dot for Graphviz (dot -Tsvg); mermaid for
GitHub and GitLab Markdown; md, a document for a ticket; html, one
self-contained page that draws the graph with no network access; stix, one
STIX 2.1 bundle whose related-to relationships join the observables (marked
with --tlp); misp, one MISP event with an attribute per matched indicator
(never a skipped, unmatched or unreached one), each edge between two of them
named in both attributes' comments (tagged with --tlp, to_ids set only with
--to-ids). Values are defanged in every drawing unless --no-defang; json,
stix and misp keep them live.

The exit status is triage's: 0 when any indicator matched, 1 when none did,
the largest error code when a lookup failed, 130 on Ctrl-C (what was found
is still written, marked incomplete).`, pivot.DefaultDepth, pivot.MaxDepth, pivot.DefaultMaxLookups),
		Example: `  tilookup pivot --sandbox 44d88612fea8a8f36de82e1278abb02f --depth 2
  tilookup pivot -o html --depth 2 --max-lookups 200 login-update.example.net > pivot.html
  tilookup pivot -o dot 203.0.113.66 | dot -Tsvg > pivot.svg
  tilookup pivot -o json 203.0.113.66 | jq -r '.nodes[] | select(.status=="matched") | .value'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.ArgErrorf("give at least one VALUE to pivot from")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Values = args
			if err := cmdutil.CheckPace(opts.Concurrency, opts.Rate); err != nil {
				return err
			}
			if opts.Depth < 0 || opts.Depth > pivot.MaxDepth {
				return cmdutil.UsageError("--depth must be between 0 and %d", pivot.MaxDepth)
			}
			if opts.MaxLookups < 1 {
				return cmdutil.UsageError("--max-lookups must be at least 1")
			}
			if opts.Limit < 0 {
				return cmdutil.UsageError("--limit must be a positive number")
			}
			do := run
			if runF != nil {
				do = runF
			}
			return browsecmd.Interactive(cmd, f, opts.Interactive, strings.Join(args, ", "), func() error { return do(cmd.Context(), opts) })
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&opts.Depth, "depth", pivot.DefaultDepth, fmt.Sprintf("levels of neighbours (`N`, 0-%d)", pivot.MaxDepth))
	fl.IntVar(&opts.MaxLookups, "max-lookups", pivot.DefaultMaxLookups, "at most `M` lookups, VALUEs included")
	fl.BoolVar(&opts.NoDefang, "no-defang", false, "keep values live in drawings")
	fl.BoolVar(&opts.NoRefang, "no-refang", false, "look the VALUEs up exactly as given")
	fl.String("allowlist", "", "skip the values, CIDR blocks, domains in `FILE`")
	fl.String("warninglists", "", "skip values on the MISP warning lists under `DIR`")
	fl.BoolVar(&opts.NoSkip, "no-skip", false, "look up all that is found (no skip rule)")
	fl.IntVar(&opts.Limit, "limit", 0, "ask for at most `N` results per value")
	cmdutil.AddPaceFlags(cmd, &opts.Concurrency, &opts.Rate, "requests in flight at once")
	fl.StringVar(&opts.TLP, "tlp", "", "-o stix, misp: mark it TLP:`LEVEL` (e.g. amber)")
	fl.BoolVar(&opts.ToIDS, "to-ids", false, "-o misp: set the attributes' to_ids flag")
	_ = cmd.RegisterFlagCompletionFunc("tlp", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return export.TLPLevels, cobra.ShellCompDirectiveNoFileComp
	})
	fl.BoolVar(&opts.NoPager, "no-pager", false, "do not send the tree through the pager")
	fl.BoolVar(&opts.Sandbox, "sandbox", false, "use the built-in demo server (no account)")
	cmdutil.AddCacheFlags(cmd, &opts.Refresh)
	_ = cmd.MarkFlagDirname("warninglists")
	browsecmd.AddInteractiveFlag(cmd, &opts.Interactive)
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	f, err := opts.Format()
	if err != nil {
		return err
	}
	// Refused before any lookup, as search and triage do.
	if err := export.CheckFlags("pivot", f, opts.TLP, opts.ToIDS); err != nil {
		return err
	}
	starts := make([]pivot.Start, 0, len(opts.Values))
	for _, v := range opts.Values {
		value, t, err := ioc.Prepare(v, !opts.NoRefang)
		if err != nil {
			return failure.Wrap(failure.KindOf(err), err, fmt.Sprintf("%q", v))
		}
		starts = append(starts, pivot.Start{Value: value, Type: t})
	}
	var skipper *triage.Skipper
	if !opts.NoSkip {
		if skipper, err = triage.ConfiguredSkipper(opts.Setting); err != nil {
			return err
		}
	}
	// The walk reads each answer's preview records from its bytes, within
	// bounds (pivot.Walk): decoding them into maps here would cost several
	// times the answer, held until the walk is done with it.
	service, err := opts.Start(online.Chain{Raw: true})
	if err != nil {
		return err
	}
	defer service.Close()
	now := opts.Now()
	wait := walkSpinner(opts.Wait)
	limitGC(os.Getenv, opts.MaxLookups)
	g, walkErr := pivot.Walk(ctx, wait.counting(service.Searcher), starts, pivot.Config{
		Depth: opts.Depth, MaxLookups: opts.MaxLookups, Concurrency: service.Concurrency(), Skipper: skipper,
	})
	wait.Stop()
	ro := pivot.RenderOptions{Defang: !opts.NoDefang, TTY: opts.IO.IsStdoutTTY(), Now: now}
	if opts.IO.IsStdoutTTY() {
		ro.Width = opts.IO.TerminalWidth()
	}
	if f == format.Table && ro.TTY && opts.StartPager != nil {
		// A walk's tree is often longer than the screen. The pager starts
		// only now, once the walk is done, so that its errors and a
		// Ctrl-C are never hidden behind it.
		stop := opts.StartPager()
		defer stop()
	}
	out := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	err = export.WriteDocument(out, ro.TTY, f, pivot.Document(g, ro), export.Options{TLP: opts.TLP, ToIDS: opts.ToIDS, Defang: ro.Defang})
	if err == nil {
		err = out.Flush()
	}
	// Output that could not be written is what the user must hear about,
	// unless they quit the pager or interrupted the walk themselves.
	if err != nil && !errors.Is(err, iostreams.ErrClosedPager) && failure.KindOf(walkErr) != failure.Interrupted {
		return failure.WriteError(err)
	}
	return walkErr
}

// walkGCBase and walkGCPerLookup make the soft memory limit of a run.
const (
	walkGCBase      = 28 << 20
	walkGCPerLookup = 1 << 10
)

// limitGC sets a soft memory limit for the run (the walk, then drawing
// the graph), unless GOMEMLIMIT or GOGC say otherwise. The walk's
// live heap stays small (the graph, the answer being read, lookup.Dedup's
// few MB of recent answers), but each answer leaves several times its
// size of garbage (its decoded records, the values it names), and at Go's
// default the heap doubled before a collection: answers of 0.86 MB took
// 43 MB of RSS, over the README's bound of 3 times an answer plus 40 MB.
// The limit grows with the budget, as the graph does, so that a large
// walk's live heap is never held against it (where the collector would
// run nonstop).
func limitGC(getenv func(string) string, maxLookups int) {
	if getenv("GOMEMLIMIT") == "" && getenv("GOGC") == "" {
		debug.SetMemoryLimit(walkGCBase + int64(maxLookups)*walkGCPerLookup)
	}
}

// spinner is the walk's spinner, counting the lookups done: nothing shows
// until the graph is drawn at the end.
type spinner struct {
	*online.Waiting
	mu   sync.Mutex
	done int
}

func walkSpinner(wait func(string) *online.Waiting) *spinner {
	s := &spinner{}
	if wait != nil {
		s.Waiting = wait("pivot: walking")
	}
	return s
}

func (s *spinner) counting(next lookup.Searcher) lookup.Searcher {
	if s.Waiting == nil {
		return next
	}
	return lookup.SearcherFunc(func(ctx context.Context, v string) (*api.SearchResponse, error) {
		resp, err := next.Search(ctx, v)
		s.mu.Lock()
		s.done++
		s.Describe(fmt.Sprintf("pivot: %d lookups done", s.done))
		s.mu.Unlock()
		return resp, err
	})
}
