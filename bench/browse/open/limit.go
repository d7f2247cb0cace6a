package main

import (
	"io"
	"os"

	"github.com/tilookup/tilookup/pkg/browse"
)

// limit is what the browse command reads the document through: in this
// tree, its soft memory limit (browse.LimitMemory). For -before, the
// parent replaces this file with one that returns r (the older trees
// had no limit).
func limit(r io.Reader) io.Reader { return browse.LimitMemory(os.Getenv, r) }
