//go:build race

package output

// raceEnabled: the race detector adds its own allocations, so allocation
// bounds are not checked under it.
const raceEnabled = true
