package cmdutil

import (
	"github.com/spf13/cobra"
)

// AddCacheFlags gives a command that looks values up --cache and
// --refresh, and the shared cache's --cache-url and --shared-rate.
// --cache is the cache setting's flag: the config layer reads it (flag >
// TILOOKUP_CACHE > profile > file), and the same for the others.
func AddCacheFlags(cmd *cobra.Command, refresh *bool) {
	fl := cmd.Flags()
	fl.String("cache", "", "keep answers on disk `DURATION` (24h, 7d; 0 = off)")
	fl.BoolVar(refresh, "refresh", false, "ask again, and cache the fresh answers")
	fl.String("cache-url", "", "share answers through Redis at `URL` (redis://...)")
	fl.String("shared-rate", "", "`N` requests a second for all that share --cache-url")
	_ = cmd.RegisterFlagCompletionFunc("cache", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"1h", "24h", "7d", "0"}, cobra.ShellCompDirectiveNoFileComp
	})
}
