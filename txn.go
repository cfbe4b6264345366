package applypatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/splitfs"
)

// stepKind is what one planned step does.
type stepKind int

const (
	stepWrite  stepKind = iota + 1 // replace or create a file (parents created as needed)
	stepRemove                     // remove a file
)

// A step is one planned filesystem change of a transaction. The plan is computed before
// the first write, so it can be checked as a whole and failed at any point in tests.
type step struct {
	kind stepKind
	name string             // resolved name
	path string             // authored path, for errors and results
	body *content           // stepWrite: the new bytes
	mode fs.FileMode        // stepWrite: the new mode
	base filestate.Baseline // the state the path must still be in just before the step
	// from is the resolved source of a Move's destination, whose owner it keeps; owner
	// is the owner and group the written file gets, and its link count.
	from  string
	owner filestate.Owner
}

// done is one started step of the journal: what the path held just before it, so that
// rollback can tell what this transaction wrote from what someone else wrote.
type done struct {
	step   *step
	before filestate.State
	// inPlace is set when rename was impossible and the file was rewritten in place:
	// any prefix of the step's bytes, in any mode, may then be this transaction's.
	inPlace bool
}

// ours reports whether cur is a state this transaction's step left the path in.
func (d *done) ours(cur filestate.State) bool {
	st := d.step
	switch {
	case cur.Err != nil || cur.Dir:
		return false
	case st.kind == stepRemove:
		return !cur.Exists
	case !cur.Exists:
		return false
	case d.inPlace:
		return st.body.startsWith(cur.Data)
	}
	return cur.Mode == st.mode && st.body.equal(cur.Data)
}

// created is a file or directory the transaction created besides its targets: a parent
// directory, or a temporary file not yet renamed, for the step it was created for. Its
// name for errors (see txn.display) is worked out only when an error needs it: a path
// 2,000 directories deep creates 2,000 of them.
type created struct {
	name string
	st   *step
}

// shown names c for errors.
func (tx *txn) shown(c created) string { return tx.display(c.st, c.name) }

// txn runs a plan: check, write in order, and on failure restore in reverse.
type txn struct {
	fsys afero.Fs
	opts *Options
	plan []*step
	done []*done
	// root is the resolved workspace root, where the journal lives; jr is the journal of
	// the running commit.
	root string
	jr   *journal
	// key seals the journal; fence classifies its names (nil in tests of the machinery).
	key   []byte
	fence *fence.Fence
	dirs  []created // directories created, outermost first
	temps []created // temporary files not yet renamed or removed
	// guard, when set, vets a step just before it runs; the fence re-resolves its path
	// there, and returns what its walk found at the path's end (nil when nothing, or a
	// link), which the baseline check then uses instead of a look of its own.
	guard func(*step) (fs.FileInfo, error)
	// present holds directories known to exist.
	present map[string]bool
	// expected are the snapshots the host expects, by resolved name.
	expected map[string][]filestate.Expect
	// inherits caches, by directory, whether files created there take their permissions
	// from a default ACL rather than the umask (see createsWithMode).
	inherits map[string]bool
	// seen holds what each file read said of itself, so the check just before a step
	// compares the path's metadata with it instead of reading the bytes again; captured
	// is set when the baselines were read under this commit's lock, which makes that
	// read the check of the whole batch.
	seen     filestate.Stamps
	captured bool
}

// run executes the plan as one transaction: the whole batch is checked
// before the first write, each path again just before its own, and any failure rolls
// back what was written.
//
// Before the first write the plan and the baselines are recorded in a journal,
// removed when the commit ends, so that recovery can undo a commit that was interrupted.
func (tx *txn) run(ctx context.Context) error {
	before, err := tx.precheck()
	if err != nil {
		return unwritten(err)
	}
	if err := tx.beginJournal(before); err != nil {
		return unwritten(err)
	}
	for _, st := range tx.plan {
		if err := tx.exec(ctx, st); err != nil {
			return tx.abort(err)
		}
	}
	if err := tx.jr.seal(); err != nil {
		return tx.abort(err) // the commit cannot be made final: undo it
	}
	tx.jr.cleanup(tx.opts.Sync)
	return nil
}

