package applypatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/spf13/afero"
	"golang.org/x/text/encoding"

	"github.com/applypatch/applypatch/internal/dryrun"
	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/prefault"
)

// Undo returns the proposal that reverts the newest change the history in
// Options.History holds that is not undone: an Add becomes a Delete, a Delete an Add of
// the old bytes with the old mode, a Move moves back and an Update gets the inverse
// hunks. It is an ordinary proposal: review it like any other (a review keeps its files
// back whole: deselecting one hunk of a file deselects the file), and [Commit] writes it
// with the lock, the journal, the fence and rollback, then marks the change undone so
// that [Redo] can apply it again.
//
// Undo never overwrites what changed since. A file that still holds exactly what the
// change wrote gets back exactly the bytes it held before. A file edited since gets the
// inverse hunks placed on what it holds now, by the rules a payload's hunks follow, so
// that the later edits elsewhere in it are kept; the lines it removes must be exactly
// what the change left. A hunk goes only where the ordinary search and a diff of the
// file since the change agree, so an edit of the lines next to the change's (a hunk's
// context) is an edit elsewhere, and a copy of the change's lines made since refuses
// the undo rather than be reverted in its place. A file that was binary, or not in its
// encoding, on either side of a Delete then an Add is put back whole, and only while it
// holds exactly what the change left. When a hunk cannot be placed with certainty, when
// an added file was edited or had its mode changed since (deleting it would lose that),
// or when a path was deleted, replaced or created since, or now leads through a symbolic
// link to another file than the change wrote, the whole undo is refused with every such
// path named, and nothing is written. Each undo reverts one change: undoing several is
// several undos, each its own transaction.
//
// With no history, or nothing left to undo, it returns [ErrNothingToUndo]. So it does
// when every file of the change already holds what the undo would leave (put back by
// hand, say): there is nothing to write, and Undo marks the change undone, so that the
// next undo reverts the change before it. When the history's record of the newest
// change is damaged, Undo is refused rather than revert the change before it in its
// place; it removes the damaged records, so that the next undo can go on.
func Undo(ctx context.Context, fsys afero.Fs, opts *Options) (*Proposal, error) {
	return revert(ctx, fsys, opts, true)
}

// Redo returns the proposal that applies again the change the last [Undo] reverted, by
// the same rules: a file that still holds exactly what the undo left gets back exactly
// the bytes the change wrote, a file edited since gets the change's hunks placed on what
// it holds now, and anything else refuses the redo. A new commit after an undo drops
// what could be redone. With nothing to redo it returns [ErrNothingToRedo].
func Redo(ctx context.Context, fsys afero.Fs, opts *Options) (*Proposal, error) {
	return revert(ctx, fsys, opts, false)
}

// A reverting proposal undoes (or redoes) one history entry; its commit marks it.
type reverting struct {
	history *History
	entry   HistoryEntry
	undo    bool
	made    []string // the directories the change created, outermost first
}

// revert builds the proposal that undoes (undo) or redoes the history's pick.
func revert(ctx context.Context, fsys afero.Fs, opts *Options, undo bool) (*Proposal, error) {
	if opts == nil || opts.History == nil {
		return nil, &noHistoryError{undo}
	}
	s, err := opts.History.opened()
	if err != nil {
		return nil, err
	}
	if !dryrun.Is(ctx) { // a check writes nothing, the history's marks included
		settleUnlocked(fsys, opts)
	}
	e, ok, err := pick(s, undo)
	if d := (*history.DamagedError)(nil); errors.As(err, &d) {
		return nil, damaged(ctx, s, d, undo)
	}
	if u := (*history.UnrecordedError)(nil); errors.As(err, &u) {
		return nil, unrecorded(ctx, s, u)
	}
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, nothingTo(undo)
	}
	if err := inWorkspace(fsys, opts, &e); err != nil {
		return nil, err
	}
	// In the command, the heap the revert will take is made resident at once: for each
	// file, the current file and the kept baseline, half as much again as a commit's.
	prefault.Heap(len(e.Files) * prefault.HeapPerFile * 3 / 2)
	rv := &reverting{history: opts.History, entry: entryOf(&e), undo: undo, made: e.Made}
	declared := declaredBy(fsys, opts)
	var left map[string]bool // for a redo, the files the undo's review left as they were
	if !undo {
		left = map[string]bool{}
		for _, n := range s.KeptBack(&e) {
			left[n] = true
		}
	}
	propose := func(holds holder) (*Proposal, error) {
		p, restores, err := reversal(s, &e, undo, declared, holds, left, opts.History.fsys)
		if err != nil {
			return nil, err
		}
		pr, err := resolveWith(ctx, fsys, p, opts, true, restores, nil)
		if err != nil {
			return nil, err
		}
		return pr, pr.checkReverting()
	}
	pr, err := propose(nil)
	if err != nil && ctx.Err() == nil {
		// A path may already hold what the revert would leave (a part a review kept back,
		// or put back by hand): leave those out, and try once more.
		pr, err = propose(holderOf(fsys, opts))
	}
	if errors.Is(err, errReverted) { // every path holds what the revert would leave
		if dryrun.Is(ctx) {
			return nil, &revertedError{rv: rv, check: true}
		}
		if err := rv.mark(nil); err != nil {
			return nil, err
		}
		if f, err := newFence(fsys, opts); err == nil && undo {
			removeMadeDirs(f, rv.made) // the files were put back by hand; the directories too
		}
		return nil, &revertedError{rv: rv}
	}
	if err != nil {
		return nil, rv.refused(err)
	}
	pr.reverts = rv
	return pr, nil
}

