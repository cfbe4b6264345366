// Package fence resolves a payload path against the workspace, following every symbolic
// link on the way, and classifies where it lands: inside the workspace, outside it, on a
// protected path (which needs authority) or on a forbidden one (refused in every mode).
// The same fence resolves a path again just before it is written, so a link created or
// swapped meanwhile is seen.
//
// It reads only metadata (Lstat, Readlink), never a file's contents, and it never decides
// whether a path may be written: it reports facts (the resolved name, its class, whether
// an allow rule covers it) that its caller turns into a refusal or a question.
package fence

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/internal/cleanpath"
	"github.com/applypatch/applypatch/internal/fserr"
	"github.com/applypatch/applypatch/internal/pathpattern"
	"github.com/applypatch/applypatch/internal/pathwalk"
	"github.com/applypatch/applypatch/internal/splitfs"
)

// Class is where a path lands. Its values are the public class names.
type Class string

// The classes, from least to most guarded.
const (
	ClassWorkspace Class = "workspace"
	ClassOutside   Class = "outside"
	ClassProtected Class = "protected"
	ClassForbidden Class = "forbidden"
)

// Config is what a fence is built from: the workspace root as given, the pattern lists
// (Protected nil means the default), and an optional filesystem that carries the
// workspace's reads and writes.
type Config struct {
	Root                        string
	Protected, Forbidden, Allow []string
	WorkspaceFs                 afero.Fs
	// Guarded are absolute directories no payload may touch, in any mode, wherever the
	// workspace lies: the tool's own state (its journal key and histories), which a
	// workspace such as a home directory may hold.
	Guarded []string
}

// DefaultProtected returns (a copy of) the path patterns that need authority when no
// list is configured: ".git" anywhere, since a write to .git/hooks is code execution.
func DefaultProtected() []string { return []string{".git"} }

// DefaultForbidden returns (a copy of) the credential path patterns refused in every
// mode, whatever a configuration adds. A pattern without a slash matches a path
// component anywhere; one with a slash matches consecutive components.
func DefaultForbidden() []string {
	return []string{".ssh", ".gnupg", ".aws/credentials", ".netrc", ".git-credentials", ".docker/config.json"}
}

// A Fence resolves payload paths against the workspace and classifies them.
type Fence struct {
	res *pathwalk.Resolver
	// root is the workspace as given, cleaned; real is the same directory with every
	// link on the way followed, which is what resolved names are compared with.
	root, real                  string
	protected, forbidden, allow pathpattern.Set
	guarded                     []string // Config.Guarded, cleaned, and as resolved where that differs
	// files carries reads and writes: the host's Fs, or a splitfs.FS over the
	// configuration's WorkspaceFs.
	files afero.Fs
	// fsys is the host's Fs, which resolves names; wfs is the configuration's WorkspaceFs.
	fsys, wfs afero.Fs
	// classes remembers ClassOf's answers (classKey → classAnswer): a function of its two
	// names and of what New fixed, asked about each path of a commit when it is resolved
	// and again when the commit's journal records it.
	classes sync.Map
}

// A classKey is what ClassOf is asked; a classAnswer what it answered.
type (
	classKey    struct{ authored, name string }
	classAnswer struct {
		class   Class
		outside bool
	}
)

