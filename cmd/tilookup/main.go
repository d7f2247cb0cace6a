// Command tilookup looks up indicators in a threat-intelligence service.
package main

import (
	"os"

	"github.com/tilookup/tilookup/pkg/cli"
)

func main() { os.Exit(cli.Main()) }
