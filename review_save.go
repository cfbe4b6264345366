package applypatch

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/applypatch/applypatch/internal/filestate"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/spf13/afero"
)

// savedVersion is the version of the saved form; Restore refuses any other.
const savedVersion = 1

// SaveOptions configure how a proposal or a review is saved.
type SaveOptions struct {
	// BaselinesByHash saves each baseline's SHA-256 instead of its bytes, so the saved
	// form stays small and holds no file content. Restoring then re-reads every file and
	// refuses, with a [*ConflictError], one that no longer has that hash: its baseline is
	// gone. With the bytes saved, a file that changed restores fine and the conflict shows
	// at submission instead, where the review stays usable.
	BaselinesByHash bool
}

// The saved form. Hunk lines keep their marker: " ctx", "-old", "+new".
type (
	savedSession struct {
		Version  int            `json:"version"`
		Proposal *savedProposal `json:"proposal"`
		// Expanded lists the files shown unfolded; Folded the hunks folded.
		Expanded []int    `json:"expanded,omitempty"`
		Folded   []Target `json:"folded,omitempty"`
	}
	savedProposal struct {
		Version  int           `json:"version"`
		Ops      []savedOp     `json:"ops"`
		Feedback string        `json:"feedback,omitempty"`
		Changes  []savedChange `json:"changes"`
	}
	savedOp struct {
		Kind   string      `json:"kind"`
		Path   string      `json:"path"`
		MoveTo string      `json:"moveTo,omitempty"`
		Lines  []string    `json:"lines,omitempty"`
		Hunks  []savedHunk `json:"hunks,omitempty"`
		Line   int         `json:"line,omitempty"`
	}
	savedHunk struct {
		Anchor string   `json:"anchor,omitempty"`
		Within []string `json:"within,omitempty"`
		Hint   int      `json:"hint,omitempty"`
		EOF    bool     `json:"eof,omitempty"`
		Lines  []string `json:"lines"`
		Line   int      `json:"line,omitempty"`
		// Review state; absent in the parsed patch.
		Place    *savedPlace `json:"place,omitempty"`
		Selected bool        `json:"selected,omitempty"`
		Feedback string      `json:"feedback,omitempty"`
		Revised  bool        `json:"revised,omitempty"`
	}
	savedPlace struct {
		Start   int        `json:"start"`
		Len     int        `json:"len"`
		Pass    match.Pass `json:"pass,omitempty"`
		Trimmed int        `json:"trimmed,omitempty"`
	}
	savedChange struct {
		Op        savedOp            `json:"op"`
		Class     Class              `json:"class"`
		MoveClass Class              `json:"moveClass,omitempty"`
		Base      filestate.Baseline `json:"base"`
		Dest      filestate.Baseline `json:"dest"`
		Selected  bool               `json:"selected,omitempty"`
		Feedback  string             `json:"feedback,omitempty"`
		Revised   bool               `json:"revised,omitempty"`
	}
)

func (pr *Proposal) saved(opts SaveOptions) *savedProposal {
	sp := &savedProposal{Version: savedVersion, Feedback: pr.feedback}
	for i := range pr.patch.Ops {
		sp.Ops = append(sp.Ops, saveOp(&pr.patch.Ops[i], nil))
	}
	for _, c := range pr.changes {
		sc := savedChange{Op: saveOp(&c.Op, c.Hunks), Class: c.Class, MoveClass: c.MoveClass,
			Base: c.Base, Dest: c.Dest, Selected: c.Selected, Feedback: c.Feedback, Revised: c.Revised}
		sc.Base.Hash, sc.Dest.Hash = c.Base.Sum(), c.Dest.Sum()
		if opts.BaselinesByHash {
			sc.Base.Bytes, sc.Dest.Bytes = nil, nil
		}
		sp.Changes = append(sp.Changes, sc)
	}
	return sp
}

// saveOp saves an operation; hcs, when given, add each hunk's review state.
func saveOp(op *Operation, hcs []*hunkChange) savedOp {
	so := savedOp{Kind: string(op.Kind), Path: op.Path, MoveTo: op.MoveTo, Lines: op.Lines, Line: op.Line}
	hunks := op.Hunks
	if hcs != nil {
		hunks = make([]Hunk, len(hcs))
		for i, h := range hcs {
			hunks[i] = h.Hunk
		}
	}
	for i, h := range hunks {
		sh := savedHunk{Anchor: h.Anchor, Within: h.Within, Hint: h.Hint, EOF: h.EOF, Line: h.Line, Lines: make([]string, len(h.Lines))}
		for k, l := range h.Lines {
			sh.Lines[k] = string(rune(l.Kind)) + l.Text
		}
		if hcs != nil {
			p := hcs[i].Place
			sh.Place = &savedPlace{Start: p.Start, Len: p.Len, Pass: p.Pass, Trimmed: p.Trimmed}
			sh.Selected, sh.Feedback, sh.Revised = hcs[i].Selected, hcs[i].Feedback, hcs[i].Revised
		}
		so.Hunks = append(so.Hunks, sh)
	}
	return so
}

