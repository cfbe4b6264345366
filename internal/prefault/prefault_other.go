//go:build !linux

package prefault

func populate([]byte) {}

// hugeAlign is what Bytes aligns a large buffer to: nothing, without huge pages.
const hugeAlign = 0
