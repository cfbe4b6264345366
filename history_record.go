package applypatch

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/applypatch/applypatch/internal/history"
	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/show"
	"github.com/applypatch/applypatch/internal/txn"
)

// recordHistory runs after a commit is durable: it records the commit in the history the
// options name or, for an undo or a redo, marks the entry it reverted. It never fails
// the commit: what went wrong is a note of the result.
func (pr *Proposal) recordHistory(plan []*txn.Step, res *Result, kept *keptBaselines, made []string, id string) {
	if rv := pr.reverts; rv != nil {
		err := rv.mark(pr.keptBackNames())
		if err != nil {
			res.note("History not updated: " + err.Error() + "; the files are " + rv.verb() + "ne, but the history lists the change as before")
		} else {
			res.note(rv.done(pr.keptBack()))
		}
		if rv.undo {
			pr.removeMade(rv.made)
		}
		if err == nil {
			pr.dropRevertNote() // marked: a later run has nothing to settle
		}
		return
	}
	if pr.opts.History == nil || len(plan) == 0 {
		return // a commit that wrote nothing is no change to undo, and leaves the redo offered
	}
	err := pr.writeHistory(plan, res, kept, made, id)
	if err == nil {
		pr.intended(id) // recorded; a change that is not keeps its note, so no undo passes over it
	}
	if err != nil {
		if kept != nil {
			if s, _ := pr.opts.History.opened(); s != nil {
				s.Discard(kept.id, kept.size)
			}
		}
		res.note("History not recorded: " + err.Error() + "; the change is applied, but it cannot be undone")
	}
}

// keptBaselines are the backups of a commit's baselines that its history entry keeps:
// the commit's journal directory, moved into the history as the entry's kept directory.
type keptBaselines struct {
	id    string   // the entry's id
	size  int64    // the bytes of the backups
	files []string // by step of the plan, the name of its backup, "" where none
}

// keeper is the offer a commit makes of its journal directory to the history, when it
// records one: the directory's backups are the baselines the entry keeps, so a history
// on the same filesystem as the workspace takes them by one rename rather than writing
// their bytes again. Where the directory cannot be moved, the commit removes it and the
// entry holds the baselines' bytes itself. *kept says what was taken. An undo's or a
// redo's journal is offered to its history's spent directory instead (see spender).
func (pr *Proposal) keeper(plan []*txn.Step, kept **keptBaselines, id string) func(*txn.Kept) bool {
	if pr.reverts != nil {
		return pr.spender()
	}
	if pr.opts.History == nil {
		return nil
	}
	return func(k *txn.Kept) bool {
		if k.Shared {
			return false // a baseline that another name can change is kept as bytes
		}
		var size int64
		for i, b := range k.Backups {
			if b != "" {
				size += int64(len(plan[i].Base.Bytes))
			}
		}
		s, err := pr.opts.History.writing()
		if err != nil || size == 0 {
			return false
		}
		dir, err := s.EntriesDir()
		if err != nil {
			return false
		}
		defer dir.Close()
		if !k.MoveTo(dir, history.KeptName(id, size)) {
			return false
		}
		*kept = &keptBaselines{id: id, size: size, files: k.Backups}
		return true
	}
}

// done says what an undo or a redo did, for the result the model reads: kept are the
// paths its review left as they were, whole or in part.
func (rv *reverting) done(kept []string) string {
	part := ""
	if len(kept) > 0 {
		part = " in part: the review left " + strings.Join(show.Paths(kept), ", ") + " as " + show.PluralWord(len(kept), "it was", "they were")
	}
	if rv.undo {
		return "Undid " + rv.what() + part + "; redo applies it again."
	}
	return "Redid " + rv.what() + part + "."
}

// keptBack returns the paths of the changes a review left out of the commit, whole or
// some of their hunks.
func (pr *Proposal) keptBack() []string {
	var out []string
	for _, c := range pr.changes {
		if c.heldBack() {
			out = append(out, c.Op.Path)
		}
	}
	return out
}

// heldBack reports whether a review left the change out, whole or some of its hunks.
func (c *change) heldBack() bool {
	return !c.Selected || slices.ContainsFunc(c.Hunks, func(h *hunkChange) bool { return !h.isLocator() && !h.Selected })
}

// mark records in the history that the entry is undone, or no longer; kept are the
// names (as the history records them) of the files an undo's review left as they were,
// which a redo leaves alone.
func (rv *reverting) mark(kept []string) error {
	s, err := rv.history.opened()
	if err != nil {
		return err
	}
	return s.MarkUndone(rv.entry.ID, rv.undo, kept)
}

