package cmdutil

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/api"
	"github.com/tilookup/tilookup/pkg/config"
)

// The retries help names exactly the statuses the client tries again for.
func TestRetriesHelpNamesTheRetriedStatuses(t *testing.T) {
	k, _ := config.Lookup("retries")
	cmd := &cobra.Command{}
	AddNetworkFlags(cmd)
	checkNamed(t, "the retries key", k.Help)
	checkNamed(t, "--retries", cmd.Flags().Lookup("retries").Usage)
}

func checkNamed(t *testing.T, where, help string) {
	t.Helper()
	named := map[int]bool{}
	for _, m := range regexp.MustCompile(`\b[1-5]\d\d\b`).FindAllString(help, -1) {
		n, _ := strconv.Atoi(m)
		named[n] = true
	}
	for status := 100; status < 600; status++ {
		if api.Retried(status) != named[status] {
			t.Errorf("%s: status %d: retried %v, named in the help %v (%q)", where, status, api.Retried(status), named[status], help)
		}
	}
}
