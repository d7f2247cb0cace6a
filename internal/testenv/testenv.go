// Package testenv says which tests a run includes. `go test ./...` is the
// suite a developer runs after each change, so it leaves out what costs
// seconds of CPU for little news between two runs: the end-to-end suites
// of cmd/tilookup (whole command lines of the real binary, the fault
// matrix, fleets on redis-server) and the tests below that start processes
// or push the memory bounds with large inputs. `go test -tags slow ./...`
// runs them all, and so does .ci/run.
package testenv

import "testing"

// Slow skips t unless the run was built with -tags slow. why says what makes
// the test slow, for `go test -v`.
func Slow(t testing.TB, why string) {
	t.Helper()
	if !slow {
		t.Skipf("slow (%s): run with -tags slow", why)
	}
}
