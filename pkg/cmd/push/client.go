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
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/credentials"
	"github.com/tilookup/tilookup/pkg/failure"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
	"github.com/tilookup/tilookup/pkg/sanitize"
)

// networkFlags are the lookup client's settings that a push honours too:
// the config layer reads them from the running command's flags.
func networkFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.String("timeout", "", "per-request `duration` or seconds (default "+config.DefaultOf("timeout")+")")
	fl.String("retries", "", "`N` retries on 429/502/503/504/network (default "+config.DefaultOf("retries")+")")
	fl.Bool("debug", false, "log HTTP requests to stderr, credentials redacted")
}

// settingFlag is the flag of a config key that says where a push goes.
func settingFlag(cmd *cobra.Command, key, what string) {
	k, _ := config.Lookup(key)
	cmd.Flags().String(k.Flag, "", what+" (config "+key+")")
	_ = cmd.RegisterFlagCompletionFunc(k.Flag, cobra.NoFileCompletions)
}

// readInput is FILE, or stdin when there is none (or "-"); a terminal on
// stdin is a usage error that says what to give.
func readInput[T any](ios *iostreams.IOStreams, file, usage string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	var in io.Reader = ios.In
	if file != "" && file != "-" {
		fh, err := cmdutil.OpenInput(file)
		if err != nil {
			return zero, err
		}
		defer fh.Close()
		in = fh
	} else if ios.IsStdinTTY() {
		return zero, cmdutil.UsageError("%s", usage)
	}
	return read(in)
}

// outcome is what a push's result says about how it ended.
type outcome interface {
	Unsent() int
	Refused() int
	// Progress says how far it got: what was sent, what is pending.
	Progress() string
}

// interrupted ends a push that Ctrl-C (SIGTERM, SIGHUP) stopped as every
// interrupted run of tilookup ends: one line on stderr that says how far
// it got and how to go on, and exit 130; the interrupt itself is not
// printed again. -o json still gets the result, for a script.
func interrupted(ios *iostreams.IOStreams, format output.Format, res outcome, why string) error {
	if format == output.JSON || format == output.NDJSON {
		if err := json.NewEncoder(ios.Out).Encode(res); err != nil {
			return failure.WriteError(err)
		}
	}
	if ios.IsStderrTTY() {
		// The terminal echoed ^C where the cursor was: start a line of
		// our own.
		fmt.Fprintln(ios.ErrOut)
	}
	fmt.Fprintf(ios.ErrOut, "interrupted: %s; to go on, run the same push again%s\n", sanitize.String(res.Progress()), why)
	return &failure.Reported{Code: failure.ExitInterrupted}
}

// finish ends every push the same way once its report is printed: a fault
// that stopped it is its error (exit 6 for a failing platform), after a
// line that says how many items a re-run would send; items the platform
// refused (the report named them) are exit 1.
func finish(ios *iostreams.IOStreams, res outcome, pushErr, reportErr error, items, why string) error {
	if reportErr != nil {
		return reportErr
	}
	if pushErr != nil {
		if n := res.Unsent(); n > 0 {
			fmt.Fprintf(ios.ErrOut, "tilookup: %d %s were not sent; run the same push again to send them%s\n", n, items, why)
		}
		return pushErr
	}
	if res.Refused() > 0 {
		return &failure.Reported{Code: failure.ExitNoMatch}
	}
	return nil
}

// configured is the value of a config key that a push needs, checked; a
// missing one is exit 3 with the three ways to give it.
func configured(f *online.Factory, key, what string) (string, error) {
	raw, err := f.Get(key)
	if err != nil {
		return "", err
	}
	raw = strings.TrimSpace(raw)
	k, _ := config.Lookup(key)
	if raw == "" {
		placeholder := "VALUE"
		if strings.HasSuffix(key, "_url") {
			placeholder = "URL"
		}
		return "", failure.New(failure.Config, "no %s is configured", what).
			WithHint("pass --" + k.Flag + ", set " + k.Env + ", or run `tilookup config set " + key + " " + placeholder + "`")
	}
	if err := k.Validate(raw); err != nil {
		return "", failure.New(failure.Config, "%v", err)
	}
	return raw, nil
}

// platformClient builds a client for rawURL with the lookup client's
// transport rules: the same CA file, proxy, TLS floor, retries, time-outs
// and redirect rules. credential is asked only once the URL is known to be
// one a secret may go to (never plain http off this machine), and its
// secret is what --debug redacts.
func platformClient(f *online.Factory, rawURL string, credential func() (string, error)) (*api.Client, error) {
	s, err := f.Settings()
	if err != nil {
		return nil, err
	}
	opts := api.Options{BaseURL: rawURL, Timeout: s.Timeout, Deadline: s.Deadline, Retries: s.Retries,
		MaxBody: s.MaxResponseSize, UserAgent: f.UserAgent, Debug: f.Debug()}
	// The URL is checked before the secret is looked up: a secret that
	// would cross the network in clear is never read.
	if err := api.CheckBaseURLs(opts, s.AllowInsecureHTTP); err != nil {
		return nil, err
	}
	guard, err := loopbackGuard(f, rawURL, s.AllowInsecureHTTP)
	if err != nil {
		return nil, err
	}
	transport, err := api.NewTransport(api.TransportOptions{CACertFile: s.CACert, InsecureSkipVerify: s.InsecureSkipVerify,
		HeaderTimeout: s.Timeout, Concurrency: 1, Guard: guard})
	if err != nil {
		return nil, err
	}
	opts.Transport = transport
	secret, err := credential()
	if err != nil {
		return nil, err
	}
	opts.Token = secret // for --debug's redaction; the platform's header is push's own
	return api.New(opts, s.AllowInsecureHTTP)
}

// loopbackGuard pins a plain-http name to the loopback addresses it
// resolves to, as the lookup client does for its base URL.
func loopbackGuard(f *online.Factory, raw string, allowInsecure bool) (*api.LoopbackGuard, error) {
	u, err := url.Parse(raw)
	if allowInsecure || err != nil || u.Scheme != "http" {
		return nil, nil
	}
	g := &api.LoopbackGuard{Resolver: f.Resolver}
	return g, g.Check(context.Background(), u.Hostname())
}

// secret is the environment variable env, else the keyring's (or the
// opted-in file's) entry for the host of rawURL. The lookup token's
// variable is hidden from the store: it belongs to another service and
// never goes to a platform.
func secret(f *online.Factory, rawURL, env, what string) (string, error) {
	if v := strings.TrimSpace(os.Getenv(env)); v != "" {
		k, err := credentials.CheckToken(v)
		if err != nil {
			return "", failure.New(failure.Config, "%s does not hold a valid %s", env, what)
		}
		return k, nil
	}
	host, err := credentials.HostKey(rawURL)
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
	s, _, err := store.Token(host)
	if errors.Is(err, credentials.ErrNoToken) {
		return "", failure.New(failure.Config, "no %s for %s", what, host).
			WithHint("set " + env + ", or run `tilookup auth login --host " + host + "`")
	}
	var fe *failure.Error
	if errors.As(err, &fe) {
		// A keyring that cannot be read keeps its explanation, but its
		// hint names the lookup service's token: say what gives this
		// platform its secret.
		kept := *fe
		kept.Hint = "set " + env + ", or keep the " + what + " in a file with `tilookup auth login --host " + host + " --insecure-storage`"
		return "", &kept
	}
	return s, err
}
