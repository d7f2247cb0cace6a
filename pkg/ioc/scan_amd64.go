//go:build amd64 && !purego

package ioc

import "golang.org/x/sys/cpu"

// vectorScan tells whether skipVector and maskBlocks may be called: they
// need AVX2.
var vectorScan = cpu.X86.HasAVX2

// skipVector returns the index in p[:n] of the first byte in t's set, or,
// when there is none in the first n&^31 bytes, n&^31: it reads whole
// blocks of 32 bytes only.
//
//go:noescape
func skipVector(p *byte, n int, t *nibbleTable) int

// maskBlocks writes the bytes in t's set among p[:n], 64 to a word of
// out, bit k of out[w] for p[64w+k]; out must have room for (n+63)/64
// words, and the last one's bits past n are clear. n must be at least 1.
//
//go:noescape
func maskBlocks(p *byte, n int, t *nibbleTable, out *uint64)

// maskLines is maskBlocks with anchors for t's set (bits 0 to 6 of its
// lookups) and ends for the '\n' bytes, and odd when a byte read may be
// one of lineNibbles's controls or is not ASCII. n must be at least 1.
//
//go:noescape
func maskLines(p *byte, n int, t *nibbleTable, anchors, ends *uint64) (odd bool)
