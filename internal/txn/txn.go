// Package txn runs a plan of steps (write a file, remove one) as one all-or-nothing
// commit. It holds the workspace lock, records the plan and every baseline in a sealed
// journal before the first write, checks each path once more just before its step,
// replaces files atomically keeping their mode and owner, and on failure rolls back
// without overwriting what another writer changed meanwhile. It also recovers a commit
// that was interrupted, from its journal.
//
// It never reads the host's options, only the [Config] it is given, and it never words a
// refusal: what stops or undoes a commit it reports as facts ([*Conflict], [*Linked],
// [*Unapplied], [*Incomplete], [Recovered]) that its caller turns into the public errors
// and reports. The only words it keeps are the reasons a rollback or a recovery records
// for each path it leaves, and the causes of a journal or key that cannot be used, which
// the caller passes on as they are.
package txn

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/applypatch/applypatch/internal/crc32c"
	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/spf13/afero"
)

// Op is what one planned step does.
type Op int

// The operations of a step.
const (
	Write  Op = iota + 1 // replace or create a file (parents created as needed)
	Remove               // remove a file
)

// A Step is one planned filesystem change of a transaction. The plan is computed before
// the first write, so it can be checked as a whole and failed at any point in tests.
type Step struct {
	Op   Op
	Name string             // resolved name
	Path string             // authored path, for errors and results
	Body Body               // Write: the new bytes
	Mode fs.FileMode        // Write: the new mode
	Base filestate.Baseline // the state the path must still be in just before the step
	// From is the resolved source of a Move's destination, whose owner it keeps; owner
	// is the owner and group the written file gets, and its link count.
	From  string
	owner filestate.Owner
	sum   *crc32c.Sum // what Body writes, once Written has summed it
}

// Written returns the size and the CRC-32C of what a Write step writes, summed the first
// time it is asked for: the journal records it before the write, and a history keeps it
// after, without writing the body out again.
func (st *Step) Written() (size int64, crc uint32) {
	if st.sum == nil {
		st.sum = &crc32c.Sum{}
		switch b := st.Body.(type) {
		case heldBytes:
			st.sum.Write(b)
		case interface{ Emit(io.Writer) error }:
			b.Emit(st.sum) // in the pieces it is derived in: a checksum gains nothing from large writes
		default:
			st.Body.WriteOut(st.sum) // a checksum never fails to write
		}
	}
	return st.sum.N, st.sum.CRC
}

// created is a file or directory the transaction created besides its targets: a parent
// directory, or a temporary file not yet renamed, for the step it was created for. Its
// name for errors (see txn.display) is worked out only when an error needs it: a path
// 2,000 directories deep creates 2,000 of them.
type created struct {
	name string
	st   *Step
}

// shown names c for errors.
func (tx *txn) shown(c created) string { return tx.display(c.st, c.name) }

// txn runs a plan: check, write in order, and on failure restore in reverse.
type txn struct {
	fsys afero.Fs
	cfg  Config
	plan []*Step
	done []*done
	// root is the resolved workspace root, where the journal lives; jr is the journal of
	// the running commit.
	root string
	jr   *journal
	// key seals the journal; fence classifies its names (nil in tests of the machinery).
	key       []byte
	fence     *fence.Fence
	dirs      []created           // directories created, outermost first
	temps     map[string]madeTemp // temporary files not yet renamed or removed, by name
	tempsMade int                 // temporary files made so far
	// guard, when set, vets a step just before it runs; the fence re-resolves its path
	// there, and returns what its walk found at the path's end (nil when nothing, or a
	// link), which the baseline check then uses instead of a look of its own.
	guard func(*Step) (fs.FileInfo, error)
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
	// noExclusiveRename is set once the filesystem has refused a rename that refuses
	// a name that exists (see placeNew): later creations link at once.
	noExclusiveRename bool
	// ahead writes temporary files ahead of the steps, where it runs.
	ahead *tempsAhead
	// mu guards what the goroutine writing ahead shares: temps and inherits.
	mu sync.Mutex
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
	final := false
	defer func() { // a host's callback (Guard, Owns) that panics midway: undo the writes, then go on panicking
		if r := recover(); r != nil {
			if !final {
				tx.abortPanicked(r)
			}
			panic(r)
		}
	}()
	tx.startAhead()
	for i := range tx.plan {
		if err := tx.exec(ctx, i); err != nil {
			tx.stopAhead()
			return tx.abort(err)
		}
	}
	tx.stopAhead()
	if tx.cfg.BeforeFinal != nil {
		tx.cfg.BeforeFinal()
	}
	if err := tx.jr.seal(); err != nil {
		return tx.abort(err) // the commit cannot be made final: undo it
	}
	final = true
	tx.finish()
	return nil
}

// finish ends a final commit's journal directory: offered to the host (Config.Keep),
// which may take it away with the backups in it, or else removed. With Options.Sync the
// record's removal is made durable first, so that no crash brings it back, moved or not.
func (tx *txn) finish() {
	if tx.cfg.Made != nil && len(tx.dirs) > 0 {
		names := make([]string, len(tx.dirs))
		for i, d := range tx.dirs {
			names[i] = d.name
		}
		tx.cfg.Made(tx.relative(names))
	}
	tx.syncDir(tx.jr.dir)
	if tx.cfg.Keep == nil || !tx.cfg.Keep(tx.kept()) {
		tx.jr.cleanup(false)
	}
	clearPending(tx.jr.dir) // final: handed to the history, or removed
}

// abortPanicked rolls back the writes of a commit a callback panicked in. Where the
// rollback panics too (the same callback, asked again), the journal stays, as after a
// crash, for the next commit or recovery to finish it.
func (tx *txn) abortPanicked(r any) {
	defer func() { recover() }()
	tx.stopAhead()
	tx.abort(fmt.Errorf("a callback panicked: %v", r))
}

