package applypatch

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// patterns is a compiled list of path patterns (Options.Protected, Options.Forbidden,
// Options.Allow). A pattern is a slash path whose components are [path.Match] patterns
// (`*`, `?`, `[...]`); "/" or a leading slash anchors it at the filesystem root. Pattern
// and path components are compared folded (see foldComponent), because case-insensitive
// filesystems (macOS, Windows, ext4 casefold) open ".GIT", ".git.", ".ſsh" and ".gıt" as
// ".git" and ".ssh".
type patterns [][]string

// compilePatterns checks and splits a list of patterns; field names the option in errors.
func compilePatterns(field string, list []string) (patterns, error) {
	out := make(patterns, 0, len(list))
	for _, p := range list {
		if p == "" {
			return nil, fmt.Errorf("applypatch: Options.%s has an empty pattern", field)
		}
		comps := components(strings.TrimSuffix(filepath.ToSlash(p), "/"))
		for _, c := range comps {
			if _, err := path.Match(c, ""); err != nil {
				return nil, fmt.Errorf("applypatch: Options.%s pattern %q: %w", field, p, err)
			}
		}
		out = append(out, comps)
	}
	return out, nil
}

// components splits a slash path into folded components; an absolute path starts with an
// empty component, so an anchored pattern matches only at the root.
func components(slashPath string) []string {
	comps := strings.Split(slashPath, "/")
	for i, c := range comps {
		comps[i] = foldComponent(c)
	}
	return comps
}

// anywhere reports whether some pattern matches consecutive components anywhere in comps.
func (ps patterns) anywhere(comps []string) bool {
	for _, p := range ps {
		for i := 0; i+len(p) <= len(comps); i++ {
			if matchAt(p, comps[i:]) {
				return true
			}
		}
	}
	return false
}

// leading reports whether some pattern matches the first components of comps: the path
// itself or a directory above it.
func (ps patterns) leading(comps []string) bool {
	for _, p := range ps {
		if len(p) <= len(comps) && matchAt(p, comps) {
			return true
		}
	}
	return false
}

// matchAt reports whether pattern matches the components at the start of comps.
func matchAt(pattern, comps []string) bool {
	for i, pc := range pattern {
		if ok, _ := path.Match(pc, comps[i]); !ok {
			return false
		}
	}
	return true
}
