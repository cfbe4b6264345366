//go:build unix

package filestate

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// X16, T1: a path that is a FIFO (planted by a tarball, or made since) is refused as no
// regular file at once: opening it must not wait for a writer, which would hang the
// commit with the workspace lock held.
func TestCaptureRefusesFIFOWithoutWaiting(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "a.txt")
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Capture(afero.NewOsFs(), name, "a.txt", 1<<20, Stamps{})
		done <- err
	}()
	select {
	case err := <-done:
		var re *ReadError
		if !errors.As(err, &re) || !errors.Is(err, errNotRegular) || re.Path != "a.txt" {
			t.Fatalf("Capture of a FIFO = %v, want a *ReadError for a.txt saying it is no regular file", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Capture of a FIFO is still waiting after 10s (for a writer that never comes)")
	}
}