// Save serialises the review: the proposal with its selection, feedback and
// revisions, and the fold state. An open revision is not saved. A review that is
// submitting or settled cannot be saved.
func (s *Session) Save(opts SaveOptions) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writable(Target{}); err != nil {
		return nil, err
	}
	ss := savedSession{Version: savedVersion, Proposal: s.pr.saved(opts)}
	for i, c := range s.pr.changes {
		if s.expanded[c] {
			ss.Expanded = append(ss.Expanded, i+1)
		}
		for k, h := range c.changing() {
			if s.folded[h] {
				ss.Folded = append(ss.Folded, Target{File: i + 1, Hunk: k + 1})
			}
		}
	}
	return json.Marshal(ss)
}

// RestoreSession reads a review saved by [Session.Save] over fsys and opts (which are not
// saved: the host gives them again), and opens it with the saved fold state. Every path
// is fenced again (a path whose class changed since is refused), every baseline is checked
// against its hash (re-read from fsys when saved by hash) and every hunk's placement
// against its baseline; submitting checks the baselines against the disk once more, as
// always. Run the restored session with [Session.Run] to hand it to a Reviewer again.
func RestoreSession(ctx context.Context, fsys afero.Fs, data []byte, opts *Options) (*Session, error) {
	var ss savedSession
	if err := json.Unmarshal(data, &ss); err != nil {
		return nil, &ReviewError{Reason: ReviewUnrestorable, Detail: "not a saved review", Err: err}
	}
	if ss.Version != savedVersion || ss.Proposal == nil {
		return nil, &ReviewError{Reason: ReviewUnrestorable, Detail: fmt.Sprintf("saved review version %d is not supported (want %d)", ss.Version, savedVersion)}
	}
	pr, err := restoreProposal(ctx, fsys, ss.Proposal, opts)
	if err != nil {
		return nil, err
	}
	s := NewSession(pr)
	clear(s.expanded) // the saved fold state, not a first look's
	clear(s.folded)
	for _, n := range ss.Expanded {
		if n >= 1 && n <= len(pr.changes) {
			s.expanded[pr.changes[n-1]] = true
		}
	}
	for _, t := range ss.Folded {
		if _, h, err := s.lookup(t); err == nil && h != nil {
			s.folded[h] = true
		}
	}
	return s, nil
}

// restoreProposal rebuilds a saved proposal over fsys and opts. Every path is fenced
// again (a path whose class changed since is refused), every baseline is checked against
// its hash (re-read from fsys when saved by hash) and every hunk's placement against its
// baseline. Commit of the restored proposal checks the baselines against the disk once
// more, as always.
func restoreProposal(ctx context.Context, fsys afero.Fs, sp *savedProposal, opts *Options) (*Proposal, error) {
	if sp.Version != savedVersion {
		return nil, &ReviewError{Reason: ReviewUnrestorable, Detail: fmt.Sprintf("saved proposal version %d is not supported (want %d)", sp.Version, savedVersion)}
	}
	// A change per operation, but one for a Delete and the Add that rewrites its path.
	if len(sp.Changes) == 0 || len(sp.Changes) > len(sp.Ops) {
		return nil, &ReviewError{Reason: ReviewUnrestorable, Detail: "the saved proposal's operations and changes do not match"}
	}
	if opts == nil {
		opts = &Options{}
	}
	pr := &Proposal{patch: &Patch{}, feedback: sp.Feedback, fsys: fsys, opts: *opts}
	pr.opts.Limits = opts.Limits.withDefaults()
	for i := range sp.Ops {
		op, _, err := restoreOp(&sp.Ops[i])
		if err != nil {
			return nil, err
		}
		pr.patch.Ops = append(pr.patch.Ops, op)
	}
	var stale []string
	for i := range sp.Changes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, paths, err := pr.restoreChange(&sp.Changes[i])
		if err != nil {
			return nil, err
		}
		stale = append(stale, paths...)
		pr.changes = append(pr.changes, c)
	}
	if len(stale) > 0 {
		return nil, fmt.Errorf("%w (the review was saved with baselines by hash, so it cannot continue: resolve the patch again)",
			&ConflictError{Reason: ConflictChanged, Paths: stale})
	}
	return pr, nil
}

