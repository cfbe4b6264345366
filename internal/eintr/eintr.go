// Package eintr runs system calls made on bare descriptors again while a signal
// interrupts them, as the os package does for its own calls.
package eintr

import (
	"errors"
	"syscall"
)

// Count runs a call that returns a count (a read, a write, an open) again while a signal
// interrupts it; a negative count is returned as 0.
func Count(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if !errors.Is(err, syscall.EINTR) {
			return max(n, 0), err
		}
	}
}

// Err runs a call that returns only an error again while a signal interrupts it.
func Err(call func() error) error {
	for {
		if err := call(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
