package applypatch

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/pathpattern"
	"github.com/applypatch/applypatch/internal/pathwalk"
	"github.com/applypatch/applypatch/internal/splitfs"
	"github.com/spf13/afero"
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

// defaultProtected returns (a copy of) the path patterns that need authority when
// Options.Protected is nil: ".git" anywhere, since a write to .git/hooks is code
// execution.
func defaultProtected() []string { return []string{".git"} }

// defaultForbidden returns (a copy of) the credential path patterns refused in every
// mode, whatever Options.Forbidden adds. A pattern without a slash matches a path
// component anywhere; one with a slash matches consecutive components.
func defaultForbidden() []string {
	return []string{".ssh", ".gnupg", ".aws/credentials", ".netrc", ".git-credentials", ".docker/config.json"}
}

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

// A fence resolves payload paths against the workspace and classifies them.
// The same fence resolves a path when it is classified, when it is resolved for review
// and again just before it is written.
type fence struct {
	res *pathwalk.Resolver
	// root is the workspace as given, cleaned; real is the same directory with every
	// link on the way followed, which is what resolved names are compared with.
	root, real                  string
	protected, forbidden, allow pathpattern.Set
	// files carries reads and writes: the host's Fs, or a splitfs.FS over Options.WorkspaceFs.
	files afero.Fs
}

// newFence checks the options' patterns and resolves the workspace root.
func newFence(fsys afero.Fs, o *Options) (*fence, error) {
	protected := o.Protected
	if protected == nil {
		protected = defaultProtected()
	}
	f := &fence{res: pathwalk.New(fsys), root: filepath.Clean(o.workspace()), files: fsys}
	var err error
	if f.protected, err = compilePatterns("Protected", protected); err != nil {
		return nil, err
	}
	if f.forbidden, err = compilePatterns("Forbidden", append(defaultForbidden(), o.Forbidden...)); err != nil {
		return nil, err
	}
	if f.allow, err = compilePatterns("Allow", o.Allow); err != nil {
		return nil, err
	}
	real, err := f.res.Resolve(".", f.root)
	if err != nil {
		return nil, fmt.Errorf("applypatch: the workspace cannot be resolved: %w", fserr.Sanitize(err, f.root, "workspace"))
	}
	f.real = real.Name
	if o.WorkspaceFs != nil {
		f.files = splitfs.New(fsys, o.WorkspaceFs, f.real)
	}
	return f, nil
}

// classify resolves one authored path and classifies where it lands.
func (f *fence) classify(authored string, kind OpKind) (ClassifiedPath, error) {
	cp, _, err := f.classifyResolved(authored, kind)
	return cp, err
}

// classifyResolved is classify, also returning what the final name's lookup found when
// it exists and is not a link.
func (f *fence) classifyResolved(authored string, kind OpKind) (ClassifiedPath, fs.FileInfo, error) {
	cp := ClassifiedPath{Path: authored, Kind: kind}
	res, err := f.resolve(authored, kind)
	if err != nil {
		return cp, nil, err
	}
	cp.Name, cp.Link = res.Name, res.Linked
	cp.Class, cp.Outside = f.classOf(authored, res.Name)
	cp.Allowed = f.allowed(cp.Name, cp.Class)
	return cp, res.Info, nil
}

// resolve resolves one authored path: as an entry of its directory for a Delete (a link
// is removed, not followed), else to its final target.
func (f *fence) resolve(authored string, kind OpKind) (pathwalk.Resolution, error) {
	resolve := f.res.Resolve
	if kind == OpDelete {
		resolve = f.res.ResolveEntry
	}
	res, err := resolve(f.real, authored)
	if err != nil {
		return res, &FileError{Path: authored, Reason: FileUnreadable, why: fileUnresolvable, Err: fserr.Sanitize(err, "", authored)}
	}
	return res, nil
}

// classOf classifies a resolved name. Forbidden and protected patterns are matched on
// the whole absolute path, both where it lands and as it was written, so neither a link
// into .git, nor a .git that is itself a link, nor a workspace inside .git, nor an outside
// path into another .git escapes them. It also reports whether the name lies
// outside the workspace, which a protected path may do as well.
func (f *fence) classOf(authored, name string) (Class, bool) {
	lexical := filepath.Clean(authored)
	if !pathwalk.Rooted(authored) {
		lexical = filepath.Join(f.root, authored)
	}
	_, inside := splitfs.Within(f.real, name)
	landed, written := slashComponents(name), slashComponents(lexical)
	switch {
	case f.forbidden.Anywhere(landed) || f.forbidden.Anywhere(written):
		return ClassForbidden, !inside
	case inJournal(landed) || inJournal(written):
		return ClassForbidden, !inside
	case f.protected.Anywhere(landed) || f.protected.Anywhere(written):
		return ClassProtected, !inside
	case !inside:
		return ClassOutside, true
	}
	return ClassWorkspace, false
}

// allowed reports whether an allow rule covers a resolved name: a rule is matched with the
// path relative to the workspace for a name inside it, and with the absolute name for one
// outside. Nothing covers a forbidden path.
func (f *fence) allowed(name string, class Class) bool {
	if class == ClassForbidden || len(f.allow) == 0 {
		return false
	}
	if rel, ok := splitfs.Within(f.real, name); ok {
		return f.allow.Leading(slashComponents(rel))
	}
	return f.allow.Leading(slashComponents(name))
}

// recheck resolves an authored path again and reports whether it still lands on name:
// as an entry of its directory for the removal of a link (entry), else to its target.
// It returns what the lookup of name found, when name exists and is not a link: the
// same as a Stat of it, taken by the walk that just proved where the path leads.
func (f *fence) recheck(authored, name string, entry bool) (fs.FileInfo, error) {
	kind := OpKind("")
	if entry {
		kind = OpDelete
	}
	res, err := f.resolve(authored, kind)
	if err != nil {
		return nil, err
	}
	if res.Name != name {
		// Only a path that lands elsewhere needs classifying again: the class of the
		// same name reached by the same authored path is the one it had.
		class, _ := f.classOf(authored, res.Name)
		return nil, &FileError{Path: authored, Class: class, Reason: FileRedirected}
	}
	return res.Info, nil
}

func slashComponents(name string) []string { return pathpattern.Components(filepath.ToSlash(name)) }

// errNoFence is returned when a proposal's fence cannot be rebuilt.
var errNoFence = errors.New("applypatch: the proposal has no filesystem")