// errOtherWorkspace refuses an undo or a redo of a change made in another workspace
// than the options name: a History given to the options of several workspaces.
var errOtherWorkspace = errors.New("the history's newest change was made in another workspace than this one, so " +
	"it is not reverted here; nothing was written. Give each workspace a History of its own (NewHistory with a " +
	"directory of its own, or UserHistory)")

// inWorkspace refuses an entry recorded in another workspace than the options' one.
func inWorkspace(fsys afero.Fs, opts *Options, e *history.Entry) error {
	if e.Workspace == "" {
		return nil // recorded before entries named their workspace
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return err
	}
	if f.Real() != e.Workspace {
		return errOtherWorkspace
	}
	return nil
}

// pick is the entry an undo reverts, or a redo applies again.
func pick(s *history.Store, undo bool) (history.Entry, bool, error) {
	if undo {
		return s.Undoable()
	}
	return s.Redoable()
}

// nothingTo is the error of an undo or redo with nothing to do.
func nothingTo(undo bool) error {
	if undo {
		return ErrNothingToUndo
	}
	return ErrNothingToRedo
}

// A noHistoryError is an undo or a redo asked of options with no History: an
// [ErrNothingToUndo] (or [ErrNothingToRedo]) whose text tells the host why.
type noHistoryError struct{ undo bool }

func (e *noHistoryError) Error() string {
	return fmt.Sprintf("there is nothing to %s: the options have no History, so no change is recorded; give "+
		"Options.History a NewHistory or a UserHistory before the commits to undo", map[bool]string{true: "undo", false: "redo"}[e.undo])
}

func (e *noHistoryError) Unwrap() error { return nothingTo(e.undo) }

// declaredBy returns the encoding the host declares for a workspace-relative name.
func declaredBy(fsys afero.Fs, opts *Options) func(name string) (encoding.Encoding, string) {
	root := opts.workspace()
	if f, err := newFence(fsys, opts); err == nil {
		root = f.Real()
	}
	return func(name string) (encoding.Encoding, string) {
		if opts.Encoding == nil {
			return nil, ""
		}
		return opts.Encoding(path.Join(root, name))
	}
}

