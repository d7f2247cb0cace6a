// Package uuid makes the RFC 4122 UUIDs tilookup writes: name-based ones
// (version 5) for ids that must come out the same for the same thing in
// every run, and random ones (version 4).
package uuid

import (
	"crypto/rand"
	"crypto/sha1"
	"fmt"
	"io"
)

// V5 is the name-based UUID of name in namespace ns, with SHA-1.
func V5(ns [16]byte, name string) string {
	h := sha1.New()
	h.Write(ns[:])
	io.WriteString(h, name)
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return format(u)
}

// V4 is a random UUID read from r (crypto/rand when nil).
func V4(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	var u [16]byte
	if _, err := io.ReadFull(r, u[:]); err != nil {
		return "", fmt.Errorf("cannot make a random id: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return format(u), nil
}

func format(u [16]byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}