// abort rolls back after a failure, then removes the journal. A journal that cannot be
// removed stays for recovery, which finds nothing left to undo where rollback succeeded.
func (tx *txn) abort(cause error) error {
	err := rolledBack(tx.rollback(cause))
	if tx.jr.seal() == nil {
		tx.jr.cleanup(tx.opts.Sync)
	}
	return err
}

// precheck checks every step of the batch before anything is written: each path must be
// owned by the host and still hold its baseline and any snapshot the host expects.
//
// It returns what each step's path holds, for the journal; a path whose owner or group
// this process could not keep on a rewritten file is refused.
func (tx *txn) precheck() ([]filestate.State, error) {
	var lost []string
	stale := &ConflictError{Reason: ConflictChanged}
	owners := &ConflictError{Reason: ConflictOwner, Reasons: map[string]string{}}
	before := make([]filestate.State, len(tx.plan))
	for i, st := range tx.plan {
		if !tx.owns(st.name) {
			lost = appendNew(lost, st.path)
			continue
		}
		cur, ok := tx.capturedState(st)
		if !ok {
			cur = tx.readStep(st)
		}
		if cur.Err != nil {
			return nil, tx.unreadable(st, cur.Err)
		}
		before[i] = cur
		tx.check(st, cur, stale)
		tx.keeps(st, cur, owners)
	}
	switch {
	case len(lost) > 0:
		return nil, &ConflictError{Reason: ConflictNotOwned, Paths: lost}
	case len(stale.Paths) > 0:
		return nil, stale
	case len(owners.Paths) > 0:
		return nil, owners
	}
	tx.ownerOfWrites(before)
	return before, nil
}

// keeps adds a path to the error when its file would be rewritten and this process
// cannot give the new file the old one's owner and group.
func (tx *txn) keeps(st *step, cur filestate.State, e *ConflictError) {
	if st.kind != stepWrite || !cur.Exists {
		return
	}
	if reason := filestate.KeepOwner(cur.Own); reason != "" {
		e.Paths = appendNew(e.Paths, st.path)
		e.Reasons[st.path] = reason
	}
}

// ownerOfWrites gives each write step the owner to keep: the replaced file's, or for a
// Move's destination the source's, and keeps the link count that decides whether a
// file may be rewritten in place.
func (tx *txn) ownerOfWrites(before []filestate.State) {
	for i, st := range tx.plan {
		switch {
		case st.kind != stepWrite:
		case before[i].Exists:
			st.owner = before[i].Own
		case st.from != "":
			for j, src := range tx.plan {
				if src.name == st.from && before[j].Exists {
					st.owner = before[j].Own
					if reason := filestate.KeepOwner(st.owner); reason != "" {
						st.owner = filestate.Owner{} // the new file is this process's, as an Add's
					}
				}
			}
		}
	}
}

// check adds a step's path to the conflict when the path no longer holds the step's
// baseline, or fails a snapshot the host expects for it.
func (tx *txn) check(st *step, cur filestate.State, conflict *ConflictError) {
	if !cur.Is(st.base) {
		conflict.Paths = appendNew(conflict.Paths, st.path)
		return
	}
	if !cur.SatisfiesAll(tx.expected[st.name]) {
		conflict.Paths = appendNew(conflict.Paths, st.path)
		conflict.Expected = appendNew(conflict.Expected, st.path)
	}
}

