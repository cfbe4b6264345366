package fence

import (
	"fmt"
	"sync"
	"testing"

	"github.com/spf13/afero"
)

// TestClassOfRemembers: ClassOf answers a question asked again, from any goroutine, as
// it answered it first, and as a fence that has never been asked works it out (PERF5,
// F2): forbidden, protected, guarded, journal and outside names, written as they land
// and otherwise.
func TestClassOfRemembers(t *testing.T) {
	fsys := afero.NewMemMapFs()
	fsys.MkdirAll("/w/proj", 0o755)
	cfg := Config{Root: "/w/proj", Protected: []string{".git", "ci/*.yml"}, Guarded: []string{"/w/state"}}
	asked := [][2]string{
		{"a.go", "/w/proj/a.go"}, {"src/a.go", "/w/proj/src/a.go"}, {".git/hooks/x", "/w/proj/.git/hooks/x"},
		{"ci/build.yml", "/w/proj/ci/build.yml"}, {"link.go", "/w/proj/.git/config"}, {".ssh/id", "/w/proj/.ssh/id"},
		{"../out.txt", "/w/out.txt"}, {"/w/state/x", "/w/state/x"}, {"s", "/w/state/h/e"},
		{".applypatch-journal-1/b0", "/w/proj/.applypatch-journal-1/b0"}, {"a.go", "/w/other/a.go"},
	}
	f, err := New(fsys, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 3 {
				for _, q := range asked {
					fresh, err := New(fsys, cfg)
					if err != nil {
						t.Error(err)
						return
					}
					wantClass, wantOut := fresh.ClassOf(q[0], q[1])
					if class, out := f.ClassOf(q[0], q[1]); class != wantClass || out != wantOut {
						t.Errorf("ClassOf(%q, %q) = %v, %v; a fresh fence says %v, %v", q[0], q[1], class, out, wantClass, wantOut)
					}
				}
			}
		})
	}
	wg.Wait()
	var seen []string
	for _, q := range asked {
		class, out := f.ClassOf(q[0], q[1])
		seen = append(seen, fmt.Sprintf("%v/%v", class, out))
	}
	want := []string{"workspace/false", "workspace/false", "protected/false", "protected/false", "protected/false",
		"forbidden/false", "outside/true", "forbidden/true", "forbidden/true", "forbidden/false", "outside/true"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("classes %v,\nwant %v", seen, want)
	}
}
