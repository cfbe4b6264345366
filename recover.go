package applypatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/spf13/afero"
)

// A Recovery reports what [Recover] found and did.
type Recovery struct {
	// Found is set when an interrupted commit's journal was found.
	Found bool `json:"found"`
	// Restored are the paths, as authored, put back to what they held before the
	// interrupted commit.
	Restored []string `json:"restored,omitempty"`
	// Removed counts the temporary files and directories the interrupted commit had
	// created and recovery removed, the journal not included.
	Removed int `json:"removed,omitempty"`
	// Left maps each path recovery left as it is to why: it was changed after the
	// interrupted commit wrote it, or could not be restored.
	Left map[string]string `json:"left,omitempty"`
}

// String says what was recovered, in one line: empty when there was nothing.
func (r *Recovery) String() string {
	if r == nil || !r.Found {
		return ""
	}
	var b strings.Builder
	b.WriteString("recovered an interrupted commit: ")
	if len(r.Restored) == 0 {
		b.WriteString("no path had been changed")
	} else {
		fmt.Fprintf(&b, "restored %s", strings.Join(showPaths(r.Restored), ", "))
	}
	if r.Removed > 0 {
		fmt.Fprintf(&b, "; removed %d temporary files and directories it had created", r.Removed)
	}
	for _, p := range slices.Sorted(mapsKeys(r.Left)) {
		fmt.Fprintf(&b, "; left %s: %s", showPath(p), r.Left[p])
	}
	return clip(b.String(), errorBudget)
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Recover undoes a commit that was interrupted (the process killed, the machine
// stopped) in the workspace opts describe on fsys: every path it had written is put back
// to its baseline, with its mode and owner, and the temporary files, directories and the
// journal it had created are removed, so the tree is as it was before that commit. A
// path changed by someone else since the interrupted commit wrote it is left as it is
// and reported in Recovery.Left. With no interrupted commit it does nothing and reports
// Found false.
// When it cannot finish (a path cannot be restored, a file it must remove stays) it
// returns what it did with an [*IncompleteRollbackError]; run it again once the cause is
// fixed.
//
// Hosts call it when they start, before anything else touches the workspace; [Commit]
// and [Apply] also run it under their lock before they write. It holds the workspace's
// lock while it runs, waiting for it as long as ctx allows.
func Recover(ctx context.Context, fsys afero.Fs, opts *Options) (*Recovery, error) {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return nil, err
	}
	unlock, err := lockWorkspace(ctx, fsys, f, opts)
	if err != nil {
		return nil, lockError(err)
	}
	defer unlock()
	return recoverJournal(f.files, f.real)
}

// recoverFor runs recovery for Apply, which holds the lock already.
func recoverFor(fsys afero.Fs, opts *Options) error {
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return nil // Resolve reports it
	}
	_, err = recoverJournal(f.files, f.real)
	return err
}

// recoverJournal undoes the commit whose journal is in the workspace root, if any. The
// caller holds the workspace's lock.
func recoverJournal(fsys afero.Fs, root string) (*Recovery, error) {
	dir := journalOf(root)
	if _, err := fsys.Stat(dir); absent(err) {
		return &Recovery{}, nil
	}
	r := &Recovery{Found: true, Left: map[string]string{}}
	data, err := afero.ReadFile(fsys, filepath.Join(dir, journalFile))
	if err != nil && !absent(err) {
		return r, recoveryError(r, fserr.Sanitize(err, dir, journalDir))
	}
	// A record that is missing or cut short was never complete, so the commit never
	// wrote: it writes only once its record is synced.
	var rec journalRecord
	if err == nil && json.Unmarshal(data, &rec) == nil {
		if rec.Version != journalVersion {
			return r, recoveryError(r, fmt.Errorf("the journal has version %d, which this version cannot read", rec.Version))
		}
		rc := &recovery{fsys: fsys, dir: dir, root: root, rec: &rec, r: r}
		if err := rc.run(); err != nil {
			return r, recoveryError(r, err)
		}
	}
	// Without a complete record the commit never wrote: only the journal is left.
	if err := removeJournalDir(fsys, dir); err != nil {
		return r, recoveryError(r, fserr.Sanitize(err, dir, journalDir))
	}
	if len(r.Left) == 0 {
		r.Left = nil
	}
	return r, nil
}