// unreadable reports a path whose state cannot be checked: it is not written.
func (tx *txn) unreadable(st *step, err error) error {
	return stateError(filestate.Unreadable(tx.fsys, st.name, st.path, err))
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// absent reports a path that does not exist: missing, or below a file (ENOTDIR), which
// an earlier step of the plan may remove.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// read returns what a path holds now.
func (tx *txn) read(name string) filestate.State {
	fi, err := tx.fsys.Stat(name)
	switch {
	case absent(err):
		return filestate.State{}
	case err != nil:
		return filestate.State{Err: err}
	case fi.IsDir():
		return filestate.State{Exists: true, Dir: true, Mode: filestate.ModeOf(fi)}
	}
	b, err := afero.ReadFile(tx.fsys, name)
	if err != nil {
		return filestate.State{Err: err}
	}
	return filestate.State{Exists: true, Data: b, Mode: filestate.ModeOf(fi), Own: filestate.OwnerOf(fi), Info: fi}
}

// readAgainst returns what a path holds now, like read, but when it still holds the
// baseline's bytes it compares them in chunks and shares the baseline's copy, so a
// check of a large unchanged file allocates nothing.
func (tx *txn) readAgainst(name string, b filestate.Baseline) filestate.State {
	if b.Bytes == nil {
		return tx.read(name)
	}
	at := time.Now()
	f, err := tx.fsys.Open(name)
	if err != nil {
		return tx.read(name)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(b.Bytes)) {
		return tx.read(name)
	}
	if same, err := sameContent(f, b.Bytes); err != nil || !same {
		return tx.read(name)
	}
	tx.seen.Keep(name, fi, at)
	return filestate.State{Exists: true, Data: b.Bytes, Mode: filestate.ModeOf(fi), Own: filestate.OwnerOf(fi), Info: fi}
}

// sameContent reports whether f holds exactly want, reading it in chunks.
func sameContent(f io.Reader, want []byte) (bool, error) {
	buf := make([]byte, min(64<<10, len(want)+1))
	for {
		n, err := io.ReadFull(f, buf)
		if n > len(want) || !bytes.Equal(buf[:n], want[:n]) {
			return false, nil
		}
		want = want[n:]
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return len(want) == 0, nil
		case err != nil:
			return false, err
		}
	}
}

// owns asks the host's owner predicate.
func (tx *txn) owns(name string) bool {
	return tx.opts.Owner == nil || tx.opts.Owner.Owns(name)
}

// unsaved asks the buffer hook whether an open buffer of name has unsaved edits.
func (tx *txn) unsaved(name string) bool {
	return tx.opts.Buffers != nil && tx.opts.Buffers.Unsaved(name)
}

// exec runs one step after checking, once more, the context, the fence, the owner,
// the editor buffer and the path's state.
func (tx *txn) exec(ctx context.Context, st *step) error {
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
	if !tx.owns(st.name) {
		return &ConflictError{Reason: ConflictNotOwned, Paths: []string{st.path}}
	}
	if tx.unsaved(st.name) {
		return &ConflictError{Reason: ConflictUnsaved, Paths: []string{st.path}}
	}
	cur, ok := tx.unchanged(st, seen)
	if !ok {
		cur = tx.readStep(st)
	}
	if cur.Err != nil {
		return tx.unreadable(st, cur.Err)
	}
	if seen != nil && cur.Info != nil && filestate.OtherFile(seen, cur.Info) {
		// The fence's walk of the path found another file than the one just read through
		// the directory the commit keeps open: that directory was swapped away.
		return &ConflictError{Reason: ConflictChanged, Paths: []string{st.path}}
	}
	stale := &ConflictError{Reason: ConflictChanged}
	if tx.check(st, cur, stale); len(stale.Paths) > 0 {
		return stale
	}
	d := &done{step: st, before: cur}
	tx.done = append(tx.done, d)
	var err error
	switch st.kind {
	case stepRemove:
		err = tx.fsys.Remove(st.name)
	case stepWrite:
		if err = tx.mkdirs(st); err == nil {
			err = tx.replace(st, st.body, st.mode, st.owner, &d.inPlace)
		}
	}
	var linked *FileError
	if errors.As(err, &linked) && linked.Reason == FileLinked {
		return linked // its cause is sanitised already
	}
	var taken *ConflictError
	if errors.As(err, &taken) && st.kind == stepWrite && !st.base.Exists {
		// Another program created the path meanwhile (placeNew, the one write that
		// reports a conflict): the step did not take effect, and rollback must not take
		// that program's file for this commit's.
		tx.done = tx.done[:len(tx.done)-1]
		return taken
	}
	if err != nil {
		return fserr.Sanitize(err, st.name, st.path)
	}
	return nil
}

