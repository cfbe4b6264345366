package applypatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/txn"
)

// Mode is the approval mode of a call. Every mode runs the same fence, validation
// and transaction; modes differ only in whether a person reviews workspace changes.
// Outside and protected paths need authority in every mode, and forbidden paths are
// refused in every mode:
//
//	class      Ask                         Edits                  FullAuto
//	workspace  review (unless Allow        applied                applied
//	           covers every path)
//	protected  Allow rule, else Authorizer; refused without either (all modes)
//	outside    Allow rule, else Authorizer; refused without either (all modes)
//	forbidden  refused                     refused                refused
//
// FullAuto means nobody reviews the edits, not that the fence opens: a write outside the
// workspace or into .git/hooks is a privilege a host grants on purpose, with
// Options.Allow or an [Authorizer]. The Authorizer is told the mode, so a host can prompt
// a person in Ask or Edits and decide by rule in FullAuto.
type Mode string

const (
	// ModeAsk, which the zero Mode and any Mode not declared here mean too, reviews a
	// call with the host's Reviewer when a path lies in the workspace, unless the host's
	// allow rules cover every path. A [Tool] given a Reviewer therefore reviews unless
	// told otherwise, and one without a Reviewer refuses such a call.
	ModeAsk Mode = "ask"
	// ModeEdits applies without interactive review.
	ModeEdits Mode = "edits"
	// ModeFullAuto applies without interactive review and without a person to ask; the
	// Authorizer, if any, should decide by rule.
	ModeFullAuto Mode = "full-auto"
)

// orAsk returns m when it is ModeEdits or ModeFullAuto, and ModeAsk otherwise: the zero
// Mode, and any spelling it does not know ("Ask", "auto", a typo in a host's settings),
// which must never skip a review.
func (m Mode) orAsk() Mode {
	if m == ModeEdits || m == ModeFullAuto {
		return m
	}
	return ModeAsk
}

// An Authorizer decides outside and protected paths that no allow rule covers. It is
// asked once per call, with all such paths, before any baseline is read. It sees the paths
// as authored; [ClassifiedPath].Name is the resolved name for the host's own use.
//
// Within [Apply] and a [Tool]'s calls it is asked while the workspace's lock is held, so
// that nothing changes between its answer and the write: a host that asks a person
// keeps other commits in the workspace waiting meanwhile (up to their own contexts).
// A host that would rather not resolves the payload with [ResolvePayload], which takes
// no lock, and commits after the answer. A panic in it releases the lock.
type Authorizer interface {
	// Authorize returns nil to allow every path in paths, or an error saying why not. The
	// error is reported to the model with each of the paths, so it should name no host path
	// and no single one of them.
	Authorize(ctx context.Context, mode Mode, paths []ClassifiedPath) error
}

// fence builds the proposal's changes with their resolved names and classes, refuses
// forbidden, unresolvable and aliased paths, and asks for authority over outside and
// protected ones.
func (pr *Proposal) fence(ctx context.Context) error {
	f, err := pr.fencer()
	if err != nil {
		return err
	}
	defer f.Resolver().Remember()() // paths sharing parents look each up once
	var errs []error
	var paths []ClassifiedPath
	seen := map[string]string{} // resolved name → authored path
	claim := func(authored string, kind OpKind) (string, Class) {
		cp, _, err := classifyPath(f, authored, kind)
		switch other, dup := seen[cp.Name]; {
		case err != nil:
			errs = append(errs, err)
		case cp.Class == ClassForbidden:
			errs = append(errs, &FileError{Path: authored, Class: ClassForbidden, Reason: FileForbidden})
		case dup:
			errs = append(errs, &FileError{Path: authored, Class: cp.Class, Reason: FileAliased, Other: other})
		default:
			seen[cp.Name] = authored
			paths = append(paths, cp)
		}
		return cp.Name, cp.Class
	}
	pairs := rewrites(pr.patch.Ops) // a Delete → the Add that rewrites its path
	rewriting := map[int]int{}
	for del, add := range pairs {
		rewriting[add] = del
	}
	for i, op := range pr.patch.Ops {
		if _, ok := pairs[i]; ok {
			continue // the Add of the same path that follows rewrites it
		}
		c := &change{Op: op, Selected: true}
		if i < len(pr.restores) {
			c.undoSpec = pr.restores[i]
		}
		if i < len(pr.edits) {
			c.edit = pr.edits[i]
		}
		if del, ok := rewriting[i]; ok {
			c.Op = Operation{Kind: OpUpdate, Path: op.Path, Line: pr.patch.Ops[del].Line}
			c.rewrite, c.rewriteLines, c.whole = true, op.Lines, c.undoSpec != nil
			if err := throughLink(f, op.Path, fileRewriteSymlink); err != nil {
				errs = append(errs, err)
			}
		}
		c.name, c.Class = claim(c.Op.Path, c.Op.Kind)
		if op.MoveTo != "" {
			c.moveName, c.MoveClass = claim(op.MoveTo, OpAdd)
			if err := throughLink(f, op.Path, fileMoveSymlink); err != nil {
				errs = append(errs, err)
			}
		}
		pr.changes = append(pr.changes, c)
	}
	if len(errs) > 0 {
		return &patchError{errs: errs}
	}
	return pr.authorize(ctx, paths)
}

