package txn

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/applypatch/applypatch/internal/sysstat"
)

// exec runs step i of the plan after checking, once more, the context, the fence, the
// owner, the editor buffer and the path's state.
func (tx *txn) exec(ctx context.Context, i int) error {
	st := tx.plan[i]
	if err := ctx.Err(); err != nil {
		return err
	}
	var seen fs.FileInfo
	if tx.guard != nil {
		var err error
		if seen, err = tx.guard(st); err != nil {
			return err
		}
	}
	if !tx.owns(st.Name) {
		return &Conflict{Reason: NotOwned, Paths: []string{st.Path}}
	}
	if tx.unsaved(st.Name) {
		return &Conflict{Reason: Unsaved, Paths: []string{st.Path}}
	}
	cur, ok := tx.unchanged(st, seen)
	switch {
	case ok:
	case creates(st):
		// The rename or hard link that places the file refuses a name that exists
		// (placeNew), and where there is neither the look happens there, just before the
		// rename.
		cur = filestate.State{}
	default:
		cur = tx.readStep(st)
	}
	if cur.Err != nil {
		return tx.unreadable(st, cur.Err)
	}
	if seen != nil && cur.Info != nil && sysstat.OtherFile(seen, cur.Info) {
		// The fence's walk of the path found another file than the one just read through
		// the directory the commit keeps open: that directory was swapped away.
		return &Conflict{Reason: Changed, Paths: []string{st.Path}}
	}
	stale := &Conflict{Reason: Changed}
	if tx.check(st, cur, stale); len(stale.Paths) > 0 {
		return stale
	}
	d := &done{step: st, before: cur}
	tx.done = append(tx.done, d)
	var err error
	switch st.Op {
	case Remove:
		err = tx.fsys.Remove(st.Name)
	case Write:
		err = tx.mkdirs(st)
		tx.ahead.madeDirs(i)
		if err == nil {
			name, werr := tx.ahead.temp(tx, i)
			err = tx.replaceBy(st, name, werr, st.Body, st.Mode, st.owner, &d.inPlace, tx.stillAsRead(d))
		}
	}
	var linked *Linked
	if errors.As(err, &linked) {
		return linked // its cause is sanitised already
	}
	var taken *Conflict
	if errors.As(err, &taken) && st.Op == Write {
		// Another program created the path meanwhile (placeNew), or changed the file
		// while the new bytes were written (stillAsRead): the step did not take effect,
		// and rollback must not take that program's file for this commit's.
		tx.done = tx.done[:len(tx.done)-1]
		return taken
	}
	if err != nil {
		return fserr.Sanitize(err, st.Name, st.Path)
	}
	return nil
}

// mkdirs creates the missing parents of a step's path, recording each so rollback can
// remove exactly those. The first missing parent is found by binary search over
// the parents (a parent exists when any directory below it does), and the chain is made
// by one MkdirAll, which walks the name once: the cost grows with the depth, not with
// its square. Only this transaction creates directories meanwhile: it holds the lock.
func (tx *txn) mkdirs(st *Step) error {
	var up []string // the parents not known to exist, deepest first
	for d := cleanpath.Dir(st.Name); !tx.present[d]; d = cleanpath.Dir(d) {
		up = append(up, d)
		if cleanpath.Dir(d) == d {
			break
		}
	}
	var statErr error
	first := sort.Search(len(up), func(i int) bool {
		_, err := tx.fsys.Stat(up[i])
		if err != nil && !errors.Is(err, fs.ErrNotExist) && statErr == nil {
			statErr = err
		}
		return err == nil
	})
	if statErr != nil {
		return statErr
	}
	if first < len(up) {
		tx.known(up[first])
	}
	missing := up[:first]
	if len(missing) == 0 {
		return nil
	}
	err := tx.fsys.MkdirAll(missing[0], 0o755)
	for _, d := range slices.Backward(missing) {
		if err != nil {
			if _, serr := tx.fsys.Stat(d); serr != nil {
				break // not made: neither are the ones below it
			}
		}
		tx.dirs = append(tx.dirs, created{name: d, st: st})
		tx.known(d)
	}
	return err
}

// known records a directory that exists, so later steps of the batch do not ask again.
// Only this transaction's steps run in the meantime: it holds the filesystem's lock.
func (tx *txn) known(dir string) {
	if tx.present == nil {
		tx.present = map[string]bool{}
	}
	tx.present[dir] = true
}