// mkdirs creates the missing parents of a step's path, recording each so rollback can
// remove exactly those. The first missing parent is found by binary search over
// the parents (a parent exists when any directory below it does), and the chain is made
// by one MkdirAll, which walks the name once: the cost grows with the depth, not with
// its square. Only this transaction creates directories meanwhile: it holds the lock.
func (tx *txn) mkdirs(st *step) error {
	var up []string // the parents not known to exist, deepest first
	for d := filepath.Dir(st.name); !tx.present[d]; d = filepath.Dir(d) {
		up = append(up, d)
		if filepath.Dir(d) == d {
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

// display names a file or directory the transaction creates for a step, for errors: the
// authored path's directory at the same depth, so no host path is disclosed.
func (tx *txn) display(st *step, name string) string {
	if rel, err := filepath.Rel(filepath.Dir(st.name), name); err == nil && filepath.IsLocal(rel) {
		return path.Join(path.Dir(filepath.ToSlash(st.path)), filepath.ToSlash(rel))
	}
	up, err := filepath.Rel(name, filepath.Dir(st.name))
	authored := path.Dir(filepath.ToSlash(st.path))
	if err == nil && filepath.IsLocal(up) && strings.HasSuffix(authored, "/"+filepath.ToSlash(up)) {
		return strings.TrimSuffix(authored, "/"+filepath.ToSlash(up))
	}
	if rel, err := filepath.Rel(filepath.Clean(tx.opts.workspace()), name); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return "a directory created for " + st.path
}

// tempPattern names temporary files: hidden, beside their target, recognisable.
const tempPattern = ".applypatch-*"

// tempStem is the most of a target's name a temporary file's name repeats, so that a
// target whose name is near the filesystem's limit (255 bytes) still gets a temporary
// file: ".", the stem, ".applypatch-" and ten random digits, or a commit's twelve-character
// id, stay within it.
const tempStem = 200

// tempPrefix is the start of a temporary file's name for a target's base name.
func tempPrefix(base string) string {
	if len(base) > tempStem {
		base = strings.ToValidUTF8(base[:tempStem], "")
	}
	return "." + base + tempPattern
}

// replace writes data to a step's path atomically where the filesystem allows: a
// temporary file in the same directory, its mode set, optionally synced, then renamed
// over the path (or, for a path that did not exist, linked to it; see placeNew), and
// with Options.Sync the directory synced too. Where rename is impossible (some afero
// layers say EPERM, a cross-device link EXDEV) it rewrites the path in place and sets
// *inPlace, so rollback knows a partial write may be its own.
func (tx *txn) replace(st *step, data *content, mode fs.FileMode, own filestate.Owner, inPlace *bool) error {
	dir := filepath.Dir(st.name)
	tmp, preset, err := tx.createTemp(st.name, mode, own)
	if err != nil {
		return err
	}
	t := created{name: tmp.Name(), st: st}
	tx.temps = append(tx.temps, t)
	chmodded := preset
	if preset {
		err = writeClose(tmp, data, nil, tx.opts.Sync)
	} else {
		chmodded, err = fillWith(tmp, data, mode, own, tx.opts.Sync)
	}
	if err == nil && !chmodded {
		err = tx.setOwnerMode(t.name, mode, own)
	}
	if err == nil && !st.base.Exists {
		if ok, err := tx.placeNew(st, t.name); ok {
			if err == nil {
				err = tx.syncDir(dir)
			}
			return err
		}
	}
	renameErr := err
	if err == nil {
		if renameErr = tx.fsys.Rename(t.name, st.name); renameErr == nil {
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
		return &FileError{Path: st.path, Reason: FileLinked,
			Err: fmt.Errorf("%d hard links: %w", own.Links, fserr.Sanitize(renameErr, st.name, st.path))}
	}
	if err := tx.detachBackup(st); err != nil {
		return err
	}
	*inPlace = true
	return tx.rewrite(st.name, data, mode, own)
}

// placeNew puts the temporary file tmp at the path of a step that creates it without
// replacing a file another program created there since the check just before the step:
// a hard link fails, atomically, on a name that exists, where a rename would replace
// it. Such a path is a conflict, and the step did not take effect. Once linked, the
// temporary name is removed; one that cannot be stays listed for rollback to remove.
//
// ok is false, with nothing done, where the filesystem has no hard links (afero's
// in-memory one, layers such as BasePathFs, filesystems that refuse them): the caller
// renames, and the check just before the step is then the only guard.
func (tx *txn) placeNew(st *step, tmp string) (ok bool, err error) {
	err = splitfs.Link(tx.fsys, tmp, st.name)
	switch {
	case err == nil:
		return true, tx.removeTemp(tmp)
	case linkImpossible(err):
		return false, nil
	case errors.Is(err, fs.ErrExist):
		err = &ConflictError{Reason: ConflictChanged, Paths: []string{st.path}}
	}
	tx.removeTemp(tmp) // one that stays is removed by rollback, or reported
	return true, err
}

// linkImpossible reports a hard link the filesystem cannot make at all, as opposed to
// one that failed.
func linkImpossible(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || renameImpossible(err)
}

// createTemp creates the temporary file a target's new bytes are written through: named
// for this commit when it has a journal, so recovery can find it, else at random. It is
// created with the target's mode when creating gives exactly that mode (see
// createsWithMode), which preset reports, and is private to its owner otherwise until
// its mode is set.
func (tx *txn) createTemp(target string, mode fs.FileMode, own filestate.Owner) (f afero.File, preset bool, err error) {
	if tx.jr == nil {
		f, err = afero.TempFile(tx.fsys, filepath.Dir(target), tempPrefix(filepath.Base(target)))
		return f, false, err
	}
	name := tx.tempName(target, tx.jr.id)
	perm, preset := fs.FileMode(0o600), tx.createsWithMode(name, mode, own)
	if preset {
		perm = mode
	}
	f, err = tx.fsys.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	return f, preset && err == nil, err
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
		return umaskKeeps(mode) && !tx.inheritsACL(filepath.Dir(n))
	case interface{ Root() *os.Root }: // confined to a root (fs/rootfs): n is "/" + its name there
		return umaskKeeps(mode) && !tx.inheritsACL(filepath.Join(fsys.Root().Name(), filepath.Dir(n)))
	}
	return false
}

// umaskKeeps reports whether the process's umask leaves every bit of mode as it is.
func umaskKeeps(mode fs.FileMode) bool {
	umask, ok := processUmask()
	return ok && mode&umask == 0
}

// inheritsACL reports, once per directory and commit, whether files created in the host
// directory dir take their permissions from its default ACL.
func (tx *txn) inheritsACL(dir string) bool {
	inherits, ok := tx.inherits[dir]
	if !ok {
		inherits = hasDefaultACL(dir)
		if tx.inherits == nil {
			tx.inherits = map[string]bool{}
		}
		tx.inherits[dir] = inherits
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
	return fillWith(f, heldContent(data), mode, own, sync)
}

// fillWith is fill for content that may be derived as it is written.
func fillWith(f afero.File, data *content, mode fs.FileMode, own filestate.Owner, sync bool) (done bool, err error) {
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
func writeClose(f afero.File, data *content, set func() error, sync bool) error {
	err := data.writeTo(f)
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
func (tx *txn) rewrite(name string, data *content, mode fs.FileMode, own filestate.Owner) error {
	f, err := tx.fsys.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	chmodded, err := fillWith(f, data, mode, filestate.Owner{}, tx.opts.Sync)
	if err != nil || chmodded {
		return err
	}
	return tx.fsys.Chmod(name, mode)
}

// syncDir makes a rename durable with Options.Sync, where the platform can sync a
// directory.
func (tx *txn) syncDir(dir string) error {
	if !tx.opts.Sync {
		return nil
	}
	return syncDir(tx.fsys, dir)
}

// removeTemp removes a temporary file; one that stays is reported by rollback.
func (tx *txn) removeTemp(name string) error {
	err := tx.fsys.Remove(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		tx.forgetTemp(name)
		return nil
	}
	return err
}

func (tx *txn) forgetTemp(name string) {
	tx.temps = slices.DeleteFunc(tx.temps, func(t created) bool { return t.name == name })
}

// Why rollback left a path as it is.
const (
	reasonChanged  = "changed by someone else after this commit wrote it; left as they made it"
	reasonNotOwned = "the host no longer owns it; left as it is"
	reasonUnsaved  = "an open editor buffer of it has unsaved edits; left as this commit wrote it, and the buffer kept"
	reasonTemp     = "a temporary file this commit created; it could not be removed"
	reasonDir      = "a directory this commit created; it could not be removed"
	reasonDirFull  = "a directory this commit created; someone else put files in it"
)

// rollback restores every journaled path to what it held before its step, newest first:
// first the paths that did not exist, then it removes the temporary files and
// directories the transaction created, then it puts back the paths that existed,
// so a file removed to make way for a directory finds its place free again. A
// path that no longer holds what this transaction wrote was changed by someone else and
// is left alone; it, and anything that cannot be restored, makes the error an
// *IncompleteRollbackError wrapping cause.
func (tx *txn) rollback(cause error) error {
	lost := map[string]string{}
	tx.restoreWhere(lost, func(d *done) bool { return !d.before.Exists })
	for _, t := range slices.Clone(tx.temps) {
		tx.removeTemp(t.name)
	}
	for _, d := range slices.Backward(tx.dirs) {
		if reason := tx.removeDir(d.name); reason != "" {
			lost[tx.shown(d)] = reason
		}
	}
	tx.restoreWhere(lost, func(d *done) bool { return d.before.Exists })
	for _, t := range slices.Clone(tx.temps) {
		tx.removeTemp(t.name)
	}
	for _, t := range tx.temps {
		if cur := tx.read(t.name); cur.Exists || cur.Err != nil {
			lost[tx.shown(t)] = reasonTemp
		}
	}
	if len(lost) == 0 {
		return cause
	}
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range lost {
			if !yield(p) {
				return
			}
		}
	})
	return &IncompleteRollbackError{Cause: cause, Paths: paths, Reasons: lost}
}

// restore puts one journaled path back to what it held before its step and returns
// why it could not, or "".
func (tx *txn) restore(d *done) string {
	st := d.step
	cur := tx.readStep(st)
	if cur.Err != nil {
		cur = tx.readStep(st) // once more: a read may fail transiently
	}
	switch {
	case cur.Err != nil:
		return "it could not be read: " + fserr.Sanitize(cur.Err, st.name, st.path).Error()
	case cur.Same(d.before):
		return "" // the step never took effect
	case !tx.owns(st.name):
		return reasonNotOwned
	case !d.ours(cur):
		return reasonChanged
	case tx.unsaved(st.name):
		return reasonUnsaved // restoring under an edited buffer would lose either
	}
	var err error
	switch {
	case !d.before.Exists:
		err = tx.fsys.Remove(st.name)
	case st.base.IsLink():
		err = relink(tx.fsys, string(st.base.Bytes), st.name)
	default:
		if err = tx.restoreBackup(st); err != nil {
			var inPlace bool
			err = tx.replace(st, heldContent(d.before.Data), d.before.Mode, d.before.Own, &inPlace)
		}
	}
	if err != nil && !tx.readStep(st).Same(d.before) {
		return "restoring it failed: " + fserr.Sanitize(err, st.name, st.path).Error()
	}
	return ""
}

// removeDir removes a directory the transaction created when it is empty, and returns
// why it stays, or "". Some afero filesystems would remove a directory with its
// content, so emptiness is checked first.
func (tx *txn) removeDir(dir string) string {
	if _, err := tx.fsys.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	names, err := readDirNames(tx.fsys, dir)
	if err != nil {
		return reasonDir
	}
	if len(names) > 0 {
		return reasonDirFull
	}
	if err := tx.fsys.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return reasonDir
	}
	return ""
}

func readDirNames(fsys afero.Fs, dir string) ([]string, error) {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
