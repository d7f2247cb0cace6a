//go:build amd64 && !purego

package ioc

import "golang.org/x/sys/cpu"

// vectorScan tells whether skipVector and maskVector may be called: they
// need AVX2.
var vectorScan = cpu.X86.HasAVX2

// skipVector returns the index in p[:n] of the first byte in t's set, or,
// when there is none in the first n&^31 bytes, n&^31: it reads whole
// blocks of 32 bytes only.
//
//go:noescape
func skipVector(p *byte, n int, t *nibbleTable) int

// maskVector returns the bytes in t's set among the 64 at p, bit k for
// p[k].
//
//go:noescape
func maskVector(p *byte, t *nibbleTable) uint64
