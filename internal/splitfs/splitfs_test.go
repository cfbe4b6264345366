package splitfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/spf13/afero"
)

// fixture is a split over two in-memory filesystems with the root /w/proj.
func fixture(t *testing.T) (s *FS, outside, inside afero.Fs) {
	t.Helper()
	outside, inside = afero.NewMemMapFs(), afero.NewMemMapFs()
	return New(outside, inside, filepath.FromSlash("/w/proj")), outside, inside
}

// TestWithin: F2. A name is inside its root on a separator boundary only, the root itself
// included.
func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		name, rel string
		ok        bool
	}{
		{"/w/proj", ".", true},
		{"/w/proj/a.txt", "a.txt", true},
		{"/w/proj/src/a.go", filepath.FromSlash("src/a.go"), true},
		{"/w/proj-sibling/a.txt", "", false},
		{"/w/a.txt", "", false},
		{"/etc/passwd", "", false},
	} {
		rel, ok := Within(filepath.FromSlash("/w/proj"), filepath.FromSlash(tc.name))
		if rel != tc.rel || ok != tc.ok {
			t.Errorf("Within(/w/proj, %s) = %q, %v; want %q, %v", tc.name, rel, ok, tc.rel, tc.ok)
		}
	}
}

// TestWithinAgreesWithRel: F2, PERF5. The fast paths, for a name spelled below its root
// and for two clean absolute names that are not, answer exactly as the definition by
// filepath.Rel does: at the filesystem's root, on separator boundaries, for names that
// are not clean, and for relative ones.
func TestWithinAgreesWithRel(t *testing.T) {
	roots := []string{"/", "/w", "/w/proj", "/w/proj/", "/w/.", "/w/..", "/w/./proj", "/w//proj",
		".", "w", "w/proj", "../w"}
	names := []string{"/", "/w", "/w/proj", "/w/proj/a", "/w/proj/a/b.go", "/w/proj-x", "/w/projx/a",
		"/w/proj/../proj/a", "/w/proj/./a", "/w/proj//a", "/etc/passwd", "/w/pro", "/w/.x", "/w/..x/a", "/w/.proj",
		".", "a", "w/proj/a", "w/projx", "../w/a", "w/../w/proj/a"}
	for _, r := range roots {
		for _, n := range names {
			root, name := filepath.FromSlash(r), filepath.FromSlash(n)
			want, err := filepath.Rel(root, name)
			wantOK := err == nil && filepath.IsLocal(want)
			if !wantOK {
				want = ""
			}
			if got, ok := Within(root, name); got != want || ok != wantOK {
				t.Errorf("Within(%q, %q) = %q, %v; Rel says %q, %v", root, name, got, ok, want, wantOK)
			}
		}
	}
}

// TestRoute: F2. Names inside the root reach the inside filesystem as "/" plus their name
// relative to it; others reach the outside filesystem unchanged.
func TestRoute(t *testing.T) {
	s, outside, inside := fixture(t)
	for _, tc := range []struct {
		name, want string
		in         bool
	}{
		{"/w/proj", "/", true},
		{"/w/proj/src/a.go", "/src/a.go", true},
		{"/w/proj-sibling/a.go", filepath.FromSlash("/w/proj-sibling/a.go"), false},
	} {
		fsys, n := s.Route(filepath.FromSlash(tc.name))
		if n != tc.want || (fsys == inside) != tc.in || (fsys == outside) == tc.in {
			t.Errorf("Route(%s) = %q on the inside: %v; want %q, %v", tc.name, n, fsys == inside, tc.want, tc.in)
		}
	}
}

// TestCallerNames: files and errors carry the name the caller used, never the inside
// filesystem's, on both sides.
func TestCallerNames(t *testing.T) {
	s, _, inside := fixture(t)
	name := filepath.FromSlash("/w/proj/a.txt")
	if err := afero.WriteFile(s, name, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := afero.ReadFile(inside, "/a.txt"); err != nil || string(b) != "x" {
		t.Fatalf("inside /a.txt = %q, %v; want the file written through the split", b, err)
	}
	f, err := s.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Name() != name {
		t.Errorf("Name() = %q, want %q", f.Name(), name)
	}
	for _, missing := range []string{"/w/proj/missing.txt", "/w/elsewhere/missing.txt"} {
		missing = filepath.FromSlash(missing)
		_, err := s.Stat(missing)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != missing || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%s) = %v; want a not-exist PathError naming it", missing, err)
		}
	}
}

// TestAcrossTheBoundary: a rename or a hard link from one side to the other fails with
// EXDEV, as across devices, naming the caller's names; nothing moves.
func TestAcrossTheBoundary(t *testing.T) {
	s, outside, _ := fixture(t)
	in, out := filepath.FromSlash("/w/proj/a.txt"), filepath.FromSlash("/w/b.txt")
	if err := afero.WriteFile(s, in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for op, call := range map[string]func() error{
		"rename": func() error { return s.Rename(in, out) },
		"link":   func() error { return s.Link(in, out) },
	} {
		err := call()
		var le *os.LinkError
		if !errors.As(err, &le) || !errors.Is(err, syscall.EXDEV) || le.Old != in || le.New != out {
			t.Errorf("%s across the boundary = %v; want EXDEV naming both", op, err)
		}
	}
	if _, err := outside.Stat(out); err == nil {
		t.Error("the file crossed the boundary")
	}
	if err := s.Rename(in, filepath.FromSlash("/w/proj/c.txt")); err != nil {
		t.Errorf("a rename on one side: %v", err)
	}
}

// TestLinkUnsupported: a filesystem without hard links says so with ErrUnsupported.
func TestLinkUnsupported(t *testing.T) {
	err := Link(afero.NewMemMapFs(), "/a", "/b")
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Link on a MemMapFs = %v; want ErrUnsupported", err)
	}
}

// batcher counts the batches opened and ended on it.
type batcher struct {
	afero.Fs
	open, ended int
}

func (b *batcher) Batch() func() { b.open++; return func() { b.ended++ } }

// TestBatch: a batch on the split opens one on each side that keeps them and ends both.
func TestBatch(t *testing.T) {
	in, out := &batcher{Fs: afero.NewMemMapFs()}, &batcher{Fs: afero.NewMemMapFs()}
	end := Batch(New(out, in, "/w"))
	if in.open != 1 || out.open != 1 || in.ended+out.ended != 0 {
		t.Fatalf("after Batch: inside %+v, outside %+v", in, out)
	}
	end()
	if in.ended != 1 || out.ended != 1 {
		t.Errorf("after end: inside ended %d, outside ended %d", in.ended, out.ended)
	}
	Batch(afero.NewMemMapFs())() // a filesystem that keeps none: nothing to do
}