// authorize allows the outside and protected paths that an allow rule covers, and asks
// the Authorizer about the rest; without an Authorizer they are refused.
func (pr *Proposal) authorize(ctx context.Context, paths []ClassifiedPath) error {
	var ask []ClassifiedPath
	for _, p := range paths {
		if (p.Class == ClassOutside || p.Class == ClassProtected) && !p.Allowed {
			ask = append(ask, p)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	var answer error
	if pr.opts.Authorizer != nil {
		if answer = pr.opts.Authorizer.Authorize(ctx, pr.opts.Mode.orAsk(), ask); answer == nil {
			return nil
		}
	}
	errs := make([]error, len(ask))
	for i, p := range ask {
		fe := &FileError{Path: p.Path, Class: p.Class, Reason: FileUnauthorized, Err: answer}
		if p.Class == ClassOutside {
			fe.suggest = pr.insideTail(p.Path)
		}
		errs[i] = fe
	}
	return &patchError{errs: errs}
}

// needsReview reports whether the call must be reviewed by a person before [Commit]:
// only in [ModeAsk] mode, when a path lies in the workspace, and not when the host's
// allow rules (Options.Allow) cover every path of the payload.
func (pr *Proposal) needsReview() bool {
	if pr.opts.Mode.orAsk() != ModeAsk {
		return false
	}
	f, err := pr.fencer()
	if err != nil {
		return true
	}
	workspace, covered := false, true
	for _, c := range pr.changes {
		workspace = workspace || c.Class == ClassWorkspace || c.MoveClass == ClassWorkspace
		covered = covered && f.Allowed(c.name, fence.Class(c.Class)) && (c.Op.MoveTo == "" || f.Allowed(c.moveName, fence.Class(c.MoveClass)))
	}
	return workspace && !covered
}

// fencer returns the proposal's fence, building it when the proposal was made without
// one (a proposal restored from JSON).
func (pr *Proposal) fencer() (*fence.Fence, error) {
	if pr.fenced != nil {
		return pr.fenced, nil
	}
	if pr.fsys == nil {
		return nil, errNoFence
	}
	f, err := newFence(pr.fsys, &pr.opts)
	if err != nil {
		return nil, err
	}
	pr.fenced = f
	return f, nil
}

// files is the filesystem the proposal reads baselines from and commits to.
func (pr *Proposal) files() afero.Fs {
	if f, err := pr.fencer(); err == nil {
		return f.Files()
	}
	return pr.fsys
}

// recheck resolves the paths of steps again, just before they are written, with the
// resolver that classified them. A path that now lands elsewhere (a link created,
// removed or swapped since) or cannot be resolved is a conflict: nothing of the plan is
// written, and the error matches both [*ConflictError] and [*FileError].
func (pr *Proposal) recheck(steps []*txn.Step) error {
	f, err := pr.fencer()
	if err != nil {
		return err
	}
	if len(steps) > 1 {
		defer f.Resolver().Remember()() // one look at each shared parent per check
	}
	var paths []string
	var errs []error
	for _, st := range steps {
		if _, err := recheckPath(f, st.Path, st.Name, st.Base.IsLink()); err != nil {
			paths = append(paths, st.Path)
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return &patchError{errs: append([]error{&ConflictError{Reason: ConflictChanged, Paths: paths}}, errs...)}
}

// recheckBatch resolves the plan's paths again before the first write, unless they were
// resolved under this commit's lock with nothing written since ([Apply]): then that
// resolution is the check, and each path is still resolved again just before its write.
func (pr *Proposal) recheckBatch(steps []*txn.Step) error {
	if pr.readLocked {
		return nil
	}
	return pr.recheck(steps)
}

// recheckStep is the transaction's guard: one step's path, resolved again just before it
// is written. It returns what the walk found at the path's end (see fence.recheck), so
// that the baseline check that follows needs no look of its own.
func (pr *Proposal) recheckStep(st *txn.Step) (fs.FileInfo, error) {
	f, err := pr.fencer()
	if err != nil {
		return nil, err
	}
	// A file created at its path as written is walked again only to its directory: the
	// rename or hard link that places it refuses a name that exists (and where there is
	// neither, the look just before the rename does), so a look at the name could only
	// find it absent.
	created := st.Op == txn.Write && !st.Base.Exists && asWritten(f, st.Path, st.Name)
	info, err := recheckPath(f, st.Path, st.Name, st.Base.IsLink() || created)
	if err != nil {
		return nil, &patchError{errs: []error{&ConflictError{Reason: ConflictChanged, Paths: []string{st.Path}}, err}}
	}
	return info, nil
}

// pathKind is what an earlier operation of the payload leaves at a path.
type pathKind uint8

const (
	pathFile   pathKind = iota + 1 // an Add or a Move destination creates a file
	pathDir                        // an Add creates a file below it
	pathAbsent                     // a Delete or a Move source removes it
)

// laterTree is the tree as the operations checked so far leave it: what they made of
// each resolved name, and which operation did.
type laterTree struct {
	fsys afero.Fs // the tree before the payload
	kind map[string]pathKind
	by   map[string]string // the authored path of the operation that made it so
}

// checkOrder checks every operation against the tree as the earlier operations of the
// payload leave it, so that Check refuses exactly what Commit would fail on: an Add
// below a file an earlier Add creates, an Add of a directory an earlier Add creates files
// in, an operation on a path an earlier one deleted or moved away. A path below a file
// on disk is fine only where an earlier operation removes that file.
func (pr *Proposal) checkOrder() []error {
	t := &laterTree{fsys: pr.files(), kind: map[string]pathKind{}, by: map[string]string{}}
	var errs []error
	for _, c := range pr.changes {
		if err := t.check(c); err != nil {
			errs = append(errs, err)
			continue
		}
		t.apply(c)
	}
	return errs
}

// check checks one change against the tree the earlier ones leave.
func (t *laterTree) check(c *change) error {
	if c.Op.Kind != OpAdd {
		if err := t.needsFile(c.name, c.Op.Path); err != nil {
			return err
		}
	}
	switch {
	case c.Op.Kind == OpAdd:
		return t.canCreate(c.name, c.Op.Path, c.parentErr)
	case c.Op.MoveTo != "":
		return t.canCreate(c.moveName, c.Op.MoveTo, c.destParentErr)
	}
	return nil
}

// needsFile refuses an operation on a path an earlier operation removed, or made a
// directory of.
func (t *laterTree) needsFile(name, authored string) error {
	switch t.kind[name] {
	case pathAbsent:
		return &FileError{Path: authored, Reason: FileMissing, Err: fmt.Errorf("an earlier operation of the payload (on %s) removes it", t.by[name])}
	case pathDir:
		return &FileError{Path: authored, Reason: FileIsDir, Err: fmt.Errorf("an earlier operation of the payload creates %s in it", t.by[name])}
	}
	return nil
}

// canCreate refuses to create a file at a path the earlier operations leave taken, or
// below a file.
func (t *laterTree) canCreate(name, authored string, parentErr error) error {
	switch t.kind[name] {
	case pathFile:
		return &FileError{Path: authored, Reason: FileExists, Err: fmt.Errorf("an earlier operation of the payload (on %s) creates it", t.by[name])}
	case pathDir:
		return &FileError{Path: authored, Reason: FileExists, Err: errors.New("an earlier operation of the payload creates " + t.by[name] + " in it, so it is a directory")}
	}
	removed := false
	up := filepath.ToSlash(authored)
	for d := cleanpath.Dir(name); d != cleanpath.Dir(d); d = cleanpath.Dir(d) {
		up = path.Dir(up)
		switch t.kind[d] {
		case pathFile:
			return &FileError{Path: authored, Reason: FileParentNotDir, Parent: t.by[d]}
		case pathAbsent:
			removed = true
			continue
		case pathDir:
			return nil
		}
		if removed {
			continue
		}
		fi, err := t.fsys.Stat(d)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && parentErr != nil:
			return parentErr // found when the path was read, with its cause
		case err == nil && localParent(up):
			// Some filesystems (afero's MemMapFs) report a path below a file as
			// missing rather than ENOTDIR: the file is found here instead.
			return &FileError{Path: authored, Reason: FileParentNotDir, Parent: up}
		case err == nil:
			return &FileError{Path: authored, Reason: FileParentNotDir, Parent: "a parent directory"}
		}
	}
	if parentErr != nil && !removed {
		return parentErr
	}
	return nil
}

// apply records what a change leaves.
func (t *laterTree) apply(c *change) {
	switch {
	case c.Op.Kind == OpAdd:
		t.create(c.name, c.Op.Path)
	case c.Op.Kind == OpDelete:
		t.set(c.name, pathAbsent, c.Op.Path)
	case c.Op.MoveTo != "":
		t.set(c.name, pathAbsent, c.Op.Path)
		t.create(c.moveName, c.Op.MoveTo)
	}
}

// create records a file and the directories above it.
func (t *laterTree) create(name, authored string) {
	t.set(name, pathFile, authored)
	for d := cleanpath.Dir(name); d != cleanpath.Dir(d); d = cleanpath.Dir(d) {
		if t.kind[d] == pathDir {
			break
		}
		t.set(d, pathDir, authored)
	}
}

// localParent reports whether an authored parent can be shown: it names a directory of
// the payload's own path, not the root or an escape.
func localParent(up string) bool {
	return up != "." && up != "/" && up != ".." && !strings.HasSuffix(up, "/..")
}

func (t *laterTree) set(name string, k pathKind, authored string) {
	t.kind[name], t.by[name] = k, authored
}
