// Package benchutil holds what every benchmark under bench/ does the same
// way: build a binary as the release builds it, and take a median.
package benchutil

import (
	"os"
	"os/exec"
	"slices"
	"time"
)

// Build builds pkg into out as the release does (CGO_ENABLED=0, -trimpath,
// -ldflags=-s -w), so that what is measured is what users run.
func Build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// Median is the middle of d (the upper one of an even count); d is not
// changed.
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
