package applypatch

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/spf13/afero"
)

// stepKind is what one planned step does.
type stepKind int

const (
	stepWrite  stepKind = iota + 1 // replace or create a file (parents created as needed)
	stepRemove                     // remove a file
)

// A step is one planned filesystem change of a transaction. The plan is computed before
// the first write, so it can be checked as a whole (X2) and failed at any point in tests.
type step struct {
	kind stepKind
	name string      // resolved name
	path string      // authored path, for errors and results
	data []byte      // stepWrite: the new bytes
	mode fs.FileMode // stepWrite: the new mode
	base Baseline    // the state the path must still be in just before the step
}

// state is what a path holds: absent, or bytes with a mode.
type state struct {
	exists bool
	hash   string
	mode   fs.FileMode
}

func (s state) String() string {
	if !s.exists {
		return "absent"
	}
	return fmt.Sprintf("%s %v", s.hash[:12], s.mode)
}

func baselineState(b Baseline) state {
	return state{exists: b.Exists, hash: b.Hash, mode: b.Mode}
}

// done is one executed (or attempted) step of the journal: what the path held before and
// what this transaction left there, so rollback restores only what it wrote (X5).
type done struct {
	step   *step
	before Baseline
	after  state
}

// txn runs a plan: check, write in order, and on failure restore in reverse.
type txn struct {
	fsys    afero.Fs
	opts    *Options
	plan    []*step
	journal []done
	dirs    []string // directories created, outermost first
	// guard, when set, vets a step just before it runs; the fence re-resolves its path
	// there (F1).
	guard func(*step) error
}

// locks serialises transactions per filesystem: afero's MemMapFs does not survive a
// concurrent write and rename of one path, and two commits must not interleave.
var locks sync.Map // afero.Fs → *sync.Mutex

func lockFs(fsys afero.Fs) func() {
	m, _ := locks.LoadOrStore(fsys, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// run executes the plan as one transaction (X2–X6, X8).
func (tx *txn) run() error {
	if stale := tx.stale(tx.plan); len(stale) > 0 {
		return &ConflictError{Paths: stale}
	}
	for _, st := range tx.plan {
		if err := tx.exec(st); err != nil {
			return tx.rollback(err)
		}
	}
	return nil
}

// stale returns the authored paths of steps whose path no longer holds its baseline, or
// a snapshot the host expects (X2).
func (tx *txn) stale(steps []*step) []string {
	var out []string
	for _, st := range steps {
		if tx.current(st.name) != baselineState(st.base) || !tx.expected(st.name) {
			if !slices.Contains(out, st.path) {
				out = append(out, st.path)
			}
		}
	}
	return out
}

// expected checks a host-supplied snapshot, if any.
func (tx *txn) expected(name string) bool {
	snap, ok := tx.opts.Expected[name]
	if !ok {
		return true
	}
	cur := tx.current(name)
	if snap.Hash == "" {
		return cur.exists == snap.Exists
	}
	return cur == state{exists: snap.Exists, hash: snap.Hash, mode: snap.Mode}
}

// current reads the state of a path now. An unreadable path is a state no baseline has.
func (tx *txn) current(name string) state {
	fi, err := tx.fsys.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return state{}
	}
	if err != nil || fi.IsDir() {
		return state{exists: true, hash: "unreadable"}
	}
	b, err := afero.ReadFile(tx.fsys, name)
	if err != nil {
		return state{exists: true, hash: "unreadable"}
	}
	return state{exists: true, hash: hashBytes(b), mode: fi.Mode().Perm()}
}

// owns asks the host's owner predicate (X8).
func (tx *txn) owns(name string) bool {
	return tx.opts.Owner == nil || tx.opts.Owner.Owns(name)
}

// exec runs one step after checking the path once more (X2) and its owner (X8).
func (tx *txn) exec(st *step) error {
	if tx.guard != nil {
		if err := tx.guard(st); err != nil {
			return err
		}
	}
	if !tx.owns(st.name) {
		return fmt.Errorf("%s: the host no longer owns this path", st.path)
	}
	if tx.current(st.name) != baselineState(st.base) || !tx.expected(st.name) {
		return &ConflictError{Paths: []string{st.path}}
	}
	switch st.kind {
	case stepRemove:
		tx.journal = append(tx.journal, done{step: st, before: st.base})
		if err := tx.fsys.Remove(st.name); err != nil {
			return sanitize(err, st.name, st.path)
		}
	case stepWrite:
		if err := tx.mkdirs(filepath.Dir(st.name)); err != nil {
			return sanitize(err, st.name, st.path)
		}
		after := state{exists: true, hash: hashBytes(st.data), mode: st.mode}
		tx.journal = append(tx.journal, done{step: st, before: st.base, after: after})
		if err := replace(tx.fsys, st.name, st.data, st.mode, tx.opts.Sync); err != nil {
			return sanitize(err, st.name, st.path)
		}
	}
	return nil
}

// mkdirs creates the missing parents of a path one by one, recording each so rollback can
// remove exactly those (X3, X5).
func (tx *txn) mkdirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := tx.fsys.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range slices.Backward(missing) {
		if err := tx.fsys.Mkdir(d, 0o755); err != nil {
			return err
		}
		tx.dirs = append(tx.dirs, d)
	}
	return nil
}

