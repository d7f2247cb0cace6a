package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/config"
	"github.com/tilookup/tilookup/pkg/failure"
)

// Help topics: `tilookup help environment` and `tilookup help exit-codes`
// (also `tilookup environment`), as gh has them. The man pages carry the
// same entries as their ENVIRONMENT and EXIT STATUS sections.

// Entry is one item of a help topic: an environment variable or an exit
// code, and what it means.
type Entry struct{ Name, Text string }

// EnvironmentIntro opens `tilookup help environment`.
const EnvironmentIntro = `tilookup reads these environment variables. A flag beats its variable, a
variable beats the config file; an empty variable counts as unset, except
TILOOKUP_EVENTS_COOKIE_NAME.`

// Environment lists the variables tilookup reads. The settings come from the
// config key table, so that a new one cannot be left out.
func Environment() []Entry {
	entries := []Entry{
		{"TILOOKUP_TOKEN", "The bearer token; it overrides the OS keyring. Prefer it to anything on the command line, which other users can see in ps."},
		{"TILOOKUP_MISP_KEY", "The MISP key push misp sends; it overrides the keyring's entry for the MISP host. TILOOKUP_TOKEN never goes to MISP."},
		{"TILOOKUP_TAXII_TOKEN", "The bearer token push taxii sends; it overrides the keyring's entry for the TAXII host. TILOOKUP_TOKEN never goes to TAXII."},
		{"TILOOKUP_TAXII_USER", "With it set, push taxii uses HTTP basic as this user, with TILOOKUP_TAXII_PASSWORD or the keyring's entry for the TAXII host as the password."},
		{"TILOOKUP_TAXII_PASSWORD", "The HTTP basic password push taxii sends with TILOOKUP_TAXII_USER; it overrides the keyring's entry for the TAXII host."},
		{"TILOOKUP_CONFIG", "The config file (default: tilookup/config.yaml under $XDG_CONFIG_HOME, or ~/.config). --config beats it."},
	}
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
		entries = append(entries, Entry{k.Env, fmt.Sprintf("The %s setting: %s.", k.Name, text)})
	}
	for _, e := range moreEnvironment {
		if !covered[e.Name] {
			entries = append(entries, e)
		}
	}
	return entries
}

// moreEnvironment are the variables that are no config key, after the
// TILOOKUP_* settings. A TILOOKUP_ name here is left out once the key
// table has it.
var moreEnvironment = []Entry{
	{"TILOOKUP_CACHE", "The cache setting: keep answers on disk this long; default 0 (off)."},
	{"TILOOKUP_PAGER", "The pager for long output on a terminal; default $PAGER, else less -FRX."},
	{"PAGER", "The pager when TILOOKUP_PAGER is not set."},
	{"NO_COLOR", "When set and not empty, no colour (https://no-color.org); --color beats it."},
	{"CLICOLOR", "0 turns colour off, unless CLICOLOR_FORCE is set; --color beats it."},
	{"CLICOLOR_FORCE", "When set and not 0, colour even when stdout is not a terminal, unless NO_COLOR is set; --color beats it."},
	{"BROWSER", "The browser search --web opens a result in (default: the system's)."},
	{"HTTPS_PROXY, HTTP_PROXY, NO_PROXY", "The proxy for https and http requests, and the hosts that go direct. Through a proxy the token stays inside the TLS tunnel."},
	{"XDG_CONFIG_HOME", "Where the config file is looked for (default ~/.config)."},
	{"XDG_CACHE_HOME", "Where the cache lives, under tilookup/ (default ~/.cache)."},
	{"XDG_STATE_HOME", "Where watch keeps what each list last saw, under tilookup/watch/ (default ~/.local/state)."},
	{"XDG_DATA_HOME", "Only for completion install --shell bash, which writes the script under bash-completion/completions/ there (default ~/.local/share). tilookup keeps no data of its own there."},
	{"GOGC", "Go's garbage collector setting. When unset, a bulk search that streams its records uses 400, which spares it about a tenth of its CPU: its heap may grow to five times what it holds (some 30 MB in all), within a soft limit of 128 MiB unless GOMEMLIMIT is set, so that large answers do not multiply it."},
}

// ExitCodesIntro and ExitCodesOutro frame the table of exit codes.
const (
	ExitCodesIntro = "tilookup exits with one of these codes:"
	ExitCodesOutro = `With several values, the largest code among them wins, except that with -e a
value that matched makes the run a success unless another value failed: the
errors 2-6 and 130 win over both 0 and 1. Each error is one line on stderr.`
)

// ExitCodes is the table of exit codes of the interface contract
// (failure.Codes).
func ExitCodes() []Entry {
	var entries []Entry
	for _, c := range failure.Codes() {
		entries = append(entries, Entry{strconv.Itoa(c.Code), c.Meaning})
	}
	return entries
}

// EnvironmentHelp is the text of `tilookup help environment`.
func EnvironmentHelp() string {
	var b strings.Builder
	b.WriteString(EnvironmentIntro + "\n")
	for _, e := range Environment() {
		b.WriteString("\n" + e.Name + "\n")
		wrap(&b, "    ", e.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}

// ExitCodesHelp is the text of `tilookup help exit-codes`.
func ExitCodesHelp() string {
	var b strings.Builder
	b.WriteString(ExitCodesIntro + "\n\n")
	for _, e := range ExitCodes() {
		var item strings.Builder
		wrap(&item, "         ", e.Text)
		fmt.Fprintf(&b, "    %-5s%s", e.Name, strings.TrimLeft(item.String(), " "))
	}
	b.WriteString("\n" + ExitCodesOutro)
	return b.String()
}

// wrap writes text in lines of at most 80 columns, each after indent.
func wrap(b *strings.Builder, indent, text string) {
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(indent)+len(line)+1+len(w) > 80 {
			b.WriteString(indent + line + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	b.WriteString(indent + line + "\n")
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
