package applypatch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/afero"
)

// Class is where a payload path lands relative to the workspace (F2).
type Class int

const (
	// InWorkspace: inside the workspace root.
	InWorkspace Class = iota + 1
	// Outside: outside the root, by ".." or an absolute path or a link that leaves it.
	Outside
	// Protected: inside the root, but host-listed (default ".git/"), so it asks first.
	Protected
	// Forbidden: a credential path; refused in every mode.
	Forbidden
)

var classNames = map[Class]string{InWorkspace: "workspace", Outside: "outside", Protected: "protected", Forbidden: "forbidden"}

// String returns "workspace", "outside", "protected" or "forbidden".
func (c Class) String() string { return classNames[c] }

// DefaultProtected are the workspace paths that ask before a write even inside the
// workspace: a write to .git/hooks is code execution.
var DefaultProtected = []string{".git"}

// DefaultForbidden are the credential paths refused in every mode. A pattern without a
// slash matches a path component anywhere; one with a slash matches consecutive components.
var DefaultForbidden = []string{".ssh", ".gnupg", ".aws/credentials", ".netrc", ".git-credentials", ".docker/config.json"}

// Mode is the approval mode of a call (F4).
type Mode int

const (
	// Edits applies without interactive review; outside and protected paths ask the
	// [Authorizer].
	Edits Mode = iota
	// Ask reviews every call that touches the workspace with the [Reviewer]; outside and
	// protected paths ask the Authorizer first.
	Ask
	// FullAuto applies without review or asking; forbidden paths are still refused.
	FullAuto
)

// A ClassifiedPath is one path of a payload with its class.
type ClassifiedPath struct {
	// Path is the path as authored.
	Path string
	// Class is where it resolves.
	Class Class
	// Kind is what the operation does to it; a Move destination is reported as [Add].
	Kind Kind
	// name is the resolved name in the filesystem.
	name string
}

// An Authorizer decides paths outside the workspace and protected ones (F4). It sees the
// authored paths only.
type Authorizer interface {
	// Authorize returns nil to allow every path in paths, or an error saying why not.
	Authorize(ctx context.Context, mode Mode, paths []ClassifiedPath) error
}

// AuthorizerFunc adapts a function to [Authorizer].
type AuthorizerFunc func(ctx context.Context, mode Mode, paths []ClassifiedPath) error

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, mode Mode, paths []ClassifiedPath) error {
	return f(ctx, mode, paths)
}

// An OwnerPredicate tells whether the host still owns a path (X8): a commit asks it before
// every write, buffer refresh and rollback step, and leaves a path it no longer owns alone.
type OwnerPredicate interface {
	Owns(name string) bool
}

// A BufferHook connects an editor's open buffers to a commit (X9).
type BufferHook interface {
	// Unsaved reports whether an open buffer of name has edits not yet saved.
	Unsaved(name string) bool
	// Refresh reloads an open, unmodified buffer of name after a commit.
	Refresh(name string) error
}

// A FenceError refuses a path: forbidden, or outside/protected without authority.
type FenceError struct {
	Path   string
	Class  Class
	Reason string
}

func (e *FenceError) Error() string {
	return fmt.Sprintf("%s: %s", e.Path, e.Reason)
}

// Is reports whether target is a *FenceError.
func (e *FenceError) Is(target error) bool {
	_, ok := target.(*FenceError)
	return ok
}

// fence resolves and classifies payload paths against a workspace.
type fence struct {
	fsys      afero.Fs
	root      string
	protected []string
	forbidden []string
}

func newFence(fsys afero.Fs, o *Options) *fence {
	prot := o.Protected
	if prot == nil {
		prot = DefaultProtected
	}
	return &fence{
		fsys:      fsys,
		root:      filepath.Clean(o.workspace()),
		protected: prot,
		forbidden: append(append([]string(nil), DefaultForbidden...), o.Forbidden...),
	}
}

// resolve returns the name of an authored path in the filesystem and its class.
func (f *fence) resolve(authored string) (string, Class) {
	name := authored
	if !filepath.IsAbs(name) {
		name = filepath.Join(f.root, name)
	}
	name = filepath.Clean(name)
	rel, ok := f.inside(name)
	switch {
	case matchesAny(name, f.forbidden):
		return name, Forbidden
	case !ok:
		return name, Outside
	case matchesAny(rel, f.protected):
		return name, Protected
	}
	return name, InWorkspace
}

// inside returns name relative to the root, and whether it lies inside it.
func (f *fence) inside(name string) (string, bool) {
	rel, err := filepath.Rel(f.root, name)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// matchesAny reports whether a slash path contains one of patterns as consecutive
// components.
func matchesAny(name string, patterns []string) bool {
	comps := strings.Split(filepath.ToSlash(name), "/")
	for _, p := range patterns {
		pc := strings.Split(strings.Trim(p, "/"), "/")
		for i := 0; i+len(pc) <= len(comps); i++ {
			if equalStrings(comps[i:i+len(pc)], pc) {
				return true
			}
		}
	}
	return false
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fence builds the proposal's changes with their resolved names and classes, refuses
// forbidden paths, and asks for outside and protected ones (F1–F4).
func (pr *Proposal) fence(ctx context.Context) error {
	f := newFence(pr.fsys, &pr.opts)
	var errs []error
	var ask []ClassifiedPath
	claim := func(authored string, kind Kind) (string, Class) {
		name, class := f.resolve(authored)
		switch class {
		case Forbidden:
			errs = append(errs, &FenceError{Path: authored, Class: class,
				Reason: "the path is a credential location and is never written; choose another path"})
		case Outside, Protected:
			ask = append(ask, ClassifiedPath{Path: authored, Class: class, Kind: kind, name: name})
		}
		return name, class
	}
	for i := range pr.Patch.Ops {
		op := pr.Patch.Ops[i]
		c := &Change{Op: op, Selected: true}
		c.name, c.Class = claim(op.Path, op.Kind)
		if op.MoveTo != "" {
			c.moveName, c.MoveClass = claim(op.MoveTo, Add)
		}
		pr.Changes = append(pr.Changes, c)
	}
	if len(errs) > 0 {
		return &PatchError{Errs: errs}
	}
	return pr.authorize(ctx, ask)
}

// authorize asks the Authorizer about outside and protected paths; full-auto allows them.
func (pr *Proposal) authorize(ctx context.Context, ask []ClassifiedPath) error {
	if len(ask) == 0 || pr.opts.Mode == FullAuto {
		return nil
	}
	if pr.opts.Authorizer == nil {
		errs := make([]error, len(ask))
		for i, p := range ask {
			errs[i] = &FenceError{Path: p.Path, Class: p.Class, Reason: refusal[p.Class]}
		}
		return &PatchError{Errs: errs}
	}
	if err := pr.opts.Authorizer.Authorize(ctx, pr.opts.Mode, ask); err != nil {
		return &FenceError{Path: ask[0].Path, Class: ask[0].Class, Reason: "not allowed: " + err.Error()}
	}
	return nil
}

// refusal says why an unauthorised path was refused.
var refusal = map[Class]string{
	Outside:   "the path is outside the workspace and the host did not allow it; use a path inside the workspace",
	Protected: "the path is protected (for example .git/) and the host did not allow it; leave it alone",
}
