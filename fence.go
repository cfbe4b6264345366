package applypatch

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/fence"
	"github.com/applypatch/applypatch/internal/txn"
)

// Class is where a payload path lands relative to the workspace once every symbolic link
// on it is followed. The zero Class, "", is no path (a FileError for a path that could
// not be resolved).
type Class string

const (
	// ClassWorkspace: inside the workspace root.
	ClassWorkspace Class = "workspace"
	// ClassOutside: outside the root, by "..", by an absolute path, or through a symbolic link
	// that leaves it.
	ClassOutside Class = "outside"
	// ClassProtected: matching Options.Protected (default ".git" anywhere on the path, the
	// workspace's own directories included), so it needs authority: a write to
	// .git/hooks is code execution. A protected path may also lie outside the root
	// ([ClassifiedPath.Outside]).
	ClassProtected Class = "protected"
	// ClassForbidden: a credential location (Options.Forbidden and the built-in ones),
	// named directly or reached through a link; refused in every mode.
	ClassForbidden Class = "forbidden"
)

// A ClassifiedPath is one path of a payload, resolved and classified.
type ClassifiedPath struct {
	// Path is the path as authored in the payload.
	Path string `json:"path"`
	// Kind is what the operation does to it; a Move destination is reported as [OpAdd].
	Kind OpKind `json:"kind"`
	// Class is where it resolves.
	Class Class `json:"class"`
	// Allowed is set when a host allow rule (Options.Allow) covers the path. It is never
	// set on a forbidden path.
	Allowed bool `json:"allowed,omitempty"`
	// Link is set when resolution followed a symbolic link.
	Link bool `json:"link,omitempty"`
	// Outside is set when the path lands outside the workspace: always for [ClassOutside],
	// and for a protected path such as ../.git/hooks/x, which then needs authority for
	// both.
	Outside bool `json:"outside,omitempty"`
	// Name is the resolved name in the filesystem, for the host's own use. It may
	// disclose host paths the payload never named, so it is left out of JSON; never show
	// it to a model. Changing it changes nothing the fence does.
	Name string `json:"-"`
}

// newFence builds the fence of a call from its options.
func newFence(fsys afero.Fs, o *Options) (*fence.Fence, error) {
	return fence.New(fsys, fence.Config{Root: o.workspace(), Protected: o.Protected,
		Forbidden: o.Forbidden, Allow: o.Allow, WorkspaceFs: o.WorkspaceFs, Guarded: o.guarded(fsys)})
}

// guarded are the directories no payload touches: the user's own state, and the
// directory of the options' History where it lies on the workspace's filesystem (a host
// that keeps it inside the workspace), which a payload could otherwise empty or forge.
func (o *Options) guarded(fsys afero.Fs) []string {
	g := ownState()
	if h := o.History; h != nil && path.IsAbs(filepath.ToSlash(h.dir)) && sameFs(h.fsys, fsys) &&
		(len(g) == 0 || !strings.HasPrefix(h.dir, g[0]+string(filepath.Separator))) {
		g = append(g, h.dir) // a user history lies in the state directory, guarded already
	}
	return g
}

