// Package linktree builds directory trees with symbolic links on the operating system's
// filesystem, for tests of path resolution.
package linktree

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Build builds, in a fresh directory on the operating system, a tree of files,
// directories and symbolic links (typically a workspace "ws" beside an "outside"
// directory). Entries ending in "/" are directories; "name -> target" are links, where
// ${BASE} in the target stands for the fresh directory; others are files holding their own
// name. It returns the real path of the fresh directory, and skips the test where
// symbolic links are unavailable.
func Build(t testing.TB, entries ...string) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		var name, target string
		if _, err := fmt.Sscanf(e, "%s -> %s", &name, &target); err == nil {
			target = os.Expand(target, func(string) string { return base })
			if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
				t.Skipf("symbolic links unavailable: %v", err)
			}
			continue
		}
		p := filepath.Join(base, e)
		if e[len(e)-1] == '/' {
			err = os.MkdirAll(p, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, []byte(e), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return base
}