// replace writes data to a step's path atomically where the filesystem allows: a
// temporary file in the same directory, its mode set, optionally synced, then renamed
// over the path (or, for a path that did not exist, put there without replacing a file
// another program made meanwhile; see placeNew), and with Options.Sync the directory
// synced too. Where rename is impossible (some afero
// layers say EPERM, a cross-device link EXDEV) it rewrites the path in place and sets
// *inPlace, so rollback knows a partial write may be its own.
func (tx *txn) replace(st *Step, data Body, mode fs.FileMode, own filestate.Owner, inPlace *bool, recheck func() error) error {
	name, err := tx.writeTemp(st, data, mode, own)
	return tx.replaceBy(st, name, err, data, mode, own, inPlace, recheck)
}

// writeTemp creates the temporary file a step's new bytes go through, recorded for
// rollback, and fills it with data, mode and owner. It returns the file's name ("" where
// none was created) and what failed.
func (tx *txn) writeTemp(st *Step, data Body, mode fs.FileMode, own filestate.Owner) (string, error) {
	tmp, preset, err := tx.createTemp(st.Name, mode, own)
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	tx.addTemp(created{name: name, st: st})
	chmodded := preset
	if preset {
		err = writeClose(tmp, data, nil, tx.cfg.Sync)
	} else {
		chmodded, err = fillWith(tmp, data, mode, own, tx.cfg.Sync)
	}
	if err == nil && !chmodded {
		err = tx.setOwnerMode(name, mode, own)
	}
	return name, err
}

// replaceBy is replace once the temporary file is written: name is the file ("" where
// none was created) and err what failed in writing it.
func (tx *txn) replaceBy(st *Step, name string, err error, data Body, mode fs.FileMode, own filestate.Owner, inPlace *bool, recheck func() error) error {
	if name == "" {
		return err
	}
	dir := cleanpath.Dir(st.Name)
	t := created{name: name, st: st}
	if err == nil && !st.Base.Exists {
		if ok, err := tx.placeNew(st, t.name); ok {
			if err == nil {
				err = tx.syncDir(dir)
			}
			return err
		}
		err = tx.stillAbsent(st)
	}
	if err == nil && recheck != nil {
		if err = recheck(); err != nil {
			tx.removeTemp(t.name) // rollback removes it, or reports it, if this fails
			return err
		}
	}
	renameErr := err
	if err == nil {
		if renameErr = tx.fsys.Rename(t.name, st.Name); renameErr == nil {
			tx.forgetTemp(t.name)
			return tx.syncDir(dir)
		}
	}
	if rmErr := tx.removeTemp(t.name); err != nil || !renameImpossible(renameErr) {
		return renameErr
	} else if rmErr != nil {
		return rmErr // rollback removes it, or reports it
	}
	if own.Links > 1 {
		return &Linked{Path: st.Path,
			Err: fmt.Errorf("%d hard links: %w", own.Links, fserr.Sanitize(renameErr, st.Name, st.Path))}
	}
	if err := tx.detachBackup(st); err != nil {
		return err
	}
	*inPlace = true
	return tx.rewrite(st.Name, data, mode, own)
}

// stillAsRead returns the look a write step takes at its file once its new bytes are in
// the temporary file, just before the rename, or nil for a file that did not exist: the
// file must be the one read, with the size, modification time and mode it had, so that a
// write made while the new bytes were written is not overwritten.
func (tx *txn) stillAsRead(d *done) func() error {
	st, before := d.step, d.before.Info
	if !st.Base.Exists || before == nil {
		return nil
	}
	return func() error {
		fi, err := lstat(tx.fsys, st.Name)
		if err != nil && !absent(err) {
			return err // not known to be changed: the commit fails as a failed look does
		}
		if err != nil || sysstat.OtherFile(fi, before) || fi.Size() != before.Size() || !fi.ModTime().Equal(before.ModTime()) ||
			fi.Mode() != before.Mode() {
			return &Conflict{Reason: Changed, Paths: []string{st.Path}}
		}
		return nil
	}
}

