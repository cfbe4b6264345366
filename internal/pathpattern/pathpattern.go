// Package pathpattern matches slash paths against lists of patterns whose components are
// [path.Match] patterns, comparing every component in the folded form a case-insensitive
// filesystem gives it (see [Fold]).
package pathpattern

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Set is a compiled list of path patterns. A pattern is a slash path whose components are
// [path.Match] patterns (`*`, `?`, `[...]`); "/" or a leading slash anchors it at the
// filesystem root. Pattern and path components are compared folded (see [Fold]), because
// case-insensitive filesystems (macOS, Windows, ext4 casefold) open ".GIT", ".git.",
// ".ſsh" and ".gıt" as ".git" and ".ssh".
type Set []pattern

// pattern is one compiled pattern, a component each.
type pattern []component

// component is one folded pattern component. Most are plain names, which compare as
// strings; only those with a wildcard or an escape go through [path.Match], which costs
// several times more on the per-file path of every commit.
type component struct {
	text string
	glob bool
}

// match reports whether the component matches one folded path component.
func (c component) match(name string) bool {
	if !c.glob {
		return c.text == name
	}
	ok, _ := path.Match(c.text, name)
	return ok
}

// ErrEmpty is the cause of an [Error] for an empty pattern.
var ErrEmpty = errors.New("empty pattern")

// Error reports a pattern [Compile] cannot use.
type Error struct {
	// Pattern is the pattern as given.
	Pattern string
	// Err is ErrEmpty or [path.ErrBadPattern].
	Err error
}

// Error says which pattern is wrong and why.
func (e *Error) Error() string { return fmt.Sprintf("pattern %q: %v", e.Pattern, e.Err) }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Compile checks and splits a list of patterns. A pattern may use the host's separator.
// The first pattern that is empty or malformed is an [*Error].
func Compile(list []string) (Set, error) {
	out := make(Set, 0, len(list))
	for _, p := range list {
		if p == "" {
			return nil, &Error{Pattern: p, Err: ErrEmpty}
		}
		comps := Components(strings.TrimSuffix(filepath.ToSlash(p), "/"))
		compiled := make(pattern, len(comps))
		for i, c := range comps {
			if _, err := path.Match(c, ""); err != nil {
				return nil, &Error{Pattern: p, Err: err}
			}
			compiled[i] = component{text: c, glob: strings.ContainsAny(c, `*?[\`)}
		}
		out = append(out, compiled)
	}
	return out, nil
}

// Components splits a slash path into folded components; an absolute path starts with an
// empty component, so an anchored pattern matches only at the root.
func Components(slashPath string) []string {
	comps := strings.Split(slashPath, "/")
	for i, c := range comps {
		comps[i] = Fold(c)
	}
	return comps
}

// Anywhere reports whether some pattern matches consecutive components anywhere in comps.
func (s Set) Anywhere(comps []string) bool {
	for _, p := range s {
		for i := 0; i+len(p) <= len(comps); i++ {
			if matchAt(p, comps[i:]) {
				return true
			}
		}
	}
	return false
}

// Leading reports whether some pattern matches the first components of comps: the path
// itself or a directory above it.
func (s Set) Leading(comps []string) bool {
	for _, p := range s {
		if len(p) <= len(comps) && matchAt(p, comps) {
			return true
		}
	}
	return false
}

// matchAt reports whether pattern matches the components at the start of comps.
func matchAt(p pattern, comps []string) bool {
	for i, c := range p {
		if !c.match(comps[i]) {
			return false
		}
	}
	return true
}
