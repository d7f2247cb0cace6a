package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/config"
)

// Help topics: `tilookup help environment` and `tilookup help exit-codes`
// (also `tilookup environment`), as gh has them. The man pages carry the
// same text as their ENVIRONMENT and EXIT STATUS sections.

// EnvironmentHelp is the text of `tilookup help environment`. The settings
// come from the config key table, so that a new one cannot be left out.
func EnvironmentHelp() string {
	var b strings.Builder
	b.WriteString(`tilookup reads these environment variables. A flag beats its variable, a
variable beats the config file; an empty variable counts as unset, except
TILOOKUP_EVENTS_COOKIE_NAME.

TILOOKUP_TOKEN
    The bearer token; it overrides the OS keyring. Prefer it to anything on the
    command line, which other users can see in ps.

TILOOKUP_CONFIG
    The config file (default: tilookup/config.yaml under $XDG_CONFIG_HOME, or
    ~/.config). --config beats it.
`)
	covered := map[string]bool{}
	for _, k := range config.Keys {
		if k.Env == "" {
			continue
		}
		covered[k.Env] = true
		text := k.Help
		if k.Default != "" {
			text += "; default " + k.Default
		}
		entry(&b, k.Env, fmt.Sprintf("The %s setting: %s.", k.Name, text))
	}
	for _, e := range moreEnvironment {
		if !covered[e.name] {
			entry(&b, e.name, e.text)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// moreEnvironment are the variables that are no config key, after the
// TILOOKUP_* settings. A TILOOKUP_ name here is left out once the key
// table has it.
var moreEnvironment = []struct{ name, text string }{
	{"TILOOKUP_CACHE", "The cache setting: keep answers on disk this long; default 0 (off)."},
	{"TILOOKUP_PAGER", "The pager for long output on a terminal; default $PAGER, else less -FRX."},
	{"PAGER", "The pager when TILOOKUP_PAGER is not set."},
	{"NO_COLOR", "When set and not empty, no colour (https://no-color.org); --color beats it."},
	{"CLICOLOR", "0 turns colour off, as NO_COLOR does."},
	{"CLICOLOR_FORCE", "When set and not 0, colour even when stdout is not a terminal, unless\nNO_COLOR is set; --color beats it."},
	{"BROWSER", "The browser search --web opens the result in (default: the system's)."},
	{"HTTPS_PROXY, HTTP_PROXY, NO_PROXY", "The proxy for https and http requests, and the hosts that go direct. Through\na proxy the token stays inside the TLS tunnel."},
	{"XDG_CONFIG_HOME", "Where the config file is looked for (default ~/.config)."},
	{"XDG_CACHE_HOME", "Where the cache lives, under tilookup/ (default ~/.cache)."},
}

// entry writes a variable and its text, indented and wrapped at 80 columns.
func entry(b *strings.Builder, name, text string) {
	b.WriteString("\n" + name + "\n")
	for _, para := range strings.Split(text, "\n") {
		line := "   "
		for _, w := range strings.Fields(para) {
			if len(line)+1+len(w) > 79 {
				b.WriteString(line + "\n")
				line = "   "
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
}

// ExitCodesHelp is the text of `tilookup help exit-codes`.
func ExitCodesHelp() string {
	return `tilookup exits with one of these codes:

    0    success
    1    nothing matched: only with search -e/--exit-status, when no value
         at all matched (like grep: one match among many values is success)
    2    usage error, invalid input, or 400 from the service
    3    configuration problem: no base URL, no token, or a base URL that would
         leak the token
    4    authentication or permission refused (401, 403)
    5    not found (404)
    6    service or network failure: 5xx, timeout, connection error, a response
         that cannot be read
    130  interrupted (Ctrl-C, SIGTERM)

With several values, the largest code among them wins, except that with -e a
value that matched makes the run a success unless another value failed: the
errors 2-6 and 130 win over both 0 and 1. Each error is one line on stderr.`
}

// newTopic is a help topic: a command that only prints its text, listed
// under "Additional help topics".
func newTopic(name, short string, text func() string) *cobra.Command {
	cmd := &cobra.Command{Use: name, Short: short}
	// The text is built when it is asked for, not at every start-up.
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		fmt.Fprintln(c.OutOrStdout(), text())
	})
	return cmd
}
