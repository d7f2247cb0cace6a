//go:build race

package api

// raceEnabled: the race detector adds its own allocations, so memory
// bounds are not checked under it.
const raceEnabled = true
