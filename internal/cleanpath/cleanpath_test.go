package cleanpath

import (
	"path/filepath"
	"testing"
)

var names = []string{"", ".", "..", "/", "//", "a", "a/", "/a", "a/b", "/a/b", "a//b", "a/./b", "a/../b",
	"./a", "../a", "a/..", "a/.", "/..", "/.", ".a", "..a", "a.", "a..", "a/.b", "a/..b", "/a/b/", "///a",
	"/dev/shm/w/pkg0/file0.go", "pkg0/file0.go", "a/b/c/../../d"}

func TestMatchesFilepath(t *testing.T) {
	for _, n := range names {
		if got, want := Clean(n), filepath.Clean(n); got != want {
			t.Errorf("Clean(%q) = %q, want %q", n, got, want)
		}
		if got, want := Dir(n), filepath.Dir(n); got != want {
			t.Errorf("Dir(%q) = %q, want %q", n, got, want)
		}
		if IsClean(n) && filepath.Clean(n) != n {
			t.Errorf("IsClean(%q), but Clean makes it %q", n, filepath.Clean(n))
		}
		for _, e := range names {
			if got, want := Join(n, e), filepath.Join(n, e); got != want {
				t.Errorf("Join(%q, %q) = %q, want %q", n, e, got, want)
			}
		}
	}
}

func FuzzMatchesFilepath(f *testing.F) {
	for _, n := range names {
		f.Add(n, "b")
	}
	f.Fuzz(func(t *testing.T, dir, elem string) {
		if got, want := Clean(dir), filepath.Clean(dir); got != want {
			t.Fatalf("Clean(%q) = %q, want %q", dir, got, want)
		}
		if got, want := Dir(dir), filepath.Dir(dir); got != want {
			t.Fatalf("Dir(%q) = %q, want %q", dir, got, want)
		}
		if got, want := Join(dir, elem), filepath.Join(dir, elem); got != want {
			t.Fatalf("Join(%q, %q) = %q, want %q", dir, elem, got, want)
		}
	})
}

func BenchmarkClean(b *testing.B) {
	const name = "/dev/shm/applypatch-bench/work-manyfiles/pkg0/file0.go"
	b.Run("filepath", func(b *testing.B) {
		for b.Loop() {
			_ = filepath.Clean(name)
		}
	})
	b.Run("cleanpath", func(b *testing.B) {
		for b.Loop() {
			_ = Clean(name)
		}
	})
}