// sameFs reports whether a and b are one filesystem: the operating system's, or the same
// value (one that cannot be compared is taken for another).
func sameFs(a, b afero.Fs) (same bool) {
	_, osA := a.(*afero.OsFs)
	_, osB := b.(*afero.OsFs)
	if osA && osB {
		return true
	}
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// ownState is the directory of the user's journal key and histories, which no payload
// touches even where a workspace (a home directory) holds it; none without a home.
func ownState() []string {
	if dir, err := txn.StateDir(); err == nil {
		return []string{dir}
	}
	return nil
}

// classifyPath resolves one authored path and classifies where it lands, as an entry of
// its directory for a Delete (a link is removed, not followed), else to its final target.
// It also returns what the final name's lookup found when it exists and is not a link.
func classifyPath(f *fence.Fence, authored string, kind OpKind) (ClassifiedPath, fs.FileInfo, error) {
	cp := ClassifiedPath{Path: authored, Kind: kind}
	res, err := f.Classify(authored, kind == OpDelete)
	if err != nil {
		return cp, nil, fenceError(err)
	}
	cp.Name, cp.Link, cp.Class, cp.Outside, cp.Allowed = res.Name, res.Link, Class(res.Class), res.Outside, res.Allowed
	return cp, res.Info, nil
}

// throughLink refuses an operation on a path whose last component is a symbolic link
// where following it would change a file the payload never names: a Delete then an Add
// (an update of what the path resolves to, where the two mean the link removed and a file
// made in its place), or a Move (which would move the link's target away, leaving the
// link dangling); why says which.
func throughLink(f *fence.Fence, authored string, why FileReason) error {
	entry, _, err := classifyPath(f, authored, OpDelete)
	if err != nil {
		return nil // the update's own resolution reports it
	}
	target, _, err := classifyPath(f, authored, OpUpdate)
	if err != nil || entry.Name == target.Name {
		return nil
	}
	return &FileError{Path: authored, Class: entry.Class, Reason: FileLinked, why: why}
}

// fenceError words what the fence found as the public error: a path that cannot be
// resolved, or one that now lands elsewhere.
func fenceError(err error) error {
	if err == nil {
		return nil
	}
	var unresolvable *fence.Unresolvable
	var redirected *fence.Redirected
	switch {
	case errors.As(err, &unresolvable):
		return &FileError{Path: unresolvable.Path, Reason: FileUnreadable, why: fileUnresolvable, Err: unresolvable.Err}
	case errors.As(err, &redirected):
		return &FileError{Path: redirected.Path, Class: Class(redirected.Class), Reason: FileRedirected}
	}
	return err
}

// recheckPath resolves an authored path again just before it is written and reports
// whether it still lands on name (see [fence.Fence.Recheck]).
func recheckPath(f *fence.Fence, authored, name string, entry bool) (fs.FileInfo, error) {
	info, err := f.Recheck(authored, name, entry)
	return info, fenceError(err)
}

// asWritten reports whether a relative authored path resolved to itself under the
// workspace's real root, no link followed on the way.
func asWritten(f *fence.Fence, authored, name string) bool {
	return !filepath.IsAbs(authored) && name == cleanpath.Join(f.Real(), filepath.FromSlash(authored))
}

// errNoFence is returned when a proposal's fence cannot be rebuilt.
var errNoFence = errors.New("applypatch: the proposal has no filesystem")

// errNoFs and errNoPatch refuse a call given a nil filesystem or a nil patch.
var (
	errNoFs    = errors.New("applypatch: no filesystem (a nil afero.Fs) was given; pass afero.NewOsFs(), or afero.NewMemMapFs() in tests")
	errNoPatch = errors.New("applypatch: no patch (a nil *Patch) was given; pass the patch Parse returned")
)

// Classify resolves and classifies every path of a patch, without reading any file's
// contents, so that a host can decide about a call before it runs: show a person
// which paths it would touch, pre-approve it, or refuse it. Paths come in payload order,
// each Move destination right after its source. Resolution follows symbolic links on fsys
// exactly as [Resolve] and [Commit] do; only metadata is read (Lstat, Readlink).
//
// Forbidden paths are reported with their class, not as an error: [Resolve] refuses them.
// A path that cannot be resolved (a link loop, an unreadable directory) makes the error
// join a [*FileError] with reason [FileUnreadable] for each; invalid patterns in opts are
// an error too.
func Classify(fsys afero.Fs, p *Patch, opts *Options) ([]ClassifiedPath, error) {
	switch {
	case fsys == nil:
		return nil, errNoFs
	case p == nil:
		return nil, errNoPatch
	}
	if opts == nil {
		opts = &Options{}
	}
	f, err := newFence(fsys, opts)
	if err != nil {
		return nil, err
	}
	var paths []ClassifiedPath
	var errs []error
	add := func(authored string, kind OpKind) {
		cp, _, err := classifyPath(f, authored, kind)
		if err != nil {
			errs = append(errs, err)
			return
		}
		paths = append(paths, cp)
	}
	for _, op := range p.Ops {
		add(op.Path, op.Kind)
		if op.MoveTo != "" {
			add(op.MoveTo, OpAdd)
		}
	}
	if len(errs) > 0 {
		return nil, &patchError{errs: errs}
	}
	return paths, nil
}

// tailsTried bounds how many trailing parts of an outside path are looked up.
const tailsTried = 16

// insideTail returns the workspace path an absolute outside path most likely meant, or
// "": when exactly one of its trailing parts (for /workspace/src/x.py: workspace/src/x.py,
// src/x.py, x.py) names an existing file of the workspace, as a container's mount point
// makes a model write. A relative path that leaves by ".." or a link meant to leave, so
// it gets no guess. It only looks: the path is refused all the same.
func (pr *Proposal) insideTail(authored string) string {
	f, err := pr.fencer()
	if err != nil || !fence.Rooted(authored) {
		return ""
	}
	parts := strings.Split(strings.Trim(path.Clean(filepath.ToSlash(authored)), "/"), "/")
	found := ""
	for k := max(1, len(parts)-tailsTried); k < len(parts); k++ {
		tail := path.Join(parts[k:]...)
		if tail == "." || strings.HasPrefix(tail, "..") {
			continue
		}
		res, err := f.Classify(tail, false)
		if err != nil || res.Class != fence.ClassWorkspace || res.Info == nil || !res.Info.Mode().IsRegular() {
			continue
		}
		if found != "" {
			return "" // two of its tails name files: no guess
		}
		found = tail
	}
	return found
}
