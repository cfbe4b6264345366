package wslock

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestDirExcludesTwoHandles checks that two handles of one directory exclude each other,
// and that a waiter gives up when its context ends.
func TestDirExcludesTwoHandles(t *testing.T) {
	dir := t.TempDir()
	open := func() *os.File {
		d, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	release, err := Dir(context.Background(), open())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := Dir(ctx, open()); err != context.DeadlineExceeded {
		t.Fatalf("second lock while held: %v, want the context's deadline", err)
	}
	release()
	release2, err := Dir(context.Background(), open())
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	release2()
}
