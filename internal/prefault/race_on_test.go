//go:build race

package prefault

// raceOn: the race detector takes faults of its own on the memory a test writes.
const raceOn = true
