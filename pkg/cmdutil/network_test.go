package cmdutil

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func TestAddNetworkFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	AddNetworkFlags(cmd)
	n := 0
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		n++
		if !IsNetworkFlag(fl.Name) {
			t.Errorf("--%s is added but IsNetworkFlag says no", fl.Name)
		}
	})
	if n != len(networkFlags) {
		t.Errorf("%d flags added, %d named", n, len(networkFlags))
	}
	if IsNetworkFlag("output") {
		t.Error("--output is everyone's")
	}
}
