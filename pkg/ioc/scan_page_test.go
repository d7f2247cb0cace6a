//go:build linux && amd64 && !purego

package ioc

import (
	"syscall"
	"testing"
)

// TestMaskBlocksPageEdge runs maskBlocks on texts that end where a page
// ends and the next page cannot be read: its last, partial block must
// neither fault nor misplace a bit, wherever in the page the text starts.
func TestMaskBlocksPageEdge(t *testing.T) {
	if !vectorScan {
		t.Skip("no AVX2")
	}
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skip(err)
	}
	text := benchText(page)
	for n := 1; n <= 200; n++ {
		l := mem[page-n : page]
		copy(l, text[n:])
		var a anchorScan
		a.reset(l)
		for i := 0; i <= n; i++ {
			if got, want := a.next(i), naiveNext(&anchor, l, i); got != want {
				t.Fatalf("anchorScan.next(%d) on %q at a page's end = %d, want %d", i, l, got, want)
			}
		}
		checkMaskLines(t, l)
		copy(l, "\n\x00\x1b\xe2\x80\x8b a.b\n")
		checkMaskLines(t, l)
	}
}