// abort rolls back after a failure, then removes the journal. A journal that cannot be
// removed stays for recovery, which finds nothing left to undo where rollback succeeded;
// so does the journal of a rollback that could not restore every path, since it holds
// their baselines: the next recovery, once the cause is fixed, puts them back.
func (tx *txn) abort(cause error) error {
	err := rolledBack(tx.rollback(cause))
	if inc, ok := err.(*Incomplete); ok && recoverable(inc) && !tx.wroteInPlace() {
		inc.Kept = true
		return err
	}
	if tx.jr.seal() == nil {
		tx.jr.cleanup(tx.cfg.Sync)
	}
	return err
}

// wroteInPlace reports whether a step rewrote its file in place (no rename was possible):
// a recovery could not tell a write of it cut short from another writer's, which rollback
// can, so such a journal is not left for a recovery to finish.
func (tx *txn) wroteInPlace() bool {
	return slices.ContainsFunc(tx.done, func(d *done) bool { return d.inPlace })
}

// owns asks the host's owner predicate, when there is one.
func (tx *txn) owns(name string) bool {
	return tx.cfg.Owns == nil || tx.cfg.Owns(name)
}

// unsaved asks the buffer hook whether an open buffer of name has unsaved edits.
func (tx *txn) unsaved(name string) bool {
	return tx.cfg.Unsaved != nil && tx.cfg.Unsaved(name)
}

// display names a file or directory the transaction creates for a step, for errors: the
// authored path's directory at the same depth, so no host path is disclosed.
func (tx *txn) display(st *Step, name string) string {
	if rel, err := filepath.Rel(filepath.Dir(st.Name), name); err == nil && filepath.IsLocal(rel) {
		return path.Join(path.Dir(filepath.ToSlash(st.Path)), filepath.ToSlash(rel))
	}
	up, err := filepath.Rel(name, filepath.Dir(st.Name))
	authored := path.Dir(filepath.ToSlash(st.Path))
	if err == nil && filepath.IsLocal(up) && strings.HasSuffix(authored, "/"+filepath.ToSlash(up)) {
		return strings.TrimSuffix(authored, "/"+filepath.ToSlash(up))
	}
	if rel, err := filepath.Rel(filepath.Clean(tx.cfg.Workspace), name); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return "a directory created for " + st.Path
}

// A Body is the bytes a write step puts in its file, written as they are needed: the
// transaction writes it once per step and compares it with what a path holds.
type Body interface {
	// WriteOut writes the bytes to w.
	WriteOut(w io.Writer) error
	// Equal reports whether the bytes are exactly b.
	Equal(b []byte) bool
	// HasPrefix reports whether b is a prefix of the bytes: what a write cut short may
	// have left.
	HasPrefix(b []byte) bool
}

// Config is what a commit, a recovery or a wait for the lock is given of the host's
// options, built once per call, and, for a commit, of the proposal.
type Config struct {
	// Fs carries the commit's reads and writes; Root is the resolved workspace root,
	// where the journal lives; Workspace the root as the host gave it, which names
	// created directories in errors. Key seals the journal; Fence classifies its names.
	Fs        afero.Fs
	Root      string
	Workspace string
	Key       []byte
	Fence     *fence.Fence
	// Sync makes every write durable before the next step.
	Sync bool
	// Owns, when set, is asked before every step and rollback step whether the host
	// still owns a resolved name; Unsaved whether an open editor buffer of it has
	// unsaved edits.
	Owns, Unsaved func(name string) bool
	// LockTimeout bounds each wait for the workspace lock; LockWait is told when a wait
	// lasts; WorkspaceFs, when it supplies the lock, takes it.
	LockTimeout time.Duration
	LockWait    func(dir string, holder int)
	WorkspaceFs afero.Fs
	// JournalKey is the host's key for the journal, nil for the user's.
	JournalKey []byte
	// Guard, when set, vets a step just before it runs and returns what its walk of the
	// path found at the path's end (nil when nothing, or a link).
	Guard func(*Step) (fs.FileInfo, error)
	// Expected are the snapshots the host expects, by resolved name.
	Expected map[string][]filestate.Expect
	// Seen holds what each file read said of itself; Captured is set when the
	// baselines were read under this commit's lock.
	Seen     filestate.Stamps
	Captured bool
	// Keep, when set, is offered the journal directory once the commit is final, when
	// it holds nothing but each baseline's backup: it returns true when it moved the
	// directory away (see Kept.MoveTo), which the commit then does not remove.
	Keep func(*Kept) bool
	// BeforeFinal, when set, runs after the last write and just before the commit becomes
	// final (its journal's record removed): a history notes there the entry it is about
	// to record.
	BeforeFinal func()
	// Outside are the directories outside the workspace that a commit writes in, as
	// real names of the operating system: the lock holds them too, each as a workspace of
	// its own, so that a commit in another workspace holding them waits.
	Outside []string
	// Made, when set, is told the directories a final commit created, relative to Root,
	// outermost first, so that a history can remove them again when the change is undone.
	Made func(dirs []string)
}

// Run runs a plan as one transaction: the whole batch is checked before the first
// write, each path again just before its own, and any failure rolls back what was
// written. A failure before the first write is a [*Conflict] or an [*Unapplied]; after
// it, an [*Unapplied] whose rollback restored every path, or an [*Incomplete].
func Run(ctx context.Context, plan []*Step, c Config) error {
	tx := &txn{fsys: c.Fs, cfg: c, plan: plan, guard: c.Guard, expected: c.Expected, root: c.Root,
		seen: c.Seen, captured: c.Captured, key: c.Key, fence: c.Fence}
	return tx.run(ctx)
}
