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