// recoveryError is a recovery that stopped at err: every path it left is not restored.
func recoveryError(r *Recovery, err error) error {
	paths := make([]string, 0, len(r.Left))
	for p := range r.Left {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return &IncompleteRollbackError{Cause: err, Paths: paths, Reasons: r.Left, recovery: true}
}

// recovery is one run of recovery over a journal record.
type recovery struct {
	fsys      afero.Fs
	dir, root string
	rec       *journalRecord
	r         *Recovery
}

// run undoes the record in the order rollback does: the paths that did not exist, then
// the temporary files and directories, then the paths that did.
func (rc *recovery) run() error {
	steps := rc.rec.Steps
	for i := len(steps) - 1; i >= 0; i-- {
		if !steps[i].Existed {
			if err := rc.undoCreate(&steps[i]); err != nil {
				return err
			}
		}
	}
	for _, t := range rc.rec.Temps {
		if err := rc.removeIfThere(t); err != nil {
			return err
		}
	}
	for i := len(rc.rec.Dirs) - 1; i >= 0; i-- {
		rc.removeEmptyDir(rc.rec.Dirs[i])
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Existed {
			if err := rc.undoReplace(&steps[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// undoCreate removes a path the commit created, if it holds what the commit wrote.
func (rc *recovery) undoCreate(e *journalEntry) error {
	data, exists, err := rc.contentOf(e.Name)
	switch {
	case err != nil:
		return err
	case !exists:
		return nil // never written
	case !wroteMatches(data, e.Wrote):
		rc.r.Left[e.Path] = reasonChanged
		return nil
	}
	if err := rc.fsys.Remove(e.Name); err != nil && !absent(err) {
		return fserr.Sanitize(err, e.Name, e.Path)
	}
	rc.r.Restored = append(rc.r.Restored, e.Path)
	return nil
}

// undoReplace puts back a path that existed, from its backup, unless it still holds its
// baseline or someone else changed it since the commit wrote it.
func (rc *recovery) undoReplace(e *journalEntry) error {
	if e.Mode&fs.ModeSymlink != 0 {
		return rc.undoUnlink(e)
	}
	backup := filepath.Join(rc.dir, e.Backup)
	bfi, err := rc.fsys.Stat(backup)
	switch {
	case absent(err):
		return nil // a backup leaves the journal only by being put back: restored already
	case err != nil:
		return fserr.Sanitize(err, backup, e.Path)
	}
	fi, err := rc.fsys.Stat(e.Name)
	switch {
	case absent(err):
	case err != nil:
		return fserr.Sanitize(err, e.Name, e.Path)
	case fi.IsDir():
		rc.r.Left[e.Path] = "a directory is there now; left as it is"
		return nil
	case os.SameFile(fi, bfi):
		return nil // never replaced
	default:
		if untouched, err := rc.holdsBackup(e, fi, backup); err != nil || untouched {
			return err
		}
		data, _, err := rc.contentOf(e.Name)
		if err != nil {
			return err
		}
		if !wroteMatches(data, e.Wrote) {
			rc.r.Left[e.Path] = reasonChanged
			return nil
		}
	}
	if !e.Linked {
		own := e.owner()
		if chownNeeded(own) {
			if err := rc.fsys.Chown(backup, own.uid, own.gid); err != nil {
				return fserr.Sanitize(err, backup, e.Path)
			}
		}
		if err := rc.fsys.Chmod(backup, e.Mode); err != nil {
			return fserr.Sanitize(err, backup, e.Path)
		}
	}
	if err := rc.putBack(backup, e); err != nil {
		return fserr.Sanitize(err, e.Name, e.Path)
	}
	rc.r.Restored = append(rc.r.Restored, e.Path)
	return nil
}

// undoUnlink puts back a symbolic link the commit removed, pointing where it did,
// unless it is still there or something else took its place since.
func (rc *recovery) undoUnlink(e *journalEntry) error {
	cur := readLinkState(rc.fsys, e.Name)
	switch {
	case cur.err != nil:
		return fserr.Sanitize(cur.err, e.Name, e.Path)
	case cur.exists && string(cur.data) == e.Target:
		return nil // never removed
	case cur.exists:
		rc.r.Left[e.Path] = reasonChanged
		return nil
	}
	switch _, err := rc.fsys.Stat(e.Name); {
	case err == nil:
		rc.r.Left[e.Path] = reasonChanged
		return nil
	case !absent(err):
		return fserr.Sanitize(err, e.Name, e.Path)
	}
	if err := relink(rc.fsys, e.Target, e.Name); err != nil {
		return fserr.Sanitize(err, e.Name, e.Path)
	}
	rc.r.Restored = append(rc.r.Restored, e.Path)
	return nil
}

// putBack moves a backup to its path; where the filesystem cannot rename, it copies the
// backup's bytes into the path and removes the backup.
func (rc *recovery) putBack(backup string, e *journalEntry) error {
	err := rc.fsys.Rename(backup, e.Name)
	if err == nil || !renameImpossible(err) {
		return err
	}
	data, err := afero.ReadFile(rc.fsys, backup)
	if err != nil {
		return err
	}
	f, err := rc.fsys.OpenFile(e.Name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, e.Mode)
	if err != nil {
		return err
	}
	if _, err := fill(f, data, e.Mode, e.owner(), false); err != nil {
		return err
	}
	if err := rc.fsys.Chmod(e.Name, e.Mode); err != nil {
		return err
	}
	return rc.fsys.Remove(backup)
}

// holdsBackup reports whether a path still holds its baseline's bytes and mode, where
// the backup is a copy (the same file is recognised by SameFile before).
func (rc *recovery) holdsBackup(e *journalEntry, fi fs.FileInfo, backup string) (bool, error) {
	if modeOf(fi) != e.Mode {
		return false, nil
	}
	a, err := afero.ReadFile(rc.fsys, e.Name)
	if err != nil {
		return false, fserr.Sanitize(err, e.Name, e.Path)
	}
	b, err := afero.ReadFile(rc.fsys, backup)
	if err != nil {
		return false, fserr.Sanitize(err, backup, e.Path)
	}
	return bytes.Equal(a, b), nil
}

// contentOf returns a file's bytes; exists is false when it does not exist.
func (rc *recovery) contentOf(name string) (data []byte, exists bool, err error) {
	data, err = afero.ReadFile(rc.fsys, name)
	switch {
	case absent(err):
		return nil, false, nil
	case err != nil:
		return nil, false, fserr.Sanitize(err, name, rc.show(name))
	}
	return data, true, nil
}

// removeIfThere removes a temporary file the commit may have left.
func (rc *recovery) removeIfThere(name string) error {
	err := rc.fsys.Remove(name)
	switch {
	case err == nil:
		rc.r.Removed++
	case !absent(err):
		return fserr.Sanitize(err, name, rc.show(name))
	}
	return nil
}

// removeEmptyDir removes a directory the commit may have created, when it is empty.
func (rc *recovery) removeEmptyDir(dir string) {
	fi, err := rc.fsys.Stat(dir)
	if err != nil || !fi.IsDir() {
		return
	}
	if names, err := readDirNames(rc.fsys, dir); err != nil || len(names) > 0 {
		if err == nil {
			rc.r.Left[rc.show(dir)] = reasonDirFull
		}
		return
	}
	if rc.fsys.Remove(dir) == nil {
		rc.r.Removed++
	}
}

// show names a file for a report: relative to the workspace where it is inside.
func (rc *recovery) show(name string) string {
	if rel, ok := splitfs.Within(rc.root, name); ok {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(name)
}
