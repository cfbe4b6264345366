package applypatch

import (
	"context"
	"testing"

	"github.com/spf13/afero"
)

// TestRewriteSavedAndRestored: P17. A review of a rewrite saved and restored is the same
// review: one change, and committing it writes the new content with the file's mode.
func TestRewriteSavedAndRestored(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/run.sh", []byte("old\nolder\n"), 0o750)
	payload := "*** Begin Patch\n*** Delete File: run.sh\n*** Add File: run.sh\n+new\n*** End Patch\n"
	opts := &Options{Workspace: "/ws", Mode: ModeAsk}
	pr, err := ResolvePayload(context.Background(), fsys, payload, opts)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := NewSession(pr).Save(SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := RestoreSession(context.Background(), fsys, saved, opts)
	if err != nil {
		t.Fatalf("RestoreSession: %v", err)
	}
	if v := s.View(); v.Total != 1 || v.Files != 1 {
		t.Errorf("restored review: %d changes in %d files, want 1 in 1", v.Total, v.Files)
	}
	if _, err := s.Submit(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, _ := afero.ReadFile(fsys, "/ws/run.sh")
	fi, _ := fsys.Stat("/ws/run.sh")
	if string(b) != "new\n" || fi.Mode().Perm() != 0o750 {
		t.Errorf("run.sh = %q, mode %v; want \"new\\n\", 0750", b, fi.Mode().Perm())
	}
}
