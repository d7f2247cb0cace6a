package cli

import (
	"github.com/spf13/cobra"

	"github.com/tilookup/tilookup/pkg/cmdutil"
	"github.com/tilookup/tilookup/pkg/cmdutil/online"
	"github.com/tilookup/tilookup/pkg/iostreams"
	"github.com/tilookup/tilookup/pkg/service"
)

// NewRootCmdForDocs builds the command tree for the generators of the
// completion scripts, man pages and Markdown docs. Its streams are buffers,
// so building it depends on nothing about the terminal it runs in, and the
// auto-generated footer (which carries today's date) is off, so the output
// only changes when the commands do.
func NewRootCmdForDocs() *cobra.Command {
	ios, _, _, _ := iostreams.Test()
	f := &online.Factory{Factory: &cmdutil.Factory{IO: ios, Version: Version(), UserAgent: "tilookup/" + Version()}}
	service.Attach(f)
	root := NewRootCmd(f)
	var quiet func(*cobra.Command)
	quiet = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			quiet(sub)
		}
	}
	quiet(root)
	return root
}