// keptBackNames are the history's names of the files a review left out of the undo or
// redo whole, or in part (a review keeps an undo's files back whole).
func (pr *Proposal) keptBackNames() []string {
	var out []string
	for _, c := range pr.changes {
		if c.undoSpec == nil || !c.heldBack() {
			continue
		}
		for _, n := range c.undoSpec.names {
			if n != "" && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// errHistoryMoved refuses the commit of an undo or a redo whose entry is no longer the one
// to revert.
var errHistoryMoved = errors.New("the history changed since this was proposed (another change, undo or redo was applied); nothing was written: ask for the undo or redo again")

// stillReverting checks, under the commit's lock, that an undo's or a redo's entry is
// still the one to revert.
func (pr *Proposal) stillReverting() error {
	rv := pr.reverts
	if rv == nil {
		return nil
	}
	s, err := rv.history.opened()
	if err != nil {
		return err
	}
	id, err := s.Picks(rv.undo)
	if err != nil {
		return err
	}
	if id != rv.entry.ID {
		var paths []string
		for _, c := range pr.changes {
			paths = append(paths, c.Op.Path)
		}
		return &ConflictError{Reason: ConflictChanged, Paths: paths, Err: errHistoryMoved}
	}
	return nil
}

// writeHistory records the commit of plan: every path's baseline and what the commit
// left, the payload, the time and the tallies.
func (pr *Proposal) writeHistory(plan []*txn.Step, res *Result, kept *keptBaselines, made []string, id string) error {
	s, err := pr.opts.History.writing()
	if err != nil {
		return err
	}
	f, err := pr.fencer()
	if err != nil {
		return err
	}
	e := &history.Entry{ID: id, Time: time.Now().UTC(), Payload: pr.payload, Made: made, Workspace: f.Real()}
	for _, fr := range res.Files {
		e.Added += fr.Added
		e.Removed += fr.Removed
	}
	r := &recording{payload: pr.payload, removed: map[string]*txn.Step{}, index: map[blobKey]int{}}
	for i, st := range plan {
		if st.Op == txn.Remove {
			r.removed[st.Name] = st
		}
		if kept != nil && kept.files[i] != "" {
			r.kept(st.Base.Bytes, kept.files[i])
		}
	}
	if kept != nil {
		e.ID, e.Kept = kept.id, kept.size
	}
	seen := map[string]bool{}
	for _, st := range plan {
		name, ok := relativeTo(f.Real(), st.Name)
		if !ok {
			return fmt.Errorf("%s lies outside the workspace, which the history does not keep", st.Path)
		}
		switch {
		case st.Base.Mode&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link, which the history does not keep", st.Path)
		case seen[name] || st.Base.Dir || st.Base.Mode.Type() != 0:
			return fmt.Errorf("%s is not a regular file written once", st.Path)
		}
		seen[name] = true
		file := history.File{Path: st.Path, Name: name, Before: history.State{Blob: -1}, After: history.State{Blob: -1}}
		if st.Base.Exists {
			file.Before = r.held(keptMode(st.Base.Mode), st.Base.Bytes)
		}
		if st.Op == txn.Write {
			file.After = r.written(st)
		}
		if st.From != "" {
			if file.From, ok = relativeTo(f.Real(), st.From); !ok {
				return fmt.Errorf("%s lies outside the workspace", st.Path)
			}
		}
		e.Files = append(e.Files, file)
	}
	return s.Record(e, r.contents)
}

// A recording gathers the contents of a history entry, each kept once.
type recording struct {
	payload  string               // the payload the entry keeps, which holds what Adds add
	removed  map[string]*txn.Step // the plan's Remove steps by name: where a Move came from
	contents []history.Content
	index    map[blobKey]int
}

// A blobKey names bytes held in memory: where they start and their length.
type blobKey struct {
	p *byte
	n int
}

// held is the state of a file of these bytes, kept as a content of the entry.
// Its CRC is the content's, which the store sums as it writes it (see history.Store.Record).
func (r *recording) held(mode fs.FileMode, b []byte) history.State {
	return history.State{Exists: true, Mode: mode, Size: int64(len(b)), Blob: r.blob(b)}
}

// kept adds b as a content the entry's kept directory holds, as file.
func (r *recording) kept(b []byte, file string) {
	r.index[blobKey{unsafe.SliceData(b), len(b)}] = len(r.contents)
	r.contents = append(r.contents, history.Kept{File: file, Len: int64(len(b)), CRC: history.Checksum(b)})
}

// blob is the index of the content holding b, added once.
func (r *recording) blob(b []byte) int {
	k := blobKey{unsafe.SliceData(b), len(b)}
	if i, ok := r.index[k]; ok && len(b) > 0 {
		return i
	}
	r.index[k] = len(r.contents)
	r.contents = append(r.contents, history.Bytes(b))
	return len(r.contents) - 1
}

// written is the state a write step leaves: an Update derived from its baseline is kept
// as its regions over the baseline (what it changed, not the whole file again); an
// added file whose lines the payload holds as its section spells them, as their span of
// the payload; any other content is kept whole.
func (r *recording) written(st *txn.Step) history.State {
	c, ok := st.Body.(*content)
	switch {
	case ok && c.t == nil:
		if sp, found := history.SpanOf(r.payload, c.added); found { // an Add's lines, where the payload spells them
			size, crc := st.Written() // summed for the journal already
			return history.State{Exists: true, Mode: st.Mode, Size: size, CRC: crc, Blob: -1, Payload: &sp}
		}
		return r.held(st.Mode, c.held) // the bytes written, kept without a copy
	case !ok:
		var b bytes.Buffer
		st.Body.WriteOut(&b)
		return r.held(st.Mode, b.Bytes())
	}
	base := st.Base.Bytes
	if src := r.removed[st.From]; st.From != "" && src != nil { // a Move's result is derived from its source's baseline
		base = src.Base.Bytes
	}
	size, crc := st.Written() // summed for the journal already
	out := history.State{Exists: true, Mode: st.Mode, Size: size, CRC: crc, Blob: -1, Base: r.blob(base), BOM: len(c.bom)}
	regs := c.regs
	if len(regs) == 1 && regs[0].start == 0 && regs[0].end == c.t.Count() && c.t.Count() > 0 {
		regs = leastOf(c, size, crc) // a rewrite: what it changed, not the whole file
	}
	out.Edit = make([]history.Region, 0, len(regs))
	for _, reg := range regs {
		hr := history.Region{Start: reg.start, End: reg.end, Ops: make([]history.Op, len(reg.ops))}
		for i, l := range reg.ops {
			hr.Ops[i].Kind = byte(l.Kind)
			if l.Kind == LineAdd {
				hr.Ops[i].Text = l.Text
			}
		}
		out.Edit = append(out.Edit, hr)
	}
	return out
}

// rebuild is the bytes a history state names: its content, its span of the payload, or
// its edit applied to its base, checked against its size and CRC-32C.
func rebuild(s *history.Store, e *history.Entry, st history.State) ([]byte, error) {
	switch {
	case st.Payload != nil:
		return s.Added(e, st)
	case st.Blob >= 0:
		return s.Content(e, st.Blob)
	}
	base, err := s.Content(e, st.Base)
	if err != nil {
		return nil, err
	}
	if st.BOM > len(base) {
		return nil, errors.New("the history holds an edit that does not fit its file")
	}
	t := lines.Split(string(base[st.BOM:]))
	var regs []region
	for _, hr := range st.Edit {
		if hr.End > t.Count() {
			return nil, errors.New("the history holds an edit that does not fit its file")
		}
		reg := region{start: hr.Start, end: hr.End}
		for _, op := range hr.Ops {
			reg.ops = append(reg.ops, Line{Kind: LineKind(op.Kind), Text: op.Text})
		}
		regs = append(regs, reg)
	}
	var b bytes.Buffer
	b.Grow(int(min(st.Size, 1<<30)))
	b.Write(base[:st.BOM])
	writeResult(&b, t, regs)
	if int64(b.Len()) != st.Size || history.Checksum(b.Bytes()) != st.CRC {
		return nil, errors.New("the history cannot rebuild what the change wrote: its record does not match")
	}
	return b.Bytes(), nil
}

// relativeTo is name relative to the workspace root, when it lies inside it.
func relativeTo(root, name string) (string, bool) {
	if root == "/" {
		rel := strings.TrimPrefix(name, "/")
		return rel, rel != "" && rel != name
	}
	rel, ok := strings.CutPrefix(name, strings.TrimSuffix(root, "/")+"/")
	return rel, ok && rel != ""
}

// newEntryID is a new history entry's id: 48 random bits, in hex.
func newEntryID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// intend returns what a commit does just before it becomes final when it records a
// history entry: note in the history that the entry id is to follow, so that a process
// stopped before it records the entry leaves a change the history knows it missed.
func (pr *Proposal) intend(id string) func() {
	return func() {
		if s, err := pr.opts.History.writing(); err == nil {
			s.Intend(id)
		}
	}
}

// intended removes the note intend made, once the entry is recorded or will not be.
func (pr *Proposal) intended(id string) {
	if pr.opts.History == nil || pr.reverts != nil {
		return
	}
	if s, err := pr.opts.History.opened(); err == nil {
		s.Intended(id)
	}
}
