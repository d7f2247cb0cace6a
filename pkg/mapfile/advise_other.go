//go:build !linux

package mapfile

func advise([]byte) {}

func release([]byte) {}
