package eintr

import (
	"errors"
	"syscall"
	"testing"
)

// TestRetriesOnlyEINTR: a call interrupted twice is made a third time; any other error,
// and a negative count, come back at once (the error) and as 0 (the count).
func TestRetriesOnlyEINTR(t *testing.T) {
	calls := 0
	n, err := Count(func() (int, error) {
		calls++
		if calls < 3 {
			return -1, syscall.EINTR
		}
		return 7, nil
	})
	if n != 7 || err != nil || calls != 3 {
		t.Errorf("Count = %d, %v after %d calls; want 7, nil after 3", n, err, calls)
	}
	calls = 0
	n, err = Count(func() (int, error) { calls++; return -1, syscall.EBADF })
	if n != 0 || !errors.Is(err, syscall.EBADF) || calls != 1 {
		t.Errorf("Count = %d, %v after %d calls; want 0, EBADF after 1", n, err, calls)
	}
	calls = 0
	err = Err(func() error {
		calls++
		if calls < 2 {
			return syscall.EINTR
		}
		return syscall.ENOENT
	})
	if !errors.Is(err, syscall.ENOENT) || calls != 2 {
		t.Errorf("Err = %v after %d calls; want ENOENT after 2", err, calls)
	}
}
