//go:build !linux

package prefault

func minorFaults() (int64, bool) { return 0, false }