// createsWithMode reports whether a file this process creates as name gets exactly mode,
// so that setting it afterwards would change nothing: plain permission bits the
// process's umask leaves as they are, no owner to change (which would clear setuid and
// setgid and is followed by a chmod), on a filesystem known to create files with the
// permission asked, less the umask (the operating system's, directly or confined to a
// root) or exactly (the in-memory one). In a directory with a default ACL the ACL, not
// the umask, narrows a new file's permissions, so there the mode is always set.
func (tx *txn) createsWithMode(name string, mode fs.FileMode, own filestate.Owner) bool {
	if mode&^fs.ModePerm != 0 || filestate.ChownNeeded(own) {
		return false
	}
	fsys, n := tx.fsys, name
	if s, ok := fsys.(*splitfs.FS); ok {
		fsys, n = s.Route(name)
	}
	switch fsys := fsys.(type) {
	case *afero.MemMapFs:
		return true
	case *afero.OsFs:
		return umaskKeeps(mode) && !tx.inheritsACL(cleanpath.Dir(n))
	case interface{ Root() *os.Root }: // confined to a root (fs/rootfs): n is "/" + its name there
		return umaskKeeps(mode) && !tx.inheritsACL(filepath.Join(fsys.Root().Name(), cleanpath.Dir(n)))
	}
	return false
}

// umaskKeeps reports whether the process's umask leaves every bit of mode as it is.
func umaskKeeps(mode fs.FileMode) bool {
	umask, ok := processUmask()
	return ok && mode&umask == 0
}

// inheritsACL reports, once per directory and commit, whether files created in the host
// directory dir take their permissions from its default ACL; a directory that cannot be
// asked yet is taken to, and asked again next time.
func (tx *txn) inheritsACL(dir string) bool {
	tx.mu.Lock()
	inherits, ok := tx.inherits[dir]
	tx.mu.Unlock()
	if ok {
		return inherits
	}
	inherits, known := hasDefaultACL(dir)
	if known {
		tx.mu.Lock()
		if tx.inherits == nil {
			tx.inherits = map[string]bool{}
		}
		tx.inherits[dir] = inherits
		tx.mu.Unlock()
	}
	return inherits
}

// setOwnerMode gives a file by name the owner (when it must change) and mode: owner
// first, since changing it clears setuid and setgid.
func (tx *txn) setOwnerMode(name string, mode fs.FileMode, own filestate.Owner) error {
	if filestate.ChownNeeded(own) {
		if err := tx.fsys.Chown(name, own.UID, own.GID); err != nil {
			return err
		}
	}
	return tx.fsys.Chmod(name, mode)
}

// renameImpossible reports a rename the filesystem cannot do at all, as opposed to one
// that failed.
func renameImpossible(err error) bool {
	return errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EPERM)
}

// fill writes, sets the owner (where it must change) and mode of, optionally syncs, and
// closes a file. Owner and mode are set on the open file where the filesystem's files
// allow it (no path to resolve again); done says whether that happened, else the caller
// sets them by name.
func fill(f afero.File, data []byte, mode fs.FileMode, own filestate.Owner, sync bool) (done bool, err error) {
	return fillWith(f, heldBytes(data), mode, own, sync)
}

// fillWith is fill for content that may be derived as it is written.
func fillWith(f afero.File, data Body, mode fs.FileMode, own filestate.Owner, sync bool) (done bool, err error) {
	fc, canChmod := f.(interface{ Chmod(fs.FileMode) error })
	fo, canChown := f.(interface{ Chown(uid, gid int) error })
	if done = canChmod && (canChown || !filestate.ChownNeeded(own)); !done {
		return false, writeClose(f, data, nil, sync)
	}
	return true, writeClose(f, data, func() error {
		if filestate.ChownNeeded(own) {
			if err := fo.Chown(own.UID, own.GID); err != nil { // first: a change of owner clears setuid and setgid
				return err
			}
		}
		return fc.Chmod(mode)
	}, sync)
}

// writeClose writes data to f, then runs set when it is not nil (a file created with its
// owner and mode needs none), syncs it when asked, and closes it.
func writeClose(f afero.File, data Body, set func() error, sync bool) error {
	err := data.WriteOut(f)
	if err == nil && set != nil {
		err = set()
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rewrite replaces a file's content in place, for filesystems that cannot rename.
func (tx *txn) rewrite(name string, data Body, mode fs.FileMode, own filestate.Owner) error {
	f, err := tx.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	chmodded, err := fillWith(f, data, mode, filestate.Owner{}, tx.cfg.Sync)
	if err != nil || chmodded {
		return err
	}
	return tx.fsys.Chmod(name, mode)
}
