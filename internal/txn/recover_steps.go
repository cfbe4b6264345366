package txn

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/show"
)

// recovery is one run of recovery over a verified journal record.
type recovery struct {
	fsys afero.Fs
	f    *fence.Fence
	dir  string // the journal directory
	rec  *Record
	r    *Recovered
}

// Why recovery leaves a path it may not touch, whatever its journal says.
const (
	reasonOutside  = "outside the workspace, where recovery never writes; check it by hand"
	reasonNeither  = "it holds neither what it held before the interrupted commit nor what that commit wrote: someone else changed it; left as they made it"
	reasonUnclean  = "not a clean name inside the workspace; left as it is"
	reasonLinked   = "a symbolic link now stands on its way; left as it is"
	reasonFenced   = "a forbidden or protected path the commit was not granted; left as it is"
	reasonDeleted  = "deleted by someone else after this commit wrote it; left deleted"
	reasonBadCopy  = "its backup in the journal is not a plain file; left as it is"
	reasonIsDir    = "a directory is there now; left as it is"
	reasonNotAFile = "something other than a file is there now; left as it is"
)

// run undoes the record in the order rollback does: the paths that did not exist, then
// the temporary files and directories, then the paths that did. Every name is confined
// first (see confine): a name that fails is reported and left.
func (rc *recovery) run() error {
	steps := rc.rec.Steps
	names := make([]string, len(steps))
	for i := range steps {
		names[i] = rc.confine(&steps[i], i)
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if names[i] != "" && !steps[i].Existed {
			if err := rc.undoCreate(&steps[i], names[i]); err != nil {
				return err
			}
		}
	}
	for i, e := range steps {
		if names[i] != "" && e.Wrote != "" {
			if err := rc.removeTemp(tempFor(names[i], rc.rec.ID)); err != nil {
				return err
			}
		}
	}
	for i := len(rc.rec.Dirs) - 1; i >= 0; i-- {
		if name := rc.confineDir(rc.rec.Dirs[i]); name != "" {
			rc.removeEmptyDir(name)
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if names[i] != "" && steps[i].Existed {
			if err := rc.undoReplace(&steps[i], i, names[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// confine resolves a step's name as a payload path is resolved, returning the name to
// act on, or "" with the reason in the report. A name is acted on only when it is clean
// and relative, lies inside the workspace with no link on its way, and is neither
// forbidden nor protected unless the commit was granted it; a backup must be the
// step's own plain name.
func (rc *recovery) confine(e *Entry, i int) string {
	why := ""
	name := ""
	switch {
	case e.Outside:
		why = reasonOutside
	case e.Backup != "" && e.Backup != backupName(i):
		why = reasonUnclean
	default:
		name, why = rc.resolve(e.Name, e.Granted)
	}
	if why != "" {
		rc.r.Left[e.shown()] = why
		return ""
	}
	return name
}

// confineDir is confine for a directory the commit may have created.
func (rc *recovery) confineDir(rel string) string {
	name, why := rc.resolve(rel, false)
	if why != "" {
		rc.r.Left[showName(rel)] = why
	}
	return name
}

// resolve is the name in the workspace of a journal's relative name, or why there is
// none to act on.
func (rc *recovery) resolve(rel string, granted bool) (string, string) {
	if !cleanRelative(rel) {
		return "", reasonUnclean
	}
	local := filepath.FromSlash(rel)
	name := filepath.Join(rc.f.Real(), local)
	res, err := rc.f.Resolver().ResolveEntry(rc.f.Real(), local)
	switch {
	case err != nil:
		return "", "it cannot be reached now: " + fserr.Sanitize(err, name, rel).Error()
	case res.Name != name:
		return "", reasonLinked
	}
	class, outside := rc.f.ClassOf(local, name)
	switch {
	case outside:
		return "", reasonOutside
	case class == fence.ClassForbidden, class == fence.ClassProtected && !granted:
		return "", reasonFenced
	}
	return name, ""
}

// cleanRelative reports whether a journal name is relative, clean, slash-separated and
// local: no "..", no leading slash, no empty or "." component, no NUL, no volume.
func cleanRelative(rel string) bool {
	return rel != "" && rel != "." && !strings.ContainsRune(rel, 0) && path.Clean(rel) == rel &&
		!path.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, "../") &&
		filepath.IsLocal(filepath.FromSlash(rel)) && filepath.ToSlash(filepath.FromSlash(rel)) == rel
}

// showName makes a journal's name safe to show: it is only ever reported, never used.
func showName(s string) string { return strings.ToValidUTF8(show.Clip(s, 512), "?") }

// undoCreate removes a path the commit created, if it holds exactly what the commit
// wrote: the same bytes and mode, as a file.
func (rc *recovery) undoCreate(e *Entry, name string) error {
	fi, err := lstat(rc.fsys, name)
	switch {
	case absent(err):
		return nil // never written, or removed since
	case err != nil:
		return fserr.Sanitize(err, name, e.Path)
	case !fi.Mode().IsRegular():
		rc.r.Left[e.shown()] = reasonNeither
		return nil
	}
	if held, err := rc.holdsWritten(e, name, fi); err != nil || !held {
		return err
	}
	if err := rc.fsys.Remove(name); err != nil && !absent(err) {
		return fserr.Sanitize(err, name, e.Path)
	}
	rc.r.Restored = append(rc.r.Restored, e.Path)
	return nil
}

// holdsWritten reports whether a file holds what the step wrote, bytes and mode, and
// reports it as changed when it does not.
func (rc *recovery) holdsWritten(e *Entry, name string, fi fs.FileInfo) (bool, error) {
	if e.Wrote == "" || (e.WroteMode != 0 && filestate.ModeOf(fi) != e.WroteMode) {
		rc.r.Left[e.shown()] = reasonNeither
		return false, nil
	}
	data, err := afero.ReadFile(rc.fsys, name)
	if err != nil {
		return false, fserr.Sanitize(err, name, e.Path)
	}
	if !WroteMatches(data, e.Wrote) {
		rc.r.Left[e.shown()] = reasonNeither
		return false, nil
	}
	return true, nil
}

// undoReplace puts back a path that existed, from its backup, while it holds exactly
// what the commit left there: what a write wrote, or nothing after a removal. A path
// that still holds its baseline is left, and so is one someone else changed since.
func (rc *recovery) undoReplace(e *Entry, i int, name string) error {
	if e.Mode&fs.ModeSymlink != 0 {
		return rc.undoUnlink(e, name)
	}
	backup := filepath.Join(rc.dir, backupName(i))
	bfi, err := lstat(rc.fsys, backup)
	switch {
	case absent(err):
		return nil // a backup leaves the journal only by being put back: restored already
	case err != nil:
		return fserr.Sanitize(err, backup, e.Path)
	case !bfi.Mode().IsRegular():
		rc.r.Left[e.shown()] = reasonBadCopy
		return nil
	}
	if put, err := rc.mayPutBack(e, name, backup, bfi); err != nil || !put {
		return err
	}
	if !e.Linked {
		own := e.owner()
		if filestate.ChownNeeded(own) {
			if err := rc.fsys.Chown(backup, own.UID, own.GID); err != nil {
				return fserr.Sanitize(err, backup, e.Path)
			}
		}
		if err := rc.fsys.Chmod(backup, e.Mode); err != nil {
			return fserr.Sanitize(err, backup, e.Path)
		}
	}
	if err := rc.putBack(backup, name, e); err != nil {
		return fserr.Sanitize(err, name, e.Path)
	}
	rc.r.Restored = append(rc.r.Restored, e.Path)
	return nil
}

// mayPutBack reports whether a path that existed is to be put back from its backup.
func (rc *recovery) mayPutBack(e *Entry, name, backup string, bfi fs.FileInfo) (bool, error) {
	fi, err := lstat(rc.fsys, name)
	switch {
	case absent(err) && e.Wrote == "":
		return true, nil // the commit removed it
	case absent(err):
		rc.r.Left[e.shown()] = reasonDeleted
		return false, nil
	case err != nil:
		return false, fserr.Sanitize(err, name, e.Path)
	case fi.IsDir():
		rc.r.Left[e.shown()] = reasonIsDir
		return false, nil
	case !fi.Mode().IsRegular():
		rc.r.Left[e.shown()] = reasonNotAFile
		return false, nil
	case os.SameFile(fi, bfi):
		return false, nil // never replaced
	}
	if untouched, err := rc.holdsBackup(e, name, fi, backup); err != nil || untouched {
		return false, err
	}
	return rc.holdsWritten(e, name, fi)
}

// undoUnlink puts back a symbolic link the commit removed, pointing where it did,
// unless it is still there or something else took its place since.
func (rc *recovery) undoUnlink(e *Entry, name string) error {
	cur := filestate.ReadLink(rc.fsys, name)
	switch {
	case cur.Err != nil:
		return fserr.Sanitize(cur.Err, name, e.Path)
	case cur.Exists && string(cur.Data) == e.Target:
		return nil // never removed
	case cur.Exists:
		rc.r.Left[e.shown()] = reasonNeither
		return nil
	}
	switch _, err := lstat(rc.fsys, name); {
	case err == nil:
		rc.r.Left[e.shown()] = reasonNeither
		return nil
	case !absent(err):
		return fserr.Sanitize(err, name, e.Path)
	}
	if err := relink(rc.fsys, e.Target, name); err != nil {
		return fserr.Sanitize(err, name, e.Path)
	}
	rc.r.Restored = append(rc.r.Restored, e.Path)
	return nil
}

// putBack moves a backup to its path; where the filesystem cannot rename, it copies the
// backup's bytes into the path and removes the backup.
func (rc *recovery) putBack(backup, name string, e *Entry) error {
	err := rc.fsys.Rename(backup, name)
	if err == nil || !renameImpossible(err) {
		return err
	}
	data, err := afero.ReadFile(rc.fsys, backup)
	if err != nil {
		return err
	}
	f, err := rc.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|oNoFollow, e.Mode)
	if err != nil {
		return err
	}
	if _, err := fill(f, data, e.Mode, e.owner(), false); err != nil {
		return err
	}
	if err := rc.fsys.Chmod(name, e.Mode); err != nil {
		return err
	}
	return rc.fsys.Remove(backup)
}

// holdsBackup reports whether a path still holds its baseline's bytes and mode, where
// the backup is a copy (the same file is recognised by SameFile before).
func (rc *recovery) holdsBackup(e *Entry, name string, fi fs.FileInfo, backup string) (bool, error) {
	if filestate.ModeOf(fi) != e.Mode {
		return false, nil
	}
	a, err := afero.ReadFile(rc.fsys, name)
	if err != nil {
		return false, fserr.Sanitize(err, name, e.Path)
	}
	b, err := afero.ReadFile(rc.fsys, backup)
	if err != nil {
		return false, fserr.Sanitize(err, backup, e.Path)
	}
	return bytes.Equal(a, b), nil
}

// removeTemp removes a temporary file the commit may have left.
func (rc *recovery) removeTemp(name string) error {
	fi, err := lstat(rc.fsys, name)
	switch {
	case absent(err):
		return nil
	case err != nil:
		return fserr.Sanitize(err, name, rc.show(name))
	case !fi.Mode().IsRegular():
		return nil // not what a commit writes
	}
	if err := rc.fsys.Remove(name); err != nil && !absent(err) {
		return fserr.Sanitize(err, name, rc.show(name))
	}
	rc.r.Removed++
	return nil
}

// removeEmptyDir removes a directory the commit may have created, when it is empty.
func (rc *recovery) removeEmptyDir(dir string) {
	fi, err := lstat(rc.fsys, dir)
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

// show names a file inside the workspace for a report, relative to it.
func (rc *recovery) show(name string) string {
	if rel, err := filepath.Rel(rc.f.Real(), name); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.Base(name)
}

// tempFor is the temporary file a commit with the given id writes a target's new bytes
// through: hidden, beside the target, named for the commit (see txn.tempName).
func tempFor(target, id string) string {
	return cleanpath.Join(cleanpath.Dir(target), strings.TrimSuffix(tempPrefix(filepath.Base(target)), "*")+id)
}
