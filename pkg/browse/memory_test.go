package browse

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"
)

// LimitMemory reads the document as it comes and sets a limit at or
// over the floor; with GOGC or GOMEMLIMIT set, it leaves both alone.
func TestLimitMemory(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const doc = `{"query":"example.com","results":[]}`
	for _, env := range []map[string]string{{}, {"GOGC": "200"}, {"GOMEMLIMIT": "1GiB"}} {
		debug.SetMemoryLimit(math.MaxInt64)
		r := LimitMemory(func(k string) string { return env[k] }, strings.NewReader(doc))
		if err := iotest.TestReader(r, []byte(doc)); err != nil {
			t.Errorf("%v: %v", env, err)
		}
		limit := debug.SetMemoryLimit(-1)
		if len(env) == 0 && limit < floorLimit || len(env) > 0 && limit != math.MaxInt64 {
			t.Errorf("%v: limit %d", env, limit)
		}
	}
	if _, err := Load(LimitMemory(func(string) string { return "" }, strings.NewReader(doc)), "x.json"); err != nil {
		t.Error(err)
	}
}
