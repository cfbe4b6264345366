package wslock

import (
	"strings"
	"testing"
)

// expectHolder is the holder a wait reports for a lock process pid holds: Linux lists it.
func expectHolder(pid int) int { return pid }

// TestHolderIn reads holders from /proc/locks text, untrusted: a held flock on the key
// counts, a waiter, another kind of lock, another file, this process and lines that do
// not parse do not.
func TestHolderIn(t *testing.T) {
	key := dirKey{dev: 0x801, ino: 5678} // device 8:1
	text := strings.Join([]string{
		"garbage",
		"1: FLOCK ADVISORY WRITE x 08:01:5678 0 EOF",
		"2: -> FLOCK ADVISORY WRITE 1111 08:01:5678 0 EOF",
		"3: POSIX ADVISORY WRITE 2222 08:01:5678 0 EOF",
		"4: OFDLCK ADVISORY WRITE -1 08:01:5678 0 EOF",
		"5: FLOCK ADVISORY WRITE 3333 08:02:5678 0 EOF",
		"6: FLOCK ADVISORY WRITE 4444 08:01:56789 0 EOF",
		"7: FLOCK ADVISORY READ 99 08:01:5678 0 EOF",
		"8: FLOCK ADVISORY READ 1234 08:01:5678 0 EOF",
	}, "\n")
	if got := holderIn(strings.NewReader(text), key, 99); got != 1234 {
		t.Errorf("holder %d, want 1234", got)
	}
	if got := holderIn(strings.NewReader(text), dirKey{dev: 0x801, ino: 1}, 99); got != 0 {
		t.Errorf("holder of an unlocked file: %d, want 0", got)
	}
}

// TestDeviceNumbers checks the split of st_dev, whose minor number is in two pieces.
func TestDeviceNumbers(t *testing.T) {
	dev := uint64(259)<<8 | uint64(0x45) | uint64(0x12300)<<12
	if devMajor(dev) != 259 || devMinor(dev) != 0x12345 {
		t.Errorf("major %d minor %#x, want 259 and 0x12345", devMajor(dev), devMinor(dev))
	}
}
