package pathwalk

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// TestLexicalAgreesInMemory checks the in-memory shortcut (PERF4, F1): on a filesystem
// that cannot hold links, thousands of random paths through files, directories, missing
// names, "." and ".." resolve to the same name and the same final lookup as the walk
// that looks every component up, and a path 500 levels deep costs one lookup, not 500.
func TestLexicalAgreesInMemory(t *testing.T) {
	fsys := afero.NewMemMapFs()
	for _, f := range []string{"/ws/a/b/c/f.txt", "/ws/a/g.txt", "/ws/file.txt", "/outside/o.txt"} {
		if err := afero.WriteFile(fsys, f, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walked, short := New(fsys), New(fsys)
	walked.lexical = false
	if !short.lexical {
		t.Fatal("the in-memory filesystem is not resolved lexically")
	}
	comps := []string{"a", "b", "c", "f.txt", "g.txt", "file.txt", "missing", "ws", "outside", "o.txt", ".", "..", ".."}
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		p := make([]string, 1+rnd.IntN(10))
		for j := range p {
			p[j] = comps[rnd.IntN(len(comps))]
		}
		name := strings.Join(p, "/")
		if rnd.IntN(4) == 0 {
			name = "/" + name
		}
		want, werr := walked.Resolve("/ws", name)
		got, gerr := short.Resolve("/ws", name)
		if (werr == nil) != (gerr == nil) || got.Name != want.Name || got.Linked != want.Linked ||
			(got.Info == nil) != (want.Info == nil) || (got.Info != nil && got.Info.Name() != want.Info.Name()) {
			t.Fatalf("resolve(%q) = %+v, %v; walking every component %+v, %v", name, got, gerr, want, werr)
		}
	}
	deep := strings.Repeat("d/", 500) + "x.txt"
	if err := afero.WriteFile(fsys, "/ws/"+deep, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := short.Lookups()
	if res, err := short.Resolve("/ws", deep); err != nil || res.Info == nil || short.Lookups()-before != 1 {
		t.Errorf("deep path: %+v, %v, %d lookups; want found with one lookup", res, err, short.Lookups()-before)
	}
}
