package txn

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/splitfs"
)

// A commit whose workspace is a directory of the operating system leaves a marker in the
// user's state directory while its journal exists: a file named for the journal
// directory that holds the workspace's real path. Recovery runs in the workspace it is
// asked for, but a commit killed in p leaves a journal that a later run in p/sub must
// also see, since p's commit wrote p/sub's files; the markers let a run find the
// interrupted commits of the workspaces that hold its own, or that it holds.

// pendingDir is where the markers are, or "" without a state directory.
func pendingDir() string {
	d, err := stateDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "pending")
}

// markPending records that the journal directory dir of the workspace root exists. It
// writes nothing for a workspace that is not the operating system's (the journal is not
// at that name there), and a failure only costs the other workspaces the notice.
func markPending(root, dir string) {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	pd := pendingDir()
	if pd == "" || os.MkdirAll(pd, 0o700) != nil {
		return
	}
	if f, err := os.OpenFile(filepath.Join(pd, filepath.Base(dir)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
		f.WriteString(root)
		f.Close()
	}
}

// clearPending removes the marker of the journal directory dir, if there is one.
func clearPending(dir string) {
	if pd := pendingDir(); pd != "" {
		os.Remove(filepath.Join(pd, filepath.Base(dir)))
	}
}

// pendingLimit bounds the markers one run reads, and the bytes of each.
const (
	pendingLimit = 1024
	pendingBytes = 4096
)

// Related returns the workspaces, by real path, that hold the workspace root or that it
// holds, other than root itself, with an interrupted commit's journal: each to be
// recovered, under its own lock, before a run in root goes on. A marker whose journal is
// gone, of any workspace, is removed, so markers left by trees deleted since do not
// pile up.
func Related(root string) []string {
	out := enclosingJournals(root)
	pd := pendingDir()
	if pd == "" {
		return out
	}
	d, err := os.Open(pd)
	if err != nil {
		return out
	}
	names, _ := d.Readdirnames(pendingLimit)
	d.Close()
	for _, n := range names {
		if !strings.HasPrefix(n, fence.JournalPrefix) {
			continue
		}
		ws, ok := readMarker(filepath.Join(pd, n))
		if !ok {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(ws, n)); err != nil || !fi.IsDir() {
			os.Remove(filepath.Join(pd, n)) // recovered, or finished, since (or its tree is gone)
			continue
		}
		if ws != root && (below(root, ws) || below(ws, root)) && !slices.Contains(out, ws) {
			out = append(out, ws)
		}
	}
	return out
}

// enclosingJournals returns the directories above root that hold an entry named like a
// journal: a workspace moved or copied after a commit in it was killed carries its
// journal, while the marker names where it was. It looks as the lock climbs (see
// wslock): up to "/" or the first directory of another owner, at most ancestorLimit
// of them, reading at most pendingLimit names of each.
func enclosingJournals(root string) []string {
	owner, ok := ownerOf(root)
	if !ok {
		return nil
	}
	var out []string
	for dir, n := filepath.Dir(root), 0; dir != root && n < ancestorLimit; root, dir, n = dir, filepath.Dir(dir), n+1 {
		if o, ok := ownerOf(dir); !ok || o != owner || dir == filepath.Dir(dir) {
			break
		}
		if holdsJournal(dir) {
			out = append(out, dir)
		}
	}
	return out
}

// ancestorLimit bounds the directories above a workspace a run looks into.
const ancestorLimit = 16

// holdsJournal reports whether dir has an entry named like a journal.
func holdsJournal(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(pendingLimit)
	return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, fence.JournalPrefix) })
}

// readMarker reads the workspace a marker names: a clean absolute path.
func readMarker(name string) (string, bool) {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > pendingBytes {
		return "", false
	}
	b, err := os.ReadFile(name)
	ws := string(b)
	return ws, err == nil && filepath.IsAbs(ws) && filepath.Clean(ws) == ws && !strings.ContainsRune(ws, 0)
}

// below reports whether name lies strictly below dir.
func below(dir, name string) bool {
	rel, ok := splitfs.Within(dir, name)
	return ok && rel != "."
}

// ownerOf returns the user owning dir, as filestate reads owners (0 where the platform
// has none), and whether dir could be looked at.
func ownerOf(dir string) (int, bool) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, false
	}
	return filestate.OwnerOf(fi).UID, true
}
