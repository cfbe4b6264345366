package txn

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/splitfs"
)

// shown is how a report names an entry's path: as authored where that is known.
func (e *Entry) shown() string {
	if e.Path != "" {
		return showName(e.Path)
	}
	return showName(e.Name)
}

// syncDir makes a rename durable with Options.Sync, where the platform can sync a
// directory.
func (tx *txn) syncDir(dir string) error {
	if !tx.cfg.Sync {
		return nil
	}
	return syncDir(tx.fsys, dir)
}

// journalFile is the record, in the journal directory, of a commit that may have written:
// while it exists, recovery puts every path back to its baseline. It is written, and
// synced, before the first write, and removed first when the commit ends.
const journalFile = "journal.json"

// Record is what recovery needs of an interrupted commit. Every name in it is
// relative to the workspace root, slash-separated and clean: a journal never names a
// file by an absolute name or one relative to a process's working directory, so a
// workspace moved or copied recovers itself and nothing else.
type Record struct {
	Version int `json:"version"`
	// ID names the commit's temporary files (see txn.tempName): recovery derives them
	// from it and each step's name, rather than reading names of them.
	ID    string  `json:"id"`
	Steps []Entry `json:"steps"`
	// Dirs are the directories the commit may create, outermost first.
	Dirs []string `json:"dirs,omitempty"`
}

// Entry is one planned step: the path, what it held, and what the step writes.
type Entry struct {
	Name string `json:"name"` // resolved, relative to the workspace root
	Path string `json:"path"` // as authored, for reports only
	// Outside is set for a path outside the workspace (written with the host's
	// authority): recovery never writes there, and only reports it.
	Outside bool `json:"outside,omitempty"`
	// Granted is set for a protected path the commit was allowed to write.
	Granted bool `json:"granted,omitempty"`
	Existed bool `json:"existed,omitempty"`
	// Backup names the baseline's copy in the journal directory, "b" and the step's
	// index: a hard link to the original file when Linked, else a copy, whose mode and
	// owner are below.
	Backup string      `json:"backup,omitempty"`
	Linked bool        `json:"linked,omitempty"`
	Mode   fs.FileMode `json:"mode,omitempty"`
	UID    int         `json:"uid,omitempty"`
	GID    int         `json:"gid,omitempty"`
	Owned  bool        `json:"owned,omitempty"`
	// Target is the target of a symbolic link the step removes (Mode has
	// fs.ModeSymlink): recovery puts the link itself back, so it has no backup.
	Target string `json:"target,omitempty"`
	// Wrote identifies what the step writes (see wroteID) and WroteMode its mode;
	// both are empty for a removal.
	Wrote     string      `json:"wrote,omitempty"`
	WroteMode fs.FileMode `json:"wrote_mode,omitempty"`
}

const journalVersion = 2

// journal is the durable record of one running commit.
type journal struct {
	fsys afero.Fs
	key  []byte
	dir  string // resolved name of the journal directory
	id   string // names this commit's temporary files
	rec  Record
	// backups are the backups by step, nil where the path did not exist.
	backups map[*Step]*Entry
	// made is what the journal directory was just after the commit made it: a host that
	// takes the directory over (see Kept) checks that it moved that very directory.
	made fs.FileInfo
	// shared is set when a backup is a hard link to a file that has other names.
	shared bool
}

// backupName is the name, in the journal directory, of step i's backup.
func backupName(i int) string { return "b" + strconv.Itoa(i) }

