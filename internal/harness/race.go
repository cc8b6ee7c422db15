//go:build race

package harness

// RaceEnabled reports whether the tests were built with the race detector
// (whose frames are larger, and whose binaries are slower).
const RaceEnabled = true
