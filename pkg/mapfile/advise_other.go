//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package mapfile

func advise([]byte) {}