// beginJournal records the plan durably before its first write: the directory, a backup
// of each baseline (a hard link where the filesystem has them, else a copy), then the
// sealed record, synced with its directory and the workspace's. On failure what it made
// is removed and nothing else was written.
func (tx *txn) beginJournal(before []filestate.State) (err error) {
	id := newTempID()
	j := &journal{fsys: tx.fsys, key: tx.key, id: id, backups: map[*Step]*Entry{}}
	j.dir = filepath.Join(tx.root, JournalName(tx.key, id))
	if err := tx.fsys.Mkdir(j.dir, 0o700); err != nil {
		return fmt.Errorf("the commit journal could not be created: %w", fserr.Sanitize(err, j.dir, fence.JournalPrefix))
	}
	if tx.cfg.Keep != nil {
		j.made, _ = lstat(tx.fsys, j.dir)
	}
	markPending(tx.root, j.dir)
	defer func() {
		if err != nil {
			j.remove()
		}
	}()
	j.rec = Record{Version: journalVersion, ID: id, Dirs: tx.relative(tx.plannedDirs())}
	for i, st := range tx.plan {
		e := tx.entryOf(st, before[i])
		if e.Existed && !e.Outside {
			if err := j.backup(&e, i, st, before[i]); err != nil {
				return err
			}
			if e.Linked {
				tx.relinked(st)
			}
		}
		j.rec.Steps = append(j.rec.Steps, e)
	}
	for i, st := range tx.plan {
		if j.rec.Steps[i].Backup != "" {
			j.backups[st] = &j.rec.Steps[i]
		}
	}
	if err := j.write(); err != nil {
		return err
	}
	tx.jr = j
	return nil
}

// entryOf is the journal's entry of a step, before its backup is made.
func (tx *txn) entryOf(st *Step, before filestate.State) Entry {
	e := Entry{Path: st.Path, Existed: before.Exists}
	if rel, ok := splitfs.Within(tx.root, st.Name); ok && rel != "." {
		e.Name = filepath.ToSlash(rel)
		if tx.fence != nil {
			class, _ := tx.fence.ClassOf(rel, st.Name)
			e.Granted = class == fence.ClassProtected
		}
	} else {
		e.Outside = true
	}
	if st.Op == Write {
		e.Wrote, e.WroteMode = wroteID(st.Written()), st.Mode
	}
	return e
}

// relative are the names inside the workspace root, relative to it and slash-separated;
// names outside it are dropped, as recovery never touches them.
func (tx *txn) relative(names []string) []string {
	var out []string
	for _, n := range names {
		if rel, ok := splitfs.Within(tx.root, n); ok && rel != "." {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// backup keeps the baseline of step i: a hard link where possible, else a copy. A
// symbolic link that the step removes is kept as its target, which is all it holds.
func (j *journal) backup(e *Entry, i int, st *Step, cur filestate.State) error {
	if st.Base.IsLink() {
		e.Mode, e.Target = cur.Mode, string(cur.Data)
		return nil
	}
	e.Backup = backupName(i)
	e.Mode, e.UID, e.GID, e.Owned = cur.Mode, cur.Own.UID, cur.Own.GID, cur.Own.Known
	name := cleanpath.Join(j.dir, e.Backup)
	if splitfs.Link(j.fsys, st.Name, name) == nil {
		e.Linked = true
		j.shared = j.shared || cur.Own.Links > 1
		return nil
	}
	data := cur.Data
	if data == nil && st.Base.Bytes != nil {
		data = st.Base.Bytes
	}
	f, err := j.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = fill(f, data, 0o600, filestate.Owner{}, true)
	}
	if err != nil {
		return fmt.Errorf("the baseline of %s could not be kept for recovery: %w", st.Path, fserr.Sanitize(err, name, st.Path))
	}
	return nil
}

// write writes the record and makes it, the backups and the journal directory durable.
func (j *journal) write() error {
	data, err := sealRecord(j.key, filepath.Base(j.dir), &j.rec)
	if err != nil {
		return err
	}
	name := filepath.Join(j.dir, journalFile)
	f, err := j.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = fill(f, data, 0o600, filestate.Owner{}, true)
	}
	if err == nil {
		err = syncDir(j.fsys, j.dir)
	}
	if err == nil {
		err = syncDir(j.fsys, filepath.Dir(j.dir))
	}
	if err != nil {
		return fmt.Errorf("the commit journal could not be written: %w", fserr.Sanitize(err, name, fence.JournalPrefix))
	}
	return nil
}

// seal removes the journal's record: from then on the commit is final (or, after a
// rollback, over), and an interruption leaves nothing for recovery to undo. A failed
// removal is tried once more.
func (j *journal) seal() error {
	name := filepath.Join(j.dir, journalFile)
	err := j.fsys.Remove(name)
	if err != nil && !absent(err) && j.fsys.Remove(name) == nil {
		err = nil
	}
	if err != nil && !absent(err) {
		return fmt.Errorf("the commit journal could not be removed: %w", fserr.Sanitize(err, name, fence.JournalPrefix))
	}
	return nil
}

// cleanup removes the backups and the journal directory once the record is gone, trying
// a failed removal once more; what stays is removed by the next recovery. sync makes the
// removal of the record durable first.
func (j *journal) cleanup(sync bool) {
	if sync {
		syncDir(j.fsys, j.dir)
	}
	if j.remove() != nil {
		j.remove()
	}
}

// remove removes the journal directory and what is in it.
func (j *journal) remove() error {
	err := removeJournalDir(j.fsys, j.dir)
	if err == nil {
		clearPending(j.dir)
	}
	return err
}

// plannedDirs are the directories the plan's writes may create, outermost first: each
// missing parent, and each parent that is a file now (an earlier step removes it).
func (tx *txn) plannedDirs() []string {
	var dirs []string
	seen := map[string]bool{}
	for _, st := range tx.plan {
		if st.Op != Write {
			continue
		}
		var missing []string
		for d := cleanpath.Dir(st.Name); !seen[d]; d = cleanpath.Dir(d) {
			seen[d] = true
			if fi, err := tx.fsys.Stat(d); err == nil && fi.IsDir() {
				break
			}
			missing = append(missing, d)
			if cleanpath.Dir(d) == d {
				break
			}
		}
		for i := len(missing) - 1; i >= 0; i-- {
			dirs = append(dirs, missing[i])
		}
	}
	return dirs
}

// tempName is the temporary file a commit writes a target's new bytes through: hidden,
// beside the target, and named for the commit, so recovery knows it. The commit's id
// takes the place of the random part a pattern leaves to afero.TempFile.
func (tx *txn) tempName(target, id string) string { return tempFor(target, id) }

// newTempID is a random name part for one commit's temporary files.
func newTempID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// syncDir syncs a directory where the platform can, making the names in it durable.
func syncDir(fsys afero.Fs, dir string) error {
	f, err := fsys.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, errors.ErrUnsupported) || errors.Is(err, fs.ErrPermission) {
		return nil // directories cannot be synced here
	}
	return err
}

