//go:build !race

package prefault

const raceOn = false