// restoreOp rebuilds an operation and, for saved review state, its hunk changes.
func restoreOp(so *savedOp) (Operation, []*hunkChange, error) {
	kind, ok := map[string]OpKind{"add": OpAdd, "update": OpUpdate, "delete": OpDelete}[so.Kind]
	if !ok || so.Path == "" {
		return Operation{}, nil, &ReviewError{Reason: ReviewUnrestorable, Detail: fmt.Sprintf("saved operation %q %q is not an add, update or delete of a path", so.Kind, so.Path)}
	}
	op := Operation{Kind: kind, Path: so.Path, MoveTo: so.MoveTo, Lines: so.Lines, Line: so.Line}
	var hcs []*hunkChange
	for _, sh := range so.Hunks {
		h := Hunk{Anchor: sh.Anchor, Within: sh.Within, Hint: sh.Hint, EOF: sh.EOF, Line: sh.Line}
		for _, l := range sh.Lines {
			if l == "" || !isLineKind(LineKind(l[0])) {
				return Operation{}, nil, &ReviewError{Reason: ReviewUnrestorable, Detail: fmt.Sprintf("%s: saved hunk line %q has no ' ', '-' or '+' marker", so.Path, l)}
			}
			h.Lines = append(h.Lines, Line{Kind: LineKind(l[0]), Text: l[1:]})
		}
		op.Hunks = append(op.Hunks, h)
		if p := sh.Place; p != nil {
			place := match.Place{Start: p.Start, Len: p.Len, Pass: p.Pass, Trimmed: p.Trimmed}
			hcs = append(hcs, &hunkChange{Hunk: h, Place: place, Selected: sh.Selected, Feedback: sh.Feedback, Revised: sh.Revised})
		}
	}
	return op, hcs, nil
}

func isLineKind(k LineKind) bool { return k == LineContext || k == LineRemove || k == LineAdd }

// restoreChange rebuilds one change: fence, baselines, decoded text, placements. It
// returns the authored paths whose file no longer has the saved hash when only the hash
// was saved.
func (pr *Proposal) restoreChange(sc *savedChange) (*change, []string, error) {
	op, hcs, err := restoreOp(&sc.Op)
	if err != nil {
		return nil, nil, err
	}
	if len(hcs) != len(op.Hunks) {
		return nil, nil, &ReviewError{Reason: ReviewUnrestorable, Detail: op.Path + ": saved hunks lack their placements"}
	}
	c := &change{Op: op, Base: sc.Base, Dest: sc.Dest, Hunks: hcs, Selected: sc.Selected, Feedback: sc.Feedback, Revised: sc.Revised}
	if c.name, c.Class, err = pr.refence(op.Path, sc.Class); err != nil {
		return nil, nil, err
	}
	if op.MoveTo != "" {
		if c.moveName, c.MoveClass, err = pr.refence(op.MoveTo, sc.MoveClass); err != nil {
			return nil, nil, err
		}
	}
	var stale []string
	for _, b := range []struct {
		base *filestate.Baseline
		name string
		path string
	}{{&c.Base, c.name, op.Path}, {&c.Dest, c.moveName, op.MoveTo}} {
		ok, err := pr.restoreBaseline(b.base, b.name, b.path)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			stale = append(stale, b.path)
		}
	}
	if op.Kind == OpAdd {
		pr.addCodec(c)
	}
	if len(stale) == 0 && op.Kind == OpUpdate && len(hcs) > 0 {
		if c.text, c.codec, err = pr.decodeBase(c); err != nil {
			return nil, nil, err
		}
		for _, h := range hcs {
			if !match.At(c.text, h.view(), h.Place) {
				return nil, nil, &ReviewError{Reason: ReviewUnrestorable, Detail: fmt.Sprintf("%s: a saved hunk does not match the baseline at line %d", op.Path, h.Place.Line())}
			}
		}
	}
	return c, stale, nil
}

// refence resolves a path again, as Resolve did, and checks it is still in the class it
// was authorised in.
func (pr *Proposal) refence(path string, saved Class) (string, Class, error) {
	if msg := pathProblem(path); msg != "" { // a save is a file anyone may have edited
		return "", "", &ReviewError{Reason: ReviewUnrestorable, Detail: fmt.Sprintf("%q: %s", path, msg)}
	}
	f, err := pr.fencer()
	if err != nil {
		return "", "", err
	}
	cp, _, err := classifyPath(f, path, "")
	switch {
	case err != nil:
		return "", "", err
	case cp.Class == ClassForbidden:
		return "", cp.Class, &FileError{Path: path, Class: cp.Class, Reason: FileForbidden}
	case cp.Class != saved:
		return "", cp.Class, &FileError{Path: path, Class: cp.Class, Reason: FileRedirected}
	}
	return cp.Name, cp.Class, nil
}

// restoreBaseline checks a saved baseline against its hash, re-reading the file when only
// the hash was saved. It reports false for a file whose content moved on.
func (pr *Proposal) restoreBaseline(b *filestate.Baseline, name, path string) (bool, error) {
	if !b.Exists || b.Dir {
		return true, nil
	}
	if b.Bytes == nil && b.Hash == filestate.Hash(nil) { // an empty file: its bytes are not saved
		b.Bytes = []byte{}
	}
	if b.Bytes != nil {
		if filestate.Hash(b.Bytes) != b.Hash {
			return false, &ReviewError{Reason: ReviewUnrestorable, Detail: path + ": the saved baseline does not match its hash"}
		}
		return true, nil
	}
	now, err := filestate.Capture(pr.files(), name, path, pr.opts.Limits.FileBytes, filestate.Stamps{})
	if err != nil {
		return false, stateError(err)
	}
	if !now.Exists || now.Dir || filestate.Hash(now.Bytes) != b.Hash {
		return false, nil
	}
	b.Bytes = now.Bytes
	return true, nil
}
