package cli

import "github.com/tilookup/tilookup/pkg/cmd/version"

// Version is this build's version string.
func Version() string { return version.Get().Version }
