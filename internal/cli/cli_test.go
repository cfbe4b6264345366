package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/spf13/afero"
)

// TestWorkspaceWritesGoThroughRoot checks the CLI's TOCTOU design (F1, H5): every write
// inside the workspace goes through the os.Root, never through the plain filesystem the
// paths are resolved on, so a link swapped in at the last moment cannot redirect it. The
// plain filesystem here fails every change; the workspace patch still applies, and only
// an allowed outside path reaches it.
func TestWorkspaceWritesGoThroughRoot(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "src", "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "old.txt"), []byte("old\n"), 0o644)
	saved := hostFs
	defer func() { hostFs = saved }()
	var watched *faultfs.Fs
	hostFs = func() afero.Fs {
		watched = faultfs.New(afero.NewOsFs(), faultfs.FailEvery(nil))
		return watched
	}

	inside := "*** Begin Patch\n*** Update File: src/a.txt\n@@\n-a\n+A\n*** Add File: new/b.txt\n+b\n" +
		"*** Update File: old.txt\n*** Move to: moved/old.txt\n*** End Patch\n"
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"-C", ws, inside}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n := watched.Count(); n != 0 {
		t.Errorf("%d changes reached the plain filesystem: %v", n, watched.Events())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "moved", "old.txt")); string(b) != "old\n" {
		t.Errorf("moved/old.txt = %q", b)
	}

	outside := "*** Begin Patch\n*** Add File: ../out.txt\n+o\n*** End Patch\n"
	stderr.Reset()
	if code := Run([]string{"--allow-outside", "-C", ws, outside}, nil, &stdout, &stderr); code != 1 {
		t.Fatalf("outside write through a failing filesystem: exit %d, want 1", code)
	}
	if watched.Count() == 0 {
		t.Error("the outside write did not reach the plain filesystem")
	}
	if strings.Contains(stderr.String(), base) {
		t.Errorf("error names a host path: %s", stderr.String())
	}
}
