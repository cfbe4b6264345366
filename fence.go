package applypatch

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/afero"
)

// Class is where a payload path lands relative to the workspace once every symbolic link
// on it is followed (F2).
type Class int

const (
	// InWorkspace: inside the workspace root.
	InWorkspace Class = iota + 1
	// Outside: outside the root, by "..", by an absolute path, or through a symbolic link
	// that leaves it.
	Outside
	// Protected: matching Options.Protected (default ".git" anywhere on the path, the
	// workspace's own directories included), so it needs authority: a write to
	// .git/hooks is code execution. A protected path may also lie outside the root
	// ([ClassifiedPath.Outside]).
	Protected
	// Forbidden: a credential location (Options.Forbidden and [DefaultForbidden]),
	// named directly or reached through a link; refused in every mode.
	Forbidden
)

var classNames = map[Class]string{InWorkspace: "workspace", Outside: "outside", Protected: "protected", Forbidden: "forbidden"}

// String returns "workspace", "outside", "protected" or "forbidden".
func (c Class) String() string { return classNames[c] }

// MarshalText encodes the class by its name, for JSON render data; the zero Class (no
// path) is empty.
func (c Class) MarshalText() ([]byte, error) {
	if _, ok := classNames[c]; !ok && c != 0 {
		return nil, fmt.Errorf("applypatch: no class %d", int(c))
	}
	return []byte(classNames[c]), nil
}

// UnmarshalText decodes a class name, or the empty text as the zero Class.
func (c *Class) UnmarshalText(b []byte) error {
	for k, v := range classNames {
		if v == string(b) {
			*c = k
			return nil
		}
	}
	if len(b) == 0 {
		*c = 0
		return nil
	}
	return fmt.Errorf("applypatch: unknown class %q", b)
}

// DefaultProtected returns (a copy of) the path patterns that need authority when
// Options.Protected is nil: ".git" anywhere, since a write to .git/hooks is code
// execution. A host that protects more starts from it:
//
//	opts.Protected = append(applypatch.DefaultProtected(), "deploy")
func DefaultProtected() []string { return []string{".git"} }

// DefaultForbidden returns (a copy of) the credential path patterns refused in every
// mode, whatever Options.Forbidden adds. A pattern without a slash matches a path
// component anywhere; one with a slash matches consecutive components.
func DefaultForbidden() []string {
	return []string{".ssh", ".gnupg", ".aws/credentials", ".netrc", ".git-credentials", ".docker/config.json"}
}

// A ClassifiedPath is one path of a payload, resolved and classified (F3).
type ClassifiedPath struct {
	// Path is the path as authored in the payload.
	Path string `json:"path"`
	// Kind is what the operation does to it; a Move destination is reported as [Add].
	Kind Kind `json:"kind"`
	// Class is where it resolves.
	Class Class `json:"class"`
	// Allowed is set when a host allow rule (Options.Allow) covers the path. It is never
	// set on a forbidden path.
	Allowed bool `json:"allowed,omitempty"`
	// Link is set when resolution followed a symbolic link.
	Link bool `json:"link,omitempty"`
	// Outside is set when the path lands outside the workspace: always for [Outside],
	// and for a protected path such as ../.git/hooks/x, which then needs authority for
	// both.
	Outside bool `json:"outside,omitempty"`

	name string
}

// Name returns the resolved name in the filesystem. It may disclose host paths the
// payload never named, so never show it to a model (F5).
func (p ClassifiedPath) Name() string { return p.name }

// FenceReason says why the fence refused a path.
type FenceReason int

const (
	// Refused: the path is forbidden; no mode, rule or Authorizer allows it.
	Refused FenceReason = iota + 1
	// Unauthorized: the path is outside or protected, and neither an allow rule nor the
	// Authorizer allowed it.
	Unauthorized
	// Unresolvable: following the path's links failed (a loop, or an unreadable directory).
	Unresolvable
	// Aliased: the path is the same file as another path of the payload, through a link
	// or spelled another way (relative and absolute).
	Aliased
	// Redirected: at commit, the path no longer resolves where it did when it was
	// classified (a link was created, removed or swapped). The error also matches
	// [*ConflictError].
	Redirected
)

// A FenceError refuses one path of a payload (F2, F4). Its text names the path as
// authored and nothing the payload did not name (F5).
type FenceError struct {
	// Path is the path as authored.
	Path string
	// Class is where the path resolved; zero when it could not be resolved.
	Class Class
	// Reason says why it was refused.
	Reason FenceReason
	// Other is, for Aliased, the other path of the payload that names the same file.
	Other string
	// Err is the cause, if any: the Authorizer's answer, or a sanitised filesystem error.
	Err error
}

// fenceText is what each refusal tells the reader to do next.
var fenceText = map[FenceReason]string{
	Refused: "the path is, or leads through a symbolic link to, a credential location, " +
		"which is never written; choose another path",
	Unresolvable: "the path cannot be resolved",
	Aliased:      "the path names the same file as %s (through a symbolic link, or spelled another way); put all changes to one file in one section",
	Redirected: "the path no longer leads where it did when it was checked (a symbolic link changed); " +
		"resolve the patch again from the current files",
}

// unauthorized is the text of Unauthorized, by class: what happened, then what to do.
var unauthorized = map[Class][2]string{
	Outside: {"the path is outside the workspace (by '..', an absolute path or a symbolic link), " +
		"and the host did not allow it", "use a path inside the workspace"},
	Protected: {"the path is protected (such as .git/), and the host did not allow it",
		"leave it alone, or ask the user to change it"},
}