// reversal is the patch that takes each path of the entry from one of its states to
// the other: from what the commit left to what it found (undo), or back (redo). Each
// operation carries the bytes it expects and the bytes it restores.
func reversal(s *history.Store, e *history.Entry, undo bool, declared func(string) (encoding.Encoding, string), holds holder,
	left map[string]bool, storeFs afero.Fs) (*Patch, []*restoreSpec, error) {
	files := slices.Clone(e.Files)
	if undo {
		slices.Reverse(files) // the last operation of the commit is undone first
	}
	byName := map[string]history.File{}
	for _, f := range e.Files {
		byName[f.Name] = f
	}
	sources, moved := map[string]history.File{}, map[string]bool{} // a Move's destination → its source; the sources
	for _, f := range e.Files {
		if f.From != "" {
			sources[f.Name], moved[f.From] = byName[f.From], true
		}
	}
	var ts []*fileTransition
	for _, f := range files {
		if moved[f.Name] {
			continue // the source of a Move goes with its destination
		}
		t := &fileTransition{path: f.Path, src: f.Path, dst: f.Path, from: f.After, to: f.Before, names: [2]string{f.Name, f.Name}}
		if !undo {
			t.from, t.to = f.Before, f.After
		}
		if g, ok := sources[f.Name]; ok { // f is where the commit moved g
			t.src, t.dst, t.from, t.to, t.names = f.Path, g.Path, f.After, g.Before, [2]string{f.Name, g.Name}
			if !undo {
				t.src, t.dst, t.from, t.to, t.names = g.Path, f.Path, g.Before, f.After, [2]string{g.Name, f.Name}
			}
		}
		if left[t.names[0]] || left[t.names[1]] {
			continue // the undo's review left it as it was: it holds the change still
		}
		t.enc, t.encName = declared(f.Name)
		ts = append(ts, t)
	}
	transitions(s, e, ts, storeFs)
	p := &Patch{}
	var restores []*restoreSpec
	for _, t := range ts {
		op, spec, src, dst := t.op, t.spec, t.src, t.dst
		if t.err != nil {
			return nil, nil, fmt.Errorf("%s: %w", t.path, t.err)
		}
		if spec != nil {
			spec.names = t.names
		}
		if op != nil && holds != nil && holds(dst, spec.to) && (src == dst || holds(src, nil)) {
			continue // already as the revert would leave it: a part a review kept back, or put back by hand
		}
		if op != nil && holds != nil && op.MoveTo != "" && len(op.Hunks) > 0 && holds(src, spec.to) {
			op.Hunks = nil // its content already put back by hand: only the move is left to revert
		}
		if op != nil && spec.rewrite {
			p.Ops = append(p.Ops, Operation{Kind: OpDelete, Path: src}) // with the Add that follows: one rewrite
			restores = append(restores, spec)
		}
		if op != nil {
			p.Ops = append(p.Ops, *op)
			restores = append(restores, spec)
		}
	}
	if len(p.Ops) == 0 {
		return nil, nil, errReverted
	}
	return p, restores, nil
}

// Preview returns the result [Commit] would return for the proposal's selection if
// nothing changed before it ran, with Status StatusChecked: the dry run of a proposal,
// such as an [Undo] to show before it is committed. Nothing is written.
func (pr *Proposal) Preview() *Result {
	if pr == nil {
		return errorResult(errNoProposal)
	}
	res := pr.resultAs(true)
	if pr.reverts != nil {
		res.note("Would " + pr.reverts.verb() + " " + pr.reverts.what() + "; nothing was written.")
	}
	return withRecovery(res, pendingFor(pr.fsys, &pr.opts)) // a commit left interrupted is told, never recovered
}

// A revertedError is an undo or a redo with nothing left to write: every file already
// holds what it would leave, so the change is marked as reverted. It is an
// [ErrNothingToUndo] or an [ErrNothingToRedo] for errors.Is.
type revertedError struct {
	rv    *reverting
	check bool // a check only: the change is not marked
}

func (e *revertedError) Error() string {
	if e.check {
		return fmt.Sprintf("every file of %s already holds what the %s would leave: it would write nothing and mark "+
			"the change %sne; nothing was written and the history is as it was", e.rv.what(), e.rv.verb(), e.rv.verb())
	}
	next := "undo again to revert the change before it"
	if !e.rv.undo {
		next = "redo again to apply the next change undone, if any"
	}
	return fmt.Sprintf("every file of %s already holds what the %s would leave, so nothing was written and the "+
		"change is now marked %sne; %s", e.rv.what(), e.rv.verb(), e.rv.verb(), next)
}

func (e *revertedError) Unwrap() error { return nothingTo(e.rv.undo) }

// errReverted is a revert with nothing left to do.
var errReverted = errors.New("every path already holds what the revert would leave")

// A holder reports whether a workspace path holds exactly want (nil: that it is absent).
type holder func(path string, want []byte) bool

// captureAt reads what the path holds now, through the fence f, as a baseline of at most
// limit bytes.
func captureAt(f *fence.Fence, limit int64, path string) (filestate.Baseline, error) {
	r, err := f.Classify(path, false)
	if err != nil {
		return filestate.Baseline{}, err
	}
	return filestate.Capture(f.Files(), r.Name, path, limit, filestate.Stamps{})
}

// holderOf reads paths through the workspace's fence to tell a holder; a path that cannot
// be read holds nothing known.
func holderOf(fsys afero.Fs, opts *Options) holder {
	f, err := newFence(fsys, opts)
	return func(path string, want []byte) bool {
		if err != nil {
			return false
		}
		b, err := captureAt(f, opts.Limits.withDefaults().FileBytes, path)
		switch {
		case err != nil:
			return false
		case want == nil:
			return !b.Exists
		}
		return b.Exists && !b.Dir && bytes.Equal(b.Bytes, want)
	}
}
