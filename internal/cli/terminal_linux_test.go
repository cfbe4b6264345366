package cli

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openTerminal opens a pseudo-terminal and returns its terminal side.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip("no pseudo-terminals here:", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skip("unlocking the pseudo-terminal:", e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skip("naming the pseudo-terminal:", e)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("opening the pseudo-terminal:", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestTerminalStdinHint checks that with no payload argument and a terminal on standard
// input the command says how to give a payload at once instead of waiting (H5).
func TestTerminalStdinHint(t *testing.T) {
	tty := openTerminal(t)
	done := make(chan int, 1)
	var stdout, stderr bytes.Buffer
	go func() { done <- Run([]string{"-C", t.TempDir()}, tty, &stdout, &stderr) }()
	select {
	case code := <-done:
		if code != exitUsage {
			t.Errorf("exit %d, want %d", code, exitUsage)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command waits on the terminal")
	}
	if want := "applypatch: " + errNoPayload.Error() + "\n"; stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want the hint %q on stderr", stdout.String(), stderr.String(), want)
	}
}
