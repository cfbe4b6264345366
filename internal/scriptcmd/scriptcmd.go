// Package scriptcmd holds the file commands the behaviour tests' scripts use beyond
// testscript's own (expand, printf, crlf, stamp, listing), so that the tests and the
// differential harness that replays them do exactly the same to a tree.
//
// It works on the paths it is given and nothing else; it never runs the CLI.
package scriptcmd

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// StampTime is the modification time Stamp gives a file.
var StampTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// Expand replaces $VAR and ${VAR} in the file with getenv's values.
func Expand(name string, getenv func(string) string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	return os.WriteFile(name, []byte(os.Expand(string(b), getenv)), 0o666)
}

// Printf writes the file with text read as the body of a Go "…" string literal.
func Printf(name, text string) error {
	s, err := strconv.Unquote(`"` + text + `"`)
	if err != nil {
		return err
	}
	return os.WriteFile(name, []byte(s), 0o644)
}

// CRLF rewrites the file with CRLF line ends.
func CRLF(name string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	s := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n", "\r\n")
	return os.WriteFile(name, []byte(s), 0o644)
}

// Stamp sets the file's times to StampTime.
func Stamp(name string) error { return os.Chtimes(name, StampTime, StampTime) }

// Stamped reports whether the file still has its stamped time.
func Stamped(name string) (bool, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return false, err
	}
	return fi.ModTime().Equal(StampTime), nil
}

// Listing writes to out every path under root, sorted, each with its mode and size (0 for a directory).
func Listing(root, out string) error {
	var lines []string
	err := filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, name)
		size := info.Size()
		if info.IsDir() {
			size = 0 // a directory's size is the filesystem's, not the tree's
		}
		lines = append(lines, fmt.Sprintf("%q %v %d", filepath.ToSlash(rel), info.Mode(), size))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(lines)
	return os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
