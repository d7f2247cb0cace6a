//go:build !amd64 || purego

package ioc

// vectorScan: there is no vector scan here; the scalar scans do all the
// work, and the functions below are never called.
const vectorScan = false

func skipVector(*byte, int, *nibbleTable) int { panic("ioc: no vector scan") }

func maskBlocks(*byte, int, *nibbleTable, *uint64) { panic("ioc: no vector scan") }

func maskLines(*byte, int, *nibbleTable, *uint64, *uint64) bool { panic("ioc: no vector scan") }
