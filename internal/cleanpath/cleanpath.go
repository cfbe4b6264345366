// Package cleanpath is [path/filepath.Clean] and [path/filepath.Join] with a fast path
// for names that are clean already, which is nearly every name a commit handles: the
// transaction and the fence clean the same names many times a file, and Clean reads a
// name byte by byte even when it leaves it as it is. Every function returns exactly what
// its filepath counterpart returns; on a system whose separator is not '/', where volume
// names make the rules longer, each simply calls it.
package cleanpath

import (
	"path/filepath"
	"strings"
)

// IsClean reports whether filepath.Clean would return name unchanged. It may say no
// for a few clean names (a relative name starting with ".."), never yes for one that
// is not, so a caller that falls back to Clean stays exact.
func IsClean(name string) bool {
	if filepath.Separator != '/' {
		return filepath.Clean(name) == name
	}
	switch name {
	case "":
		return false
	case "/", ".":
		return true
	}
	if name[len(name)-1] == '/' {
		return false
	}
	rest := name
	if rest[0] == '/' {
		rest = rest[1:]
	}
	for {
		i := strings.IndexByte(rest, '/')
		comp := rest
		if i >= 0 {
			comp = rest[:i]
		}
		if comp == "" || comp == "." || comp == ".." {
			return false
		}
		if i < 0 {
			return true
		}
		rest = rest[i+1:]
	}
}

// Clean is filepath.Clean(name).
func Clean(name string) string {
	if IsClean(name) {
		return name
	}
	return filepath.Clean(name)
}

// Dir is filepath.Dir(name).
func Dir(name string) string {
	if filepath.Separator != '/' || !IsClean(name) {
		return filepath.Dir(name)
	}
	// Every prefix of a clean name that ends before a separator is clean.
	switch i := strings.LastIndexByte(name, filepath.Separator); i {
	case -1:
		return "."
	case 0:
		return name[:1]
	default:
		return name[:i]
	}
}

// Join is filepath.Join(dir, elem).
func Join(dir, elem string) string {
	if filepath.Separator != '/' || dir == "" || dir == "." || elem == "" || elem == "." || elem[0] == filepath.Separator ||
		!IsClean(dir) || !IsClean(elem) {
		return filepath.Join(dir, elem)
	}
	if dir[len(dir)-1] == filepath.Separator { // the root
		return dir + elem
	}
	return dir + string(filepath.Separator) + elem
}