// New checks the configuration's patterns and resolves the workspace root.
func New(fsys afero.Fs, c Config) (*Fence, error) {
	protected := c.Protected
	if protected == nil {
		protected = DefaultProtected()
	}
	f := &Fence{res: pathwalk.New(fsys), root: filepath.Clean(c.Root), files: fsys}
	var err error
	if f.protected, err = compilePatterns("Protected", protected); err != nil {
		return nil, err
	}
	if f.forbidden, err = compilePatterns("Forbidden", append(DefaultForbidden(), c.Forbidden...)); err != nil {
		return nil, err
	}
	if f.allow, err = compilePatterns("Allow", c.Allow); err != nil {
		return nil, err
	}
	real, err := f.res.Resolve(".", f.root)
	if err != nil {
		return nil, fmt.Errorf("applypatch: the workspace cannot be resolved: %w", fserr.Sanitize(err, f.root, "workspace"))
	}
	f.real = real.Name
	for _, dir := range c.Guarded {
		dir = filepath.Clean(dir)
		f.guarded = append(f.guarded, dir)
		if res, err := f.res.Resolve(".", dir); err == nil && res.Name != dir {
			f.guarded = append(f.guarded, res.Name)
		}
	}
	if c.WorkspaceFs != nil {
		f.files = splitfs.New(fsys, c.WorkspaceFs, f.real)
		f.fsys, f.wfs = fsys, c.WorkspaceFs
		if err := f.Moved(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Files is the filesystem that carries the workspace's reads and writes.
func (f *Fence) Files() afero.Fs { return f.files }

// Real is the workspace root with every link on the way followed.
func (f *Fence) Real() string { return f.real }

// Resolver is the fence's path walker, for callers that resolve a host-supplied path the
// same way or batch lookups ([pathwalk.Resolver.Remember]).
func (f *Fence) Resolver() *pathwalk.Resolver { return f.res }

// A Resolved path: its name in the filesystem, whether a link was followed, where it
// lands, whether an allow rule covers it, and what the final name's lookup found when it
// exists and is not a link.
type Resolved struct {
	Name    string
	Link    bool
	Class   Class
	Outside bool
	Allowed bool
	Info    fs.FileInfo
}

// Classify resolves one authored path and classifies where it lands: as an entry of its
// directory when entry is set (a link to be removed, not followed), else to its final
// target. A path that cannot be resolved is an [*Unresolvable].
func (f *Fence) Classify(authored string, entry bool) (Resolved, error) {
	res, err := f.resolve(authored, entry)
	if err != nil {
		return Resolved{}, err
	}
	r := Resolved{Name: res.Name, Link: res.Linked, Info: res.Info}
	r.Class, r.Outside = f.ClassOf(authored, res.Name)
	r.Allowed = f.Allowed(r.Name, r.Class)
	return r, nil
}

// resolve resolves one authored path as an entry of its directory or to its target.
func (f *Fence) resolve(authored string, entry bool) (pathwalk.Resolution, error) {
	resolve := f.res.Resolve
	if entry {
		resolve = f.res.ResolveEntry
	}
	res, err := resolve(f.real, authored)
	if err != nil {
		return res, &Unresolvable{Path: authored, Err: fserr.Sanitize(err, "", authored)}
	}
	return res, nil
}

// ClassOf classifies a resolved name. Forbidden and protected patterns are matched on
// the whole absolute path, both where it lands and as it was written, so neither a link
// into .git, nor a .git that is itself a link, nor a workspace inside .git, nor an outside
// path into another .git escapes them. It also reports whether the name lies
// outside the workspace, which a protected path may do as well.
func (f *Fence) ClassOf(authored, name string) (Class, bool) {
	k := classKey{authored, name}
	if a, ok := f.classes.Load(k); ok {
		return a.(classAnswer).class, a.(classAnswer).outside
	}
	class, outside := f.classOf(authored, name)
	f.classes.Store(k, classAnswer{class, outside})
	return class, outside
}

// classOf is ClassOf, worked out.
func (f *Fence) classOf(authored, name string) (Class, bool) {
	lexical := cleanpath.Clean(authored)
	if !pathwalk.Rooted(authored) {
		lexical = cleanpath.Join(f.root, authored)
	}
	_, inside := splitfs.Within(f.real, name)
	landed, written := slashComponents(name), slashComponents(lexical)
	switch {
	case f.forbidden.Anywhere(landed) || f.forbidden.Anywhere(written):
		return ClassForbidden, !inside
	case inJournal(landed) || inJournal(written) || f.isGuarded(name) || f.isGuarded(lexical):
		return ClassForbidden, !inside
	case f.protected.Anywhere(landed) || f.protected.Anywhere(written):
		return ClassProtected, !inside
	case !inside:
		return ClassOutside, true
	}
	return ClassWorkspace, false
}

// isGuarded reports whether a name is one of the guarded directories or lies in one.
func (f *Fence) isGuarded(name string) bool {
	for _, dir := range f.guarded {
		if _, in := splitfs.Within(dir, name); in {
			return true
		}
	}
	return false
}

// Allowed reports whether an allow rule covers a resolved name: a rule is matched with the
// path relative to the workspace for a name inside it, and with the absolute name for one
// outside. Nothing covers a forbidden path.
func (f *Fence) Allowed(name string, class Class) bool {
	if class == ClassForbidden || len(f.allow) == 0 {
		return false
	}
	if rel, ok := splitfs.Within(f.real, name); ok {
		return f.allow.Leading(slashComponents(rel))
	}
	return f.allow.Leading(slashComponents(name))
}

// Recheck resolves an authored path again and reports whether it still lands on name:
// as an entry of its directory for the removal of a link (entry), else to its target.
// It returns what the lookup of name found, when name exists and is not a link: the
// same as a Stat of it, taken by the walk that just proved where the path leads. A path
// that lands elsewhere now is a [*Redirected].
func (f *Fence) Recheck(authored, name string, entry bool) (fs.FileInfo, error) {
	res, err := f.resolve(authored, entry)
	if err != nil {
		return nil, err
	}
	if res.Name != name {
		// Only a path that lands elsewhere needs classifying again: the class of the
		// same name reached by the same authored path is the one it had.
		class, _ := f.ClassOf(authored, res.Name)
		return nil, &Redirected{Path: authored, Class: class}
	}
	return res.Info, nil
}

// Show is a host-supplied path as an error may show it: a relative one as given, an
// absolute one inside the workspace relative to it, and no other host path.
func (f *Fence) Show(key string) string {
	if !pathwalk.Rooted(key) {
		return key
	}
	for _, root := range []string{f.root, f.real} {
		if rel, ok := splitfs.Within(root, filepath.Clean(key)); ok {
			return filepath.ToSlash(rel)
		}
	}
	return "a path outside the workspace"
}

func slashComponents(name string) []string { return pathpattern.Components(filepath.ToSlash(name)) }

// An Unresolvable path could not be resolved: a link loop, an unreadable directory, a
// name too long. Err is sanitised to name only the authored path.
type Unresolvable struct {
	Path string
	Err  error
}

func (e *Unresolvable) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *Unresolvable) Unwrap() error { return e.Err }

// A Redirected path now lands on another name than the one it was resolved to; Class is
// where it lands now.
type Redirected struct {
	Path  string
	Class Class
}

func (e *Redirected) Error() string { return e.Path + " now resolves elsewhere" }
