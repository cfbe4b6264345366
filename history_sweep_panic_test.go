package applypatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// A panic while the histories of gone workspaces are swept, on the sweep's own
// goroutine, reaches the commit's caller, as it did when the sweep ran on the commit's
// goroutine; it does not end the process from a goroutine no caller can reach (U1, X5).
// A commit of many steps sweeps beside its writes and waits for the sweep before it
// becomes final, so it is rolled back; one of few sweeps once it is final, beside its
// history entry, and stands, entry and all, as it would after a panic in the entry.
func TestSweepPanicReachesCaller(t *testing.T) {
	defer func(f func(all, keep string, now time.Time)) { sweepAll = f }(sweepAll)
	sweepAll = func(all, keep string, now time.Time) { panic("sweeping") }
	for _, files := range []int{sweepBesideSteps, 1} {
		t.Run(fmt.Sprintf("%d files", files), func(t *testing.T) {
			ws := t.TempDir()
			payload := "*** Begin Patch\n"
			for i := range files {
				if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", i)), []byte("a\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				payload += fmt.Sprintf("*** Update File: f%d.txt\n@@\n-a\n+b\n", i)
			}
			payload += "*** End Patch\n"
			h := NewHistory(afero.NewOsFs(), filepath.Join(t.TempDir(), "history", "0123456789abcdef0123456789abcdef"))
			h.workspace = ws // a user history, which sweeps
			got := func() (r any) {
				defer func() { r = recover() }()
				Apply(context.Background(), afero.NewOsFs(), payload, &Options{Workspace: ws, History: h})
				return nil
			}()
			if got != "sweeping" {
				t.Fatalf("recovered %v, want the sweep's panic", got)
			}
			want, entries := "a\n", 0
			if files < sweepBesideSteps {
				want, entries = "b\n", 1
			}
			for i := range files {
				if b, _ := os.ReadFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", i))); string(b) != want {
					t.Errorf("f%d.txt = %q after the panic, want %q", i, b, want)
				}
			}
			if list, err := h.Entries(); err != nil || len(list) != entries {
				t.Errorf("the history holds %d entries (%v), want %d", len(list), err, entries)
			}
			if leftover, _ := filepath.Glob(filepath.Join(ws, ".*")); len(leftover) > 0 {
				t.Errorf("the workspace holds %v after the panic", leftover)
			}
		})
	}
}
