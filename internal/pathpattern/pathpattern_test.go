package pathpattern

import (
	"errors"
	"path"
	"testing"
)

// TestCompileErrors: F2. An empty or malformed pattern is an *Error naming it, with its
// cause reachable; a valid list compiles.
func TestCompileErrors(t *testing.T) {
	for _, tt := range []struct {
		list  []string
		bad   string
		cause error
	}{
		{list: []string{".git", ""}, bad: "", cause: ErrEmpty},
		{list: []string{"a/[x"}, bad: "a/[x", cause: path.ErrBadPattern},
		{list: []string{"["}, bad: "[", cause: path.ErrBadPattern},
	} {
		_, err := Compile(tt.list)
		var pe *Error
		if !errors.As(err, &pe) || pe.Pattern != tt.bad || !errors.Is(err, tt.cause) {
			t.Errorf("Compile(%q) = %v, want an *Error for %q caused by %v", tt.list, err, tt.bad, tt.cause)
		}
	}
	if s, err := Compile([]string{".git/", "/etc/*"}); err != nil || len(s) != 2 {
		t.Errorf("Compile of valid patterns = %v, %v", s, err)
	}
}

// TestSetMatching: F2. Anywhere matches consecutive components at any depth, Leading only
// from the start (the path or a directory above it); an anchored pattern matches only at
// the root; components compare folded.
func TestSetMatching(t *testing.T) {
	s, err := Compile([]string{".git", "/etc/pass*", "a/b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path              string
		anywhere, leading bool
	}{
		{path: "src/.GIT./config", anywhere: true, leading: false},
		{path: ".git/config", anywhere: true, leading: true},
		{path: "/etc/passwd", anywhere: true, leading: true},
		{path: "/srv/etc/passwd", anywhere: false, leading: false},
		{path: "x/a/b/c", anywhere: true, leading: false},
		{path: "a/b/c", anywhere: true, leading: true},
		{path: "a", anywhere: false, leading: false},
		{path: "src/.gitx", anywhere: false, leading: false},
	} {
		comps := Components(tt.path)
		if got := s.Anywhere(comps); got != tt.anywhere {
			t.Errorf("Anywhere(%q) = %v, want %v", tt.path, got, tt.anywhere)
		}
		if got := s.Leading(comps); got != tt.leading {
			t.Errorf("Leading(%q) = %v, want %v", tt.path, got, tt.leading)
		}
	}
}

// TestComponentAgreesWithPathMatch: F2. The plain-name fast path decides exactly as
// path.Match does, for plain names, wildcards and escaped metacharacters alike.
func TestComponentAgreesWithPathMatch(t *testing.T) {
	patterns := []string{".git", "*", ".g?t", "[.]git", `\*`, `a\?`, "file[0-9].go", "x*y"}
	names := []string{".git", ".gat", "*", "a?", "a\\?", "file7.go", "filex.go", "xy", "x-y", "", "."}
	for _, p := range patterns {
		s, err := Compile([]string{"d/" + p})
		if err != nil {
			t.Fatal(err)
		}
		c := s[0][1]
		for _, n := range names {
			want, _ := path.Match(p, n)
			if got := c.match(n); got != want {
				t.Errorf("component %q (glob %v) on %q = %v, path.Match says %v", p, c.glob, n, got, want)
			}
		}
	}
}
