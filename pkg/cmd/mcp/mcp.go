// Package mcp is `tilookup mcp`: the lookups as tools for AI assistants,
// over stdio (what desktop assistants launch) or Streamable HTTP on
// loopback with a bearer token.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/lookup"
	server "github.com/tilookup/tilookup/pkg/mcp"
	"github.com/tilookup/tilookup/pkg/triage"
	"github.com/tilookup/tilookup/pkg/watch"
)

// Options are the parsed command line and what it needs from its
// environment, as functions so that tests can replace them.
type Options struct {
	IO      *iostreams.IOStreams
	Version string
	// Client builds the API client for search or events.
	Client func(forWhat online.ClientFor, concurrency int) (*api.Client, error)
	// Setting reads a configuration value (flag > env > profile > file >
	// default); its error is a config file that cannot be read.
	Setting func(key string) (string, error)
	// StartSandbox runs the built-in server and points Client at it.
	StartSandbox func() (io.Closer, error)
	// Cache wraps a Searcher in the answer cache when it is on
	// (online.Factory.Cached); nil = no cache.
	Cache online.CacheFunc

	// Getenv reads the environment (the watch lists' directory).
	Getenv func(string) string
	// Scope is the profile and the base URL, which pick the watch lists.
	Scope func() (profile, baseURL string, err error)

	HTTP        string
	TokenFile   string
	Tools       []string
	Concurrency int
	Rate        float64
	Sandbox     bool
}

