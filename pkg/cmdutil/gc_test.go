package cmdutil

import (
	"runtime/debug"
	"testing"
)

func TestBulkGCLeavesTheUsersGOGCAlone(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	BulkGC(func(k string) string { return map[string]string{"GOGC": "123"}[k] })
	if got := debug.SetGCPercent(123); got != 123 {
		t.Errorf("with GOGC set, GC percent = %d, want the user's 123", got)
	}
	BulkGC(func(string) string { return "" })
	if got := debug.SetGCPercent(123); got != 400 {
		t.Errorf("GC percent = %d, want 400", got)
	}
}

// TestBulkGCLimitsMemory: GOGC=400 lets the heap grow to five times what it
// holds, 680 MB for four 30 MB answers; the soft limit bounds that, unless
// the user set GOMEMLIMIT.
func TestBulkGCLimitsMemory(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const unset = 1 << 62
	debug.SetMemoryLimit(unset)
	BulkGC(func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] })
	if got := debug.SetMemoryLimit(-1); got != unset {
		t.Errorf("with GOMEMLIMIT set, the limit is %d", got)
	}
	BulkGC(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != bulkMemoryLimit {
		t.Errorf("memory limit = %d, want %d", got, bulkMemoryLimit)
	}
}
