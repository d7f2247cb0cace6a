package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"
)

// MaxConcurrency bounds -c: more requests in flight than this only queue
// at the service (and each costs memory here).
const MaxConcurrency = 64

// AddPaceFlags gives a command that looks many values up -c/--concurrency
// (what it bounds: concurrencyHelp) and --rate.
func AddPaceFlags(cmd *cobra.Command, concurrency *int, rate *float64, concurrencyHelp string) {
	fl := cmd.Flags()
	fl.IntVarP(concurrency, "concurrency", "c", 4, fmt.Sprintf("%s (`N`, 1-%d)", concurrencyHelp, MaxConcurrency))
	fl.Float64Var(rate, "rate", 0, "at most `R` requests/s, retries included")
}

// CheckPace refuses what AddPaceFlags' flags cannot mean. A rate too low
// for the per-value deadline is refused later, by api.Client.SetRate.
func CheckPace(concurrency int, rate float64) error {
	if concurrency < 1 || concurrency > MaxConcurrency {
		return UsageError("--concurrency must be between 1 and %d", MaxConcurrency)
	}
	if rate < 0 {
		return UsageError("--rate must be 0 (unlimited) or more")
	}
	return nil
}
