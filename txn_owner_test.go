//go:build unix

package applypatch_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// nobody is the owner of the files the owner tests give away.
const nobody = 65534

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("changing a file's owner needs root")
	}
}

// ownerMode reads a file's owner, group and mode bits.
func ownerMode(t *testing.T, name string) (uid, gid uint32, mode fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid, fi.Mode()
}

// setOwned writes a file owned by nobody with mode.
func setOwned(t *testing.T, name, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(name, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(name, mode); err != nil {
		t.Fatal(err)
	}
}

// TestUpdateKeepsOwnerAndModeBits: an Update and a Move keep the file's owner, group
// and every mode bit, setuid, setgid and sticky included (T6).
func TestUpdateKeepsOwnerAndModeBits(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	mode := fs.FileMode(0o755) | fs.ModeSetuid | fs.ModeSetgid
	setOwned(t, filepath.Join(dir, "s.sh"), "a\nb\n", mode)
	setOwned(t, filepath.Join(dir, "m.sh"), "a\nb\n", mode)
	payload := "*** Begin Patch\n*** Update File: s.sh\n@@\n-b\n+B\n*** Update File: m.sh\n*** Move to: sub/m.sh\n@@\n-b\n+B\n*** End Patch\n"
	if _, err := applypatch.Apply(context.Background(), afero.NewOsFs(), payload, &applypatch.Options{Workspace: dir}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s.sh", "sub/m.sh"} {
		uid, gid, got := ownerMode(t, filepath.Join(dir, name))
		if uid != nobody || gid != nobody || got != mode {
			t.Errorf("%s: %d:%d %v, want %d:%d %v", name, uid, gid, got, nobody, nobody, mode)
		}
	}
}

// TestRollbackKeepsOwnerAndModeBits: a patch that fails on a later path puts an earlier
// file back with its owner, group and setuid bit (T6, X5).
func TestRollbackKeepsOwnerAndModeBits(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	mode := fs.FileMode(0o700) | fs.ModeSetuid
	setOwned(t, filepath.Join(dir, "secret.conf"), "a\nb\n", mode)
	os.WriteFile(filepath.Join(dir, "late.txt"), []byte("a\nb\n"), 0o644)
	fsys := failRename{Fs: afero.NewOsFs(), name: filepath.Join(dir, "late.txt")}
	payload := "*** Begin Patch\n*** Update File: secret.conf\n@@\n-b\n+B\n*** Update File: late.txt\n@@\n-b\n+B\n*** End Patch\n"
	_, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Workspace: dir})
	var rb *applypatch.RolledBackError
	if !errors.As(err, &rb) {
		t.Fatalf("err = %v, want a rolled-back failure", err)
	}
	uid, gid, got := ownerMode(t, filepath.Join(dir, "secret.conf"))
	if b, _ := os.ReadFile(filepath.Join(dir, "secret.conf")); string(b) != "a\nb\n" || uid != nobody || gid != nobody || got != mode {
		t.Errorf("after rollback: %q %d:%d %v, want the baseline owned by %d with %v", b, uid, gid, got, nobody, mode)
	}
}

// failRename fails the rename onto one name, as a read-only file system would.
type failRename struct {
	afero.Fs
	name string
}

func (f failRename) Rename(oldname, newname string) error {
	if newname == f.name {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: syscall.EROFS}
	}
	return f.Fs.Rename(oldname, newname)
}

// TestLinkedFileNeverRewrittenInPlace: where rename is refused (EPERM, as in a sticky
// directory), a file with a second hard link, here outside the workspace, is not
// rewritten in place: the commit fails with a FileLinked FileError, rolls back, and the other
// name keeps its bytes (T6).
func TestLinkedFileNeverRewrittenInPlace(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\nb\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "l.txt"), []byte("a\nb\n"), 0o644)
	outside := filepath.Join(base, "outside.txt")
	if err := os.Link(filepath.Join(ws, "l.txt"), outside); err != nil {
		t.Skip("no hard links here:", err)
	}
	fsys := noRenameFs{afero.NewOsFs(), syscall.EPERM}
	payload := "*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n*** Update File: l.txt\n@@\n-b\n+B\n*** End Patch\n"
	_, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Workspace: ws})
	var le *applypatch.FileError
	if !errors.As(err, &le) || le.Reason != applypatch.FileLinked || le.Path != "l.txt" ||
		!strings.Contains(err.Error(), "2 hard links") || !strings.Contains(err.Error(), "nothing was applied") {
		t.Fatalf("err = %v, want a FileLinked FileError for l.txt with 2 hard links, rolled back", err)
	}
	for _, name := range []string{filepath.Join(ws, "a.txt"), filepath.Join(ws, "l.txt"), outside} {
		if b, _ := os.ReadFile(name); string(b) != "a\nb\n" {
			t.Errorf("%s: %q, want the baseline", name, b)
		}
	}
}
