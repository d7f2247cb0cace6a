package browse

import (
	"io"
	"runtime/debug"
	"runtime/metrics"
)

// The browse command's soft memory limit (LimitMemory). 100,000 pivot
// nodes hold 51 MiB of items; at Go's default the collector lets the heap
// grow to twice that before it marks, and a session's RSS went over the
// issue's 100 MB. Under the limit, RSS stays about 10 MB over it.
const (
	// floorLimit is the limit while the live heap is small.
	floorLimit = 80 << 20
	// Above the floor, the limit is a quarter over the live heap, plus
	// headroom: the collector runs more often, never nonstop.
	headroom = 8 << 20
	// retuneEvery is how many bytes of the document are read between
	// two looks at the live heap.
	retuneEvery = 4 << 20
)

// LimitMemory sets the collector's soft memory limit for the browse
// command, unless GOGC or GOMEMLIMIT say otherwise, and returns r read
// through: as the document is read, the limit follows the live heap, at
// the larger of floorLimit and 1.25 times the live heap plus headroom,
// so that a document too large for the floor is read at the collector's
// pace, not marked nonstop. Other commands (and -i) keep Go's default.
func LimitMemory(getenv func(string) string, r io.Reader) io.Reader {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return r
	}
	retune()
	return &limitReader{r: r}
}

type limitReader struct {
	r    io.Reader
	read int
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if l.read += n; l.read >= retuneEvery || err != nil {
		l.read = 0
		retune()
	}
	return n, err
}

// retune sets the limit from the live heap of the last collection.
func retune() {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(live)
	limit := int64(floorLimit)
	if live[0].Value.Kind() == metrics.KindUint64 {
		limit = max(limit, int64(live[0].Value.Uint64())*5/4+headroom)
	}
	debug.SetMemoryLimit(limit)
}
