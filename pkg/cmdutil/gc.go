package cmdutil

import "runtime/debug"

// BulkGC makes Go's collector run a quarter as often as its default, for
// the rest of the process, unless GOGC says otherwise. A streaming bulk
// search allocates some 8 KB per value (mostly net/http's) over a live heap
// that the pipeline bounds to a few MB; at the default the collector ran
// every few hundred values and took about a tenth of the CPU. Runs that
// keep every answer (documents, triage) keep the default, so that their
// heap does not grow five times their data. A streaming run holds at most
// the ordering budget (4 MiB), Dedup's recent answers (8 MiB) and the
// answers in flight; its peak RSS is about 32 MB (bench/bulk), against 22
// at the default.
//
// A soft memory limit (128 MiB, unless GOMEMLIMIT says otherwise) stops
// that growth where answers are large: at GOGC=400 four 30 MB answers in
// flight let the heap reach 680 MB, against 150 MB with the limit
// (bench/memory), while a run of small answers never reaches it and keeps
// its speed.
func BulkGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
		if getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(bulkMemoryLimit)
		}
	}
}

const bulkMemoryLimit = 128 << 20

// ExtractGC makes the collector run a fifth as often as its default for an
// extraction, unless GOGC says otherwise. What extract allocates is the set
// of values seen (its tables as they double) and the text of the new
// values; its live heap is a few MB, so at the default the collector ran
// every few MB, and with two cores its marking took one of them from the
// search: about 5% of the wall time on bench/extract's 50 MiB report.
// There is no memory limit, unlike BulkGC: the set grows with the input,
// and a limit below it would have the collector run nonstop. The heap can
// grow by at most what a run allocates, about twice the set and the text
// of its values.
func ExtractGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}