// replace writes data to name atomically where the filesystem allows: a temporary file in
// the same directory, its mode set, optionally synced, then renamed over name (X4). Where
// rename is impossible it rewrites name in place; the journal covers that too.
func replace(fsys afero.Fs, name string, data []byte, mode fs.FileMode, sync bool) error {
	tmp, err := afero.TempFile(fsys, filepath.Dir(name), "."+filepath.Base(name)+".applypatch-*")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	if err := fill(tmp, data, sync); err != nil {
		fsys.Remove(tmpName)
		return err
	}
	if err := fsys.Chmod(tmpName, mode); err != nil {
		fsys.Remove(tmpName)
		return err
	}
	err = fsys.Rename(tmpName, name)
	if err == nil {
		return nil
	}
	fsys.Remove(tmpName)
	if !errors.Is(err, syscall.EXDEV) && !errors.Is(err, syscall.EPERM) {
		return err
	}
	return rewrite(fsys, name, data, mode)
}

// fill writes and closes a temporary file.
func fill(f afero.File, data []byte, sync bool) error {
	_, err := f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rewrite replaces a file's content in place, for filesystems that cannot rename.
func rewrite(fsys afero.Fs, name string, data []byte, mode fs.FileMode) error {
	if err := afero.WriteFile(fsys, name, data, mode); err != nil {
		return err
	}
	return fsys.Chmod(name, mode)
}

// rollback restores every journaled path to its baseline, newest first, then removes the
// directories the transaction created (X5). A path that no longer holds what this
// transaction wrote was changed by someone else and is left alone; it, and any path that
// cannot be restored, makes the error an *IncompleteRollbackError (X6).
func (tx *txn) rollback(cause error) error {
	var lost []string
	for _, d := range slices.Backward(tx.journal) {
		if err := tx.restore(d); err != nil && !slices.Contains(lost, d.step.path) {
			lost = append(lost, d.step.path)
		}
	}
	for _, dir := range slices.Backward(tx.dirs) {
		removeEmptyDir(tx.fsys, dir) // kept when someone else put a file there
	}
	if len(lost) > 0 {
		return &IncompleteRollbackError{Cause: cause, Paths: lost}
	}
	return cause
}

// errNotOurs marks a path that someone else changed after this transaction wrote it.
var errNotOurs = errors.New("changed by someone else during the transaction")

// restore puts one journaled path back to its baseline.
func (tx *txn) restore(d done) error {
	cur := tx.current(d.step.name)
	switch {
	case cur == baselineState(d.before):
		return nil // the step never took effect
	case cur != d.after || !tx.owns(d.step.name):
		return errNotOurs
	case !d.before.Exists:
		return tx.fsys.Remove(d.step.name)
	}
	return replace(tx.fsys, d.step.name, d.before.Bytes, d.before.Mode, tx.opts.Sync)
}

// removeEmptyDir removes a directory only when it is empty: some afero filesystems
// remove a directory with its content.
func removeEmptyDir(fsys afero.Fs, dir string) {
	if names, err := readDirNames(fsys, dir); err == nil && len(names) == 0 {
		fsys.Remove(dir)
	}
}

func readDirNames(fsys afero.Fs, dir string) ([]string, error) {
	f, err := fsys.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