func (e *FenceError) Error() string {
	shown := showPath(e.Path)
	if e.Reason == Unauthorized {
		text := unauthorized[e.Class]
		if e.Err != nil {
			return fmt.Sprintf("%s: %s (%v); %s", shown, text[0], e.Err, text[1])
		}
		return fmt.Sprintf("%s: %s; %s", shown, text[0], text[1])
	}
	if e.Reason == Aliased {
		return shown + ": " + fmt.Sprintf(fenceText[Aliased], showPath(e.Other))
	}
	msg := shown + ": " + fenceText[e.Reason]
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *FenceError) Unwrap() error { return e.Err }

// Is reports whether target is a *FenceError with the same Reason, or with no Reason.
func (e *FenceError) Is(target error) bool {
	t, ok := target.(*FenceError)
	return ok && (t.Reason == 0 || t.Reason == e.Reason)
}

// A fence resolves payload paths against the workspace and classifies them (F1, F2).
// The same fence resolves a path when it is classified, when it is resolved for review
// and again just before it is written.
type fence struct {
	res *resolver
	// root is the workspace as given, cleaned; real is the same directory with every
	// link on the way followed, which is what resolved names are compared with.
	root, real                  string
	protected, forbidden, allow patterns
	// files carries reads and writes: the host's Fs, or a splitFs over Options.WorkspaceFs.
	files afero.Fs
}

// newFence checks the options' patterns and resolves the workspace root.
func newFence(fsys afero.Fs, o *Options) (*fence, error) {
	protected := o.Protected
	if protected == nil {
		protected = DefaultProtected()
	}
	f := &fence{res: newResolver(fsys), root: filepath.Clean(o.workspace()), files: fsys}
	var err error
	if f.protected, err = compilePatterns("Protected", protected); err != nil {
		return nil, err
	}
	if f.forbidden, err = compilePatterns("Forbidden", append(DefaultForbidden(), o.Forbidden...)); err != nil {
		return nil, err
	}
	if f.allow, err = compilePatterns("Allow", o.Allow); err != nil {
		return nil, err
	}
	real, err := f.res.resolve(".", f.root)
	if err != nil {
		return nil, fmt.Errorf("applypatch: the workspace cannot be resolved: %w", sanitize(err, f.root, "workspace"))
	}
	f.real = real.name
	if o.WorkspaceFs != nil {
		f.files = &splitFs{outside: fsys, inside: o.WorkspaceFs, root: f.real}
	}
	return f, nil
}

// classify resolves one authored path and classifies where it lands.
func (f *fence) classify(authored string, kind Kind) (ClassifiedPath, error) {
	cp := ClassifiedPath{Path: authored, Kind: kind}
	resolve := f.res.resolve
	if kind == Delete {
		resolve = f.res.resolveEntry
	}
	res, err := resolve(f.real, authored)
	if err != nil {
		return cp, &FenceError{Path: authored, Reason: Unresolvable, Err: sanitize(err, "", authored)}
	}
	cp.name, cp.Link = res.name, res.linked
	cp.Class, cp.Outside = f.classOf(authored, res.name)
	cp.Allowed = f.allowed(cp.name, cp.Class)
	return cp, nil
}

// classOf classifies a resolved name. Forbidden and protected patterns are matched on
// the whole absolute path, both where it lands and as it was written, so neither a link
// into .git, nor a .git that is itself a link, nor a workspace inside .git, nor an outside
// path into another .git escapes them (F2). It also reports whether the name lies
// outside the workspace, which a protected path may do as well.
func (f *fence) classOf(authored, name string) (Class, bool) {
	lexical := filepath.Clean(authored)
	if !rooted(authored) {
		lexical = filepath.Join(f.root, authored)
	}
	_, inside := within(f.real, name)
	landed, written := slashComponents(name), slashComponents(lexical)
	switch {
	case f.forbidden.anywhere(landed) || f.forbidden.anywhere(written):
		return Forbidden, !inside
	case inJournal(landed) || inJournal(written):
		return Forbidden, !inside
	case f.protected.anywhere(landed) || f.protected.anywhere(written):
		return Protected, !inside
	case !inside:
		return Outside, true
	}
	return InWorkspace, false
}

// allowed reports whether an allow rule covers a resolved name: a rule is matched with the
// path relative to the workspace for a name inside it, and with the absolute name for one
// outside. Nothing covers a forbidden path.
func (f *fence) allowed(name string, class Class) bool {
	if class == Forbidden || len(f.allow) == 0 {
		return false
	}
	if rel, ok := within(f.real, name); ok {
		return f.allow.leading(slashComponents(rel))
	}
	return f.allow.leading(slashComponents(name))
}

// recheck resolves an authored path again and reports whether it still lands on name:
// as an entry of its directory for the removal of a link (entry), else to its target.
func (f *fence) recheck(authored, name string, entry bool) error {
	kind := Kind(0)
	if entry {
		kind = Delete
	}
	cp, err := f.classify(authored, kind)
	if err != nil {
		return err
	}
	if cp.name != name {
		return &FenceError{Path: authored, Class: cp.Class, Reason: Redirected}
	}
	return nil
}

// within returns name relative to root, and whether it lies inside root (on a separator
// boundary: /w/proj-sibling is not inside /w/proj).
func within(root, name string) (string, bool) {
	rel, err := filepath.Rel(root, name)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

func slashComponents(name string) []string { return components(filepath.ToSlash(name)) }

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

// errNoFence is returned when a proposal's fence cannot be rebuilt.
var errNoFence = errors.New("applypatch: the proposal has no filesystem")
