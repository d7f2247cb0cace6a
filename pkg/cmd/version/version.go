// Package version is `tilookup version`, and where the build's version,
// commit and date live (set by the release build through -ldflags, else read
// from the module's build info for `go install` builds).
package version

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
)

// Set by -ldflags "-X github.com/tilookup/tilookup/pkg/cmd/version.version=..."
var (
	version = ""
	commit  = ""
	date    = ""
)

// Info describes this build.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// Get returns the build's info, filling gaps from the embedded build info.
func Get() Info {
	info := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && info.Commit == "":
				info.Commit = s.Value
			case s.Key == "vcs.time" && info.Date == "":
				info.Date = s.Value
			}
		}
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	return info
}

// NewCmd is `tilookup version`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go version and platform",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := Get()
			format, _ := cmd.Flags().GetString("output")
			if format == "json" || format == "ndjson" {
				b, _ := json.Marshal(info)
				fmt.Fprintln(f.IO.Out, string(b))
				return nil
			}
			fmt.Fprintf(f.IO.Out, "tilookup %s\n", info.Version)
			if info.Commit != "" {
				fmt.Fprintf(f.IO.Out, "commit:   %s\n", info.Commit)
			}
			if info.Date != "" {
				fmt.Fprintf(f.IO.Out, "built:    %s\n", info.Date)
			}
			fmt.Fprintf(f.IO.Out, "go:       %s\nplatform: %s\n", info.GoVersion, info.Platform)
			return nil
		},
	}
}