// errNoBackup says a step has no backup in the journal to restore from.
var errNoBackup = errors.New("no backup of the baseline")

// restoreBackup puts a path's baseline back from its backup in the journal, by rename: a
// hard link brings back the very file, with its owner, mode and other links; a copy gets
// the baseline's owner and mode first.
func (tx *txn) restoreBackup(st *Step) error {
	if tx.jr == nil || tx.jr.backups[st] == nil {
		return errNoBackup
	}
	e := tx.jr.backups[st]
	b := cleanpath.Join(tx.jr.dir, e.Backup)
	if !e.Linked {
		if err := tx.setOwnerMode(b, e.Mode, e.owner()); err != nil {
			return err
		}
	}
	return tx.fsys.Rename(b, st.Name)
}

// owner is the owner and group the entry's baseline had.
func (e *Entry) owner() filestate.Owner {
	return filestate.Owner{UID: e.UID, GID: e.GID, Known: e.Owned}
}

// detachBackup turns a step's backup from a hard link into a copy before the file is
// rewritten in place, which would change the link too. The copy is synced before the
// rewrite starts.
func (tx *txn) detachBackup(st *Step) error {
	if tx.jr == nil || tx.jr.backups[st] == nil || !tx.jr.backups[st].Linked {
		return nil
	}
	e := tx.jr.backups[st]
	name := cleanpath.Join(tx.jr.dir, e.Backup)
	data, err := afero.ReadFile(tx.fsys, name)
	if err == nil {
		err = tx.fsys.Remove(name)
	}
	var f afero.File
	if err == nil {
		f, err = tx.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if err == nil {
		_, err = fill(f, data, 0o600, filestate.Owner{}, true)
	}
	if err != nil {
		return fmt.Errorf("the baseline of %s could not be kept for recovery: %w", st.Path, fserr.Sanitize(err, name, st.Path))
	}
	e.Linked = false
	return nil
}
