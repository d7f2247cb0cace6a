//go:build !unix && !windows

package config

import "os"

// Platforms with neither flock nor LockFileEx (wasm, plan9) write without
// a lock, as tilookup did before locking existed.
func tryLock(*os.File) error { return nil }

func unlock(*os.File) {}
