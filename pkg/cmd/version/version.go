// Package version is `tilookup version`, and where the build's version,
// commit and date live (set by the release build through -ldflags, else read
// from the module's build info for `go install` builds).
package version

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/output"
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
// It is read once: the build info is parsed from a string on every call.
func Get() Info { return getOnce() }

var getOnce = sync.OnceValue(get)

func get() Info {
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

// Options is what version needs to run.
type Options struct {
	IO *iostreams.IOStreams
	// JSON says whether -o json or ndjson was given. The config file is not
	// read: the version is asked for when nothing else works.
	JSON bool
	Info func() Info
}

// NewCmd is `tilookup version`. runF replaces the run in tests.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go version and platform",
		Long: `Print the version, commit, build date, Go version and platform of this build;
tilookup --version prints the same. With -o json or -o ndjson, one JSON object.`,
		Example: `  tilookup version
  tilookup version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := cmdutil.ResolveFormat(f, "version")
			if err != nil {
				return err
			}
			opts := &Options{IO: f.IO, JSON: format != output.Table, Info: Get}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(opts)
		},
	}
}

// Run prints the build's info; `tilookup --version` calls it too.
func Run(opts *Options) error {
	info := opts.Info()
	if opts.JSON {
		return cmdutil.WriteJSON(cmdutil.ListOptions(opts.IO, output.JSON), info)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tilookup %s\n", info.Version)
	if info.Commit != "" {
		fmt.Fprintf(&b, "commit:   %s\n", info.Commit)
	}
	if info.Date != "" {
		fmt.Fprintf(&b, "built:    %s\n", info.Date)
	}
	fmt.Fprintf(&b, "go:       %s\nplatform: %s\n", info.GoVersion, info.Platform)
	_, err := io.WriteString(opts.IO.Out, b.String())
	return err
}
