package wslock

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// openParent opens the directory above d for reading, through the handle's own "..":
// the parent it is in now, whatever name it was opened by.
func openParent(d *os.File, name string) (*os.File, error) {
	for {
		fd, err := syscall.Openat(int(d.Fd()), "..", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}

// locksFile lists the kernel's file locks. Its text is read as untrusted: any line that
// does not parse is skipped.
const locksFile = "/proc/locks"

// holder returns the id of a process, other than this one, that holds a flock on the
// directory key, or 0 when none is found.
func holder(key dirKey) int {
	f, err := os.Open(locksFile)
	if err != nil {
		return 0
	}
	defer f.Close()
	return holderIn(io.LimitReader(f, 16<<20), key, os.Getpid())
}

// holderIn finds in the text of /proc/locks the first holder of a flock on key that is
// not self.
func holderIn(r io.Reader, key dirKey, self int) int {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if pid := flockHolder(sc.Text(), key); pid > 0 && pid != self {
			return pid
		}
	}
	return 0
}

// flockHolder returns the process of one line of /proc/locks when the line is a flock
// held (not waited for) on key, else 0. A line reads
//
//	1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
//
// with the device's major and minor numbers in hex and the inode in decimal; a waiter's
// line has "->" after the number.
func flockHolder(line string, key dirKey) int {
	f := strings.Fields(line)
	if len(f) < 6 || f[1] != "FLOCK" {
		return 0
	}
	pid, err := strconv.Atoi(f[4])
	if err != nil || pid <= 0 || !sameFile(f[5], key) {
		return 0
	}
	return pid
}

// sameFile reports whether a MAJOR:MINOR:INODE field names key.
func sameFile(field string, key dirKey) bool {
	parts := strings.Split(field, ":")
	if len(parts) != 3 {
		return false
	}
	major, err1 := strconv.ParseUint(parts[0], 16, 32)
	minor, err2 := strconv.ParseUint(parts[1], 16, 32)
	ino, err3 := strconv.ParseUint(parts[2], 10, 64)
	return err1 == nil && err2 == nil && err3 == nil &&
		major == devMajor(key.dev) && minor == devMinor(key.dev) && ino == key.ino
}

// devMajor and devMinor split a device number as Linux encodes it in st_dev.
func devMajor(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff) }
func devMinor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^uint64(0xff) }
