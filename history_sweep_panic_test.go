package applypatch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// A panic while the histories of gone workspaces are swept, on the sweep's own
// goroutine, reaches the commit's caller, as it did when the sweep ran on the commit's
// goroutine, and the commit, not yet final, rolls back; it does not end the process
// from a goroutine no caller can reach (U1, X5).
func TestSweepPanicReachesCaller(t *testing.T) {
	defer func(f func(all, keep string, now time.Time)) { sweepAll = f }(sweepAll)
	sweepAll = func(all, keep string, now time.Time) { panic("sweeping") }
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := NewHistory(afero.NewOsFs(), filepath.Join(t.TempDir(), "history", "0123456789abcdef0123456789abcdef"))
	h.workspace = ws // a user history, which sweeps
	got := func() (r any) {
		defer func() { r = recover() }()
		Apply(context.Background(), afero.NewOsFs(), "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n",
			&Options{Workspace: ws, History: h})
		return nil
	}()
	if got != "sweeping" {
		t.Fatalf("recovered %v, want the sweep's panic", got)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt = %q after the panic, want it rolled back", b)
	}
}
