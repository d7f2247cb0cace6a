package cmdutil

import (
	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/config"
)

// AddNetworkFlags gives a command that calls the service the flags that
// only matter there: where the service is, how long to wait and retry, and
// --debug, which logs HTTP. Offline commands do not list them. The config
// layer reads them from the running command's flags (flag > env > profile >
// file > default).
func AddNetworkFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.String("base-url", "", "service `URL` for search (may have a path prefix)")
	fl.String("events-base-url", "", "service `URL` for events (default: the base URL)")
	fl.String("timeout", "", "per-request `duration` or seconds (default "+config.DefaultOf("timeout")+")")
	fl.String("retries", "", "`N` retries on 429/502/503/504/network (default "+config.DefaultOf("retries")+")")
	fl.Bool("debug", false, "log HTTP requests to stderr, credentials redacted")
}

// networkFlags names the flags AddNetworkFlags adds.
var networkFlags = []string{"base-url", "events-base-url", "timeout", "retries", "debug"}

// IsNetworkFlag tells whether name (without dashes) is a flag that
// AddNetworkFlags adds.
func IsNetworkFlag(name string) bool {
	for _, n := range networkFlags {
		if n == name {
			return true
		}
	}
	return false
}
