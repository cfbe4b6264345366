package applypatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/applypatch/applypatch/internal/linktree"
)

// movedWorkspaces are the ways a long-running host's workspace can stop being the
// directory it opened (X17): moved away with a new one made in its place, replaced by a
// link to another directory, or removed.
var movedWorkspaces = map[string]func(t *testing.T, ws string){
	"renamed and made again": func(t *testing.T, ws string) {
		must(t, os.Rename(ws, ws+".old"))
		must(t, os.Mkdir(ws, 0o755))
		must(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644))
	},
	"replaced by a link": func(t *testing.T, ws string) {
		must(t, os.Rename(ws, ws+".old"))
		other := filepath.Join(filepath.Dir(ws), "other")
		must(t, os.Mkdir(other, 0o755))
		must(t, os.WriteFile(filepath.Join(other, "a.txt"), []byte("one\n"), 0o644))
		must(t, os.Symlink("other", ws))
	},
	"removed": func(t *testing.T, ws string) {
		must(t, os.Rename(ws, ws+".old"))
	},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestWorkspaceMovedRefused: a host that opened its workspace once (an os.Root) and
// keeps it across calls is refused with ErrWorkspaceMoved once the directory it opened is
// no longer the one its name leads to, whether the payload is resolved afterwards or
// before (the commit checks again under the lock), and nothing is written in either
// directory (X17).
func TestWorkspaceMovedRefused(t *testing.T) {
	payload := payload("*** Add File: new.txt", "+x", "*** Update File: a.txt", "@@", "-one", "+two")
	for name, move := range movedWorkspaces {
		for _, late := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "", true: " after resolve"}[late], func(t *testing.T) {
				base := t.TempDir()
				ws := filepath.Join(base, "ws")
				must(t, os.Mkdir(ws, 0o755))
				must(t, os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644))
				root, err := rootfs.Open(ws)
				must(t, err)
				defer root.Close()
				opts := &Options{Workspace: ws, WorkspaceFs: root}
				var pr *Proposal
				if late {
					pr, err = Resolve(context.Background(), afero.NewOsFs(), mustParse(t, payload), opts)
					must(t, err)
				}
				move(t, ws)
				if late {
					_, err = Commit(context.Background(), pr)
				} else {
					_, err = Apply(context.Background(), afero.NewOsFs(), payload, opts)
				}
				if !errors.Is(err, ErrWorkspaceMoved) {
					t.Fatalf("err = %v, want ErrWorkspaceMoved", err)
				}
				if !strings.Contains(err.Error(), "must open the workspace again") {
					t.Errorf("the error does not say what to do: %v", err)
				}
				for _, dir := range []string{ws + ".old", ws} {
					if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err == nil && string(b) != "one\n" {
						t.Errorf("%s/a.txt = %q, written", filepath.Base(dir), b)
					}
					if _, err := os.Lstat(filepath.Join(dir, "new.txt")); err == nil {
						t.Errorf("%s/new.txt was written", filepath.Base(dir))
					}
				}
				// Opened again, the workspace takes the payload.
				again, err := rootfs.Open(ws)
				if err != nil {
					return // removed: there is nothing to open
				}
				defer again.Close()
				opts.WorkspaceFs = again
				if _, err := Apply(context.Background(), afero.NewOsFs(), payload, opts); err != nil {
					t.Fatalf("after opening the workspace again: %v", err)
				}
			})
		}
	}
}

// TestWorkspaceNameReadTwoWays: a workspace named through a link then "..", which the
// kernel follows to the link's parent while the fence cleans the name lexically, names
// two directories: the call is refused rather than fence one and write in the other
// (X17, F1).
func TestWorkspaceNameReadTwoWays(t *testing.T) {
	base := linktree.Build(t, "ws/", "deep/d/", "deep/ws/", "l2 -> deep/d")
	t.Chdir(base)
	name := "l2/../ws"
	root, err := rootfs.Open(name) // deep/ws, as the kernel reads the name
	must(t, err)
	defer root.Close()
	_, err = Apply(context.Background(), afero.NewOsFs(), payload("*** Add File: new.txt", "+x"),
		&Options{Workspace: name, WorkspaceFs: root})
	if !errors.Is(err, ErrWorkspaceMoved) || !strings.Contains(err.Error(), "opened another directory") {
		t.Fatalf("err = %v, want ErrWorkspaceMoved", err)
	}
	for _, dir := range []string{"ws", "deep/ws"} {
		if _, err := os.Lstat(filepath.Join(base, dir, "new.txt")); err == nil {
			t.Errorf("%s/new.txt was written", dir)
		}
	}
}
