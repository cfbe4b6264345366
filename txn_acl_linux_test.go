//go:build linux

package applypatch_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// withDefaultACL gives dir a default ACL that grants others nothing (user::rwx,
// group::r-x, other::---), or skips where the filesystem has no ACLs.
func withDefaultACL(t *testing.T, dir string) {
	t.Helper()
	const undefined = 0xFFFFFFFF
	acl := binary.LittleEndian.AppendUint32(nil, 2)                  // the version of the xattr form
	for _, e := range [][2]uint16{{0x01, 7}, {0x04, 5}, {0x20, 0}} { // user, group, other
		acl = binary.LittleEndian.AppendUint16(acl, e[0])
		acl = binary.LittleEndian.AppendUint16(acl, e[1])
		acl = binary.LittleEndian.AppendUint32(acl, undefined)
	}
	if err := syscall.Setxattr(dir, "system.posix_acl_default", acl, 0); err != nil {
		if errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EPERM) {
			t.Skipf("no default ACLs here: %v", err)
		}
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probe)
	if fi, err := os.Stat(probe); err != nil || fi.Mode().Perm() != 0o640 {
		t.Skipf("the default ACL does not narrow new files here (probe %v, %v)", fi.Mode(), err)
	}
}

// TestUpdateKeepsModeUnderDefaultACL: PERF1, X2. A file replaced in a directory with a
// default ACL keeps its own mode: the temporary file the ACL would narrow gets the mode
// set, on the operating system's filesystem and through a root.
func TestUpdateKeepsModeUnderDefaultACL(t *testing.T) {
	for _, confined := range []bool{false, true} {
		root := t.TempDir()
		dir := filepath.Join(root, "src")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		withDefaultACL(t, dir)
		name := filepath.Join(dir, "a.txt")
		if err := os.WriteFile(name, []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(name, 0o644); err != nil { // the ACL narrowed the create
			t.Fatal(err)
		}
		opts := &applypatch.Options{Workspace: root, Mode: applypatch.ModeEdits}
		if confined {
			ws, err := rootfs.Open(root)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			opts.WorkspaceFs = ws
		}
		payload := "*** Begin Patch\n*** Update File: src/a.txt\n@@\n-one\n+two\n*** End Patch\n"
		if _, err := applypatch.Apply(context.Background(), afero.NewOsFs(), payload, opts); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(name)
		if b, _ := os.ReadFile(name); err != nil || string(b) != "two\n" || fi.Mode().Perm() != 0o644 {
			t.Errorf("confined %v: a.txt is %q with mode %v, %v; want \"two\\n\" with 0644", confined, b, fi.Mode(), err)
		}
	}
}