// NewCmd is `tilookup mcp`. runF replaces the run function in tests.
func NewCmd(f *online.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{
		IO:           f.IO,
		Version:      f.Version,
		Client:       f.Client,
		Setting:      f.Get,
		StartSandbox: f.Sandbox,
		Cache:        f.Cached,
		Getenv:       os.Getenv,
		Scope: func() (string, string, error) {
			s, err := f.Settings()
			if err != nil {
				return "", "", err
			}
			return s.Profile, s.BaseURL, nil
		},
	}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the lookups as tools for AI assistants (Model Context Protocol)",
		Long: `tilookup mcp is a Model Context Protocol server, so that an AI assistant
(Claude Desktop, VS Code, Cursor and others) can look values up and triage a
pasted report. It speaks on stdin and stdout, which is how desktop assistants
launch a server; with --http it serves Streamable HTTP on a loopback address
instead, and every request must carry the bearer token printed at start (or
read from --http-token-file, whose first line holds it).

Tools: search (one or more values), triage (a whole text), pivot, detect
and extract (offline, free), events_me, all read-only; and watch, which
checks a watch list again and updates its state as tilookup watch does.
--tools NAME,... serves only those. Prompts (investigate, triage_report,
watch_changes) write out the analyst's common tasks for an assistant; a
prompt whose tools are not served is not offered. Every answer is cut to
mcp_max_bytes (default 30KiB) with a note saying what was left out, and text
from the service is sanitised and labelled as data, not instructions.

It uses the same configuration, profile, token, proxy and CA settings as the
other commands; --sandbox serves against the built-in demo server.`,
		Example: `  tilookup mcp --sandbox                  # try it: an assistant launches this
  tilookup mcp --profile prod
  tilookup mcp --tools search,pivot,watch    # an assistant that works unattended
  tilookup mcp --http 127.0.0.1:8765 --http-token-file ~/.config/tilookup/mcp-token`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := cmdutil.CheckPace(opts.Concurrency, opts.Rate); err != nil {
				return err
			}
			if err := checkTools(opts.Tools); err != nil {
				return err
			}
			if opts.HTTP != "" {
				if err := server.CheckLoopback(opts.HTTP); err != nil {
					return cmdutil.UsageError("%v", err)
				}
			} else if opts.TokenFile != "" {
				return cmdutil.UsageError("--http-token-file only goes with --http")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return run(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.HTTP, "http", "", "serve Streamable HTTP on `127.0.0.1:PORT`")
	fl.StringVar(&opts.TokenFile, "http-token-file", "", "read the --http bearer token from `FILE`")
	fl.StringSliceVar(&opts.Tools, "tools", nil, "serve only the tools `NAME,...` (default: all)")
	_ = cmd.RegisterFlagCompletionFunc("tools", completeTools)
	cmdutil.AddPaceFlags(cmd, &opts.Concurrency, &opts.Rate, "server's lookups in flight")
	fl.BoolVar(&opts.Sandbox, "sandbox", false, "use the built-in demo server (no account)")
	cmdutil.AddNetworkFlags(cmd)
	return cmd
}

func run(ctx context.Context, opts *Options) error {
	maxBytes, err := budget(opts)
	if err != nil {
		return err
	}
	token := ""
	if opts.HTTP != "" {
		if token, err = readToken(opts.TokenFile); err != nil {
			return err
		}
	}
	if opts.Sandbox {
		srv, err := opts.StartSandbox()
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	c := &clients{opts: opts}
	s := server.New(server.Config{
		Version:     opts.Version,
		Searcher:    c.searcher,
		EventsMe:    c.eventsMe,
		Skipper:     c.skipper,
		MaxBytes:    maxBytes,
		Concurrency: opts.Concurrency,
		Watch:       c.watch,
		Tools:       opts.Tools,
	})
	if opts.HTTP != "" {
		return serveHTTP(ctx, opts, s, token)
	}
	return serveStdio(ctx, opts, s)
}

// checkTools refuses a --tools name the server does not have, naming
// those it has.
func checkTools(names []string) error {
	known := server.ToolNames()
	if names != nil && len(names) == 0 {
		return cmdutil.UsageError("--tools needs at least one of: %s", strings.Join(known, ", "))
	}
	for _, n := range names {
		if !slices.Contains(known, n) {
			return cmdutil.UsageError("--tools: unknown tool %q: the tools are %s", n, strings.Join(known, ", "))
		}
	}
	return nil
}

// completeTools completes the values of --tools, one name after each
// comma, leaving out those already given.
func completeTools(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	given, _ := cutLast(toComplete)
	var out []string
	for _, n := range server.ToolNames() {
		if !slices.Contains(strings.Split(given, ","), n) {
			out = append(out, given+n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// cutLast splits "a,b,c" into "a,b," and "c".
func cutLast(s string) (head, last string) {
	i := strings.LastIndex(s, ",")
	return s[:i+1], s[i+1:]
}

// budget reads mcp_max_bytes; a config file that cannot be read stops the
// server before it starts, while a missing base URL or token only fails
// the tools that call the service.
func budget(opts *Options) (int, error) {
	v, err := opts.Setting("mcp_max_bytes")
	if err != nil {
		return 0, err
	}
	n, err := config.ParseSize(v)
	if err != nil || n < server.MinMaxBytes {
		return 0, failure.New(failure.Config, "invalid mcp_max_bytes %q: want a size of at least %d bytes, such as 30KiB", v, server.MinMaxBytes)
	}
	return int(min(n, 1<<30)), nil
}

// readToken is the bearer token of --http: the file's first line, or a
// fresh one.
func readToken(file string) (string, error) {
	if file == "" {
		return server.NewToken(), nil
	}
	b, err := readSecret(file)
	if err != nil {
		return "", err
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	tok = strings.TrimSpace(tok)
	if len(tok) < 16 {
		return "", failure.New(failure.Config, "%s: the token must be at least 16 characters on the first line", file)
	}
	return tok, nil
}

// maxTokenFile bounds what is read of --http-token-file: a token is a
// line, and a link to /dev/zero must not fill the memory.
const maxTokenFile = 4 << 10

// readSecret reads a file that holds a secret, as ssh reads a key: a
// regular file (opened without blocking, so that a FIFO is refused rather
// than waited on), that no one else may read or change, of at most
// maxTokenFile bytes.
func readSecret(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, cmdutil.CannotRead(file, err).Error())
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, cmdutil.CannotRead(file, err).Error())
	}
	if !fi.Mode().IsRegular() {
		return nil, failure.New(failure.Config, "%s is not a regular file (%s): the token file must be one", file, fi.Mode().Type())
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, failure.New(failure.Config, "%s: permissions %04o are too open: the token must be readable by you only (chmod 600 %s)", file, perm, file)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, failure.Wrap(failure.Config, err, cmdutil.CannotRead(file, err).Error())
	}
	if len(b) > maxTokenFile {
		return nil, failure.New(failure.Config, "%s is larger than %d bytes: the token file holds the token on its first line", file, maxTokenFile)
	}
	return b, nil
}

type clients struct {
	opts   *Options
	mu     sync.Mutex
	search *api.Client
	events *api.Client
	skip   *triage.Skipper
}

// skipper is triage's skip rules as the CLI's triage builds them: the
// noise, and the allow-list and MISP warning lists of the configuration.
func (c *clients) skipper() (*triage.Skipper, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.skip != nil {
		return c.skip, nil
	}
	s, err := triage.ConfiguredSkipper(c.opts.Setting)
	if err != nil {
		return nil, err
	}
	c.skip = s
	return s, nil
}

func (c *clients) searcher(limit int) (lookup.Searcher, error) {
	cl, err := c.get(&c.search, online.ForSearch, c.opts.Concurrency)
	if err != nil {
		return nil, err
	}
	// Raw: the answer's bytes and its count only. The server reads them
	// as a stream within its own bounds (pkg/mcp, digest.go), so that no
	// answer is decoded whole: 10M results, or a preview record of 1M
	// keys, cost their bytes, not gigabytes of maps (issue 28).
	return online.ServiceSearcher(cl, limit, true, false, c.opts.Cache), nil
}

// watch is the watch lists of this profile and base URL (the sandbox's
// with --sandbox), as tilookup watch finds them, and the service without
// the answer cache: a watch run must ask the service.
func (c *clients) watch() (watch.Store, lookup.Searcher, error) {
	st, _, _, err := watch.StoreFor(c.opts.Getenv, c.opts.Sandbox, c.opts.Scope)
	if err != nil {
		return watch.Store{}, nil, err
	}
	cl, err := c.get(&c.search, online.ForSearch, c.opts.Concurrency)
	if err != nil {
		return watch.Store{}, nil, err
	}
	return st, online.ServiceSearcher(cl, 0, true, false, nil), nil
}

func (c *clients) eventsMe(ctx context.Context) ([]byte, error) {
	cl, err := c.get(&c.events, online.ForEvents, 1)
	if err != nil {
		return nil, err
	}
	return cl.EventsMe(ctx)
}

func (c *clients) get(slot **api.Client, forWhat online.ClientFor, concurrency int) (*api.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *slot != nil {
		return *slot, nil
	}
	cl, err := c.opts.Client(forWhat, concurrency)
	if err != nil {
		return nil, err
	}
	if err := cl.SetRate(c.opts.Rate); err != nil {
		return nil, err
	}
	*slot = cl
	return cl, nil
}

// serveStdio speaks MCP on stdin and stdout until the client closes stdin
// or the user interrupts.
func serveStdio(ctx context.Context, opts *Options, s *sdk.Server) error {
	if opts.IO.IsStdinTTY() {
		fmt.Fprintln(opts.IO.ErrOut, "tilookup mcp speaks the Model Context Protocol on stdin and stdout: an assistant launches it (see tilookup mcp --help). Press Ctrl-C to stop.")
	}
	err := serveIO(ctx, s, opts.IO.In, opts.IO.Out)
	if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
		return nil
	}
	return failure.Wrap(failure.IO, err, "mcp: "+err.Error())
}

// serveHTTP serves Streamable HTTP on the loopback address until the user
// interrupts.
func serveHTTP(ctx context.Context, opts *Options, s *sdk.Server, token string) error {
	addr := opts.HTTP
	if host, port, _ := net.SplitHostPort(addr); host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return failure.Wrap(failure.Usage, err, fmt.Sprintf("cannot listen on %s: %v", opts.HTTP, errors.Unwrap(err)))
	}
	srv := &http.Server{Handler: server.HTTPHandler(s, token), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(opts.IO.ErrOut, "MCP server (Streamable HTTP): http://%s%s\n", ln.Addr(), server.Path)
	if opts.TokenFile == "" {
		fmt.Fprintf(opts.IO.ErrOut, "Bearer token: %s\n", token)
	} else {
		fmt.Fprintf(opts.IO.ErrOut, "Bearer token: the first line of %s\n", opts.TokenFile)
	}
	fmt.Fprintln(opts.IO.ErrOut, "Press Ctrl-C to stop.")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return failure.Wrap(failure.Network, err, "mcp: "+err.Error())
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	fmt.Fprintln(opts.IO.ErrOut, "Stopping the MCP server.")
	return nil
}
