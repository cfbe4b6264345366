package pathwalk

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/linktree"
	"github.com/spf13/afero"
)

// TestResolverFollowsLinks checks the F1 resolver on real links: every component is
// followed, final and parent links alike, relative targets from the link's directory and
// absolute ones from the root, dangling links to where they point, chains to their end,
// and ".." from where the walk really is.
func TestResolverFollowsLinks(t *testing.T) {
	base := linktree.Build(t,
		"ws/file.txt", "ws/dir/inner.txt", "outside/o.txt", "outside/sub/",
		"ws/rel -> file.txt",
		"ws/abs -> ${BASE}/ws/file.txt",
		"ws/dangling -> later/new.txt",
		"ws/out -> ../outside",
		"ws/outfile -> ../outside/o.txt",
		"ws/outdangling -> ../outside/none.txt",
		"ws/absout -> ${BASE}/outside",
		"ws/chain1 -> chain2",
		"ws/chain2 -> dir/chainend",
		"ws/dir/chainend -> ../file.txt",
		"ws/sublink -> ../outside/sub",
		"ws/twice -> out",
		"ws/dirlink -> dir",
		"ws/dotty -> ./dir/../dir/./inner.txt",
	)
	ws := filepath.Join(base, "ws")
	tests := []struct {
		path   string
		want   string // relative to base
		linked bool
	}{
		{"file.txt", "ws/file.txt", false},
		{"missing/deeper/x.txt", "ws/missing/deeper/x.txt", false},
		{"./dir/../file.txt", "ws/file.txt", false},
		{"rel", "ws/file.txt", true},
		{"abs", "ws/file.txt", true},
		{"dangling", "ws/later/new.txt", true},
		{"out/o.txt", "outside/o.txt", true},
		{"out/new/deep.txt", "outside/new/deep.txt", true},
		{"outfile", "outside/o.txt", true},
		{"outdangling", "outside/none.txt", true},
		{"absout/o.txt", "outside/o.txt", true},
		{"chain1", "ws/file.txt", true},
		{"sublink/../o.txt", "outside/o.txt", true}, // ".." climbs from the link's target, as the OS does
		{"twice/sub", "outside/sub", true},
		{"dirlink/inner.txt", "ws/dir/inner.txt", true},
		{"dotty", "ws/dir/inner.txt", true},
		{"../outside/o.txt", "outside/o.txt", false},
		{"../../../../../../..", "/", false},
		{filepath.Join(ws, "rel"), "ws/file.txt", true},
		{filepath.Join(base, "outside", "o.txt"), "outside/o.txt", false},
	}
	r := New(afero.NewOsFs())
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := r.Resolve(ws, tt.path)
			if err != nil {
				t.Fatalf("resolve(%q): %v", tt.path, err)
			}
			want := filepath.Join(base, tt.want)
			if filepath.IsAbs(tt.want) {
				want = tt.want
			}
			if got.Name != want || got.Linked != tt.linked {
				t.Errorf("resolve(%q) = %q linked=%v, want %q linked=%v", tt.path, got.Name, got.Linked, want, tt.linked)
			}
		})
	}
}

// TestResolverLinkLoop checks that a loop, and a chain longer than MaxLinks, are refused
// with ErrLinkLoop, while a chain of exactly MaxLinks resolves (F1).
func TestResolverLinkLoop(t *testing.T) {
	entries := []string{"ws/end.txt", "ws/self -> self", "ws/ping -> pong", "ws/pong -> ping"}
	for i := range MaxLinks {
		entries = append(entries, fmt.Sprintf("ws/c%d -> c%d", i, i+1))
	}
	entries = append(entries, fmt.Sprintf("ws/c%d -> end.txt", MaxLinks))
	base := linktree.Build(t, entries...)
	ws := filepath.Join(base, "ws")
	r := New(afero.NewOsFs())
	for _, p := range []string{"self", "ping", "pong/x.txt", "c0"} {
		if _, err := r.Resolve(ws, p); !errors.Is(err, ErrLinkLoop) {
			t.Errorf("resolve(%q) err = %v, want ErrLinkLoop", p, err)
		}
	}
	got, err := r.Resolve(ws, "c1") // exactly MaxLinks hops
	if err != nil || got.Name != filepath.Join(ws, "end.txt") {
		t.Errorf("resolve(c1) = %q, %v; want end.txt after %d links", got.Name, err, MaxLinks)
	}
}

// TestResolverWithoutLinks checks that a filesystem without symbolic links (MemMapFs,
// afero issue #258) resolves names as written, ".." included (F1).
func TestResolverWithoutLinks(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a/b.txt", []byte("b"), 0o644)
	r := New(fsys)
	for path, want := range map[string]string{
		"a/b.txt":       "/ws/a/b.txt",
		"a/../c.txt":    "/ws/c.txt",
		"../x":          "/x",
		"/abs/./y":      "/abs/y",
		"a/b.txt/../z":  "/ws/a/z",
		"new/dir/f.txt": "/ws/new/dir/f.txt",
	} {
		got, err := r.Resolve("/ws", path)
		if err != nil || got.Name != want || got.Linked {
			t.Errorf("resolve(%q) = %+v, %v; want %q", path, got, err, want)
		}
	}
}

// TestLinkLoopNamesTheLimit keeps ErrLinkLoop's text, a constant, in step with MaxLinks.
func TestLinkLoopNamesTheLimit(t *testing.T) {
	if want := "more than " + strconv.Itoa(MaxLinks) + " links"; !strings.Contains(ErrLinkLoop.Error(), want) {
		t.Errorf("ErrLinkLoop = %q, want it to say %q", ErrLinkLoop, want)
	}
}
