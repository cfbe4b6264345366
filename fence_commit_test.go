package applypatch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/applypatch/applypatch/internal/linktree"
	"github.com/applypatch/applypatch/internal/pathwalk"
	"github.com/spf13/afero"
)

// swapToOutside replaces the workspace directory ws/dir with a link to ../outside, the
// classic time-of-check-to-time-of-use attack on a fence.
func swapToOutside(t *testing.T, base string) {
	t.Helper()
	dir := filepath.Join(base, "ws", "dir")
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", dir); err != nil {
		t.Fatal(err)
	}
}

// TestCommitRefusesLinkSwappedAfterResolve checks F1's "identical resolution when
// writing": a directory swapped for a link to the outside between Resolve and Commit is
// caught when Commit resolves the path again. Nothing is written outside, the error is a
// conflict and a Redirected fence error naming only the authored path, and the proposal
// stays usable once the swap is undone.
func TestCommitRefusesLinkSwappedAfterResolve(t *testing.T) {
	base := linktree.Build(t, "ws/dir/keep.txt", "outside/")
	ws := filepath.Join(base, "ws")
	var owner countOwner
	pr, err := Resolve(context.Background(), afero.NewOsFs(),
		mustParse(t, payload("*** Add File: first.txt", "+1", "*** Add File: dir/new.txt", "+planted")),
		&Options{Workspace: ws, Owner: &owner})
	if err != nil {
		t.Fatal(err)
	}
	swapToOutside(t, base)
	res, err := Commit(context.Background(), pr)
	if !errors.Is(err, &ConflictError{}) || !errors.Is(err, &FileError{Reason: FileRedirected}) {
		t.Fatalf("Commit err = %v, want a conflict and a Redirected fence error", err)
	}
	if owner.n > 0 {
		t.Errorf("the transaction began (%d owner checks) although a path was redirected before it", owner.n)
	}
	if _, serr := os.Lstat(filepath.Join(base, "outside", "new.txt")); !errors.Is(serr, fs.ErrNotExist) {
		t.Fatalf("a file was written outside the workspace (%v)", serr)
	}
	if text := res.Text(); strings.Contains(text, base) || !strings.Contains(text, "dir/new.txt: the path no longer leads") {
		t.Errorf("result text %q: want the authored path and no host path", text)
	}

	os.Remove(filepath.Join(ws, "dir"))
	os.Rename(filepath.Join(ws, "dir.moved"), filepath.Join(ws, "dir"))
	if _, err := Commit(context.Background(), pr); err != nil {
		t.Fatalf("Commit after the swap was undone: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "dir", "new.txt")); string(b) != "planted\n" {
		t.Errorf("dir/new.txt = %q", b)
	}
}

// countOwner is an OwnerPredicate that counts the transaction's steps.
type countOwner struct{ n int }

func (o *countOwner) Owns(string) bool { o.n++; return true }

// swapOnce is an OwnerPredicate that swaps ws/dir for a link on its at-th call. The
// transaction asks it once per step before the first write (X8), then again for each
// step right after the fence's last check of its path and just before the write, so a
// swap there lands in the window no user-space check can close.
type swapOnce struct {
	t    *testing.T
	base string
	at   int
	n    int
	once sync.Once
}

func (s *swapOnce) Owns(string) bool {
	if s.n++; s.n == s.at {
		s.once.Do(func() { swapToOutside(s.t, s.base) })
	}
	return true
}

// TestCommitRechecksEachStep checks that Commit resolves each path again just before its
// own write, not only once before the first (F1): a link swapped in while an earlier
// step runs stops the later step, the earlier one is rolled back, and nothing is written
// outside.
func TestCommitRechecksEachStep(t *testing.T) {
	base := linktree.Build(t, "ws/dir/keep.txt", "outside/")
	ws := filepath.Join(base, "ws")
	_, err := Apply(context.Background(), afero.NewOsFs(),
		payload("*** Add File: first.txt", "+1", "*** Add File: dir/second.txt", "+2"),
		&Options{Workspace: ws, Owner: &swapOnce{t: t, base: base, at: 3}}) // the first step's write
	if !errors.Is(err, &FileError{Reason: FileRedirected}) {
		t.Fatalf("err = %v, want a Redirected fence error", err)
	}
	for _, name := range []string{filepath.Join(base, "outside", "second.txt"), filepath.Join(ws, "first.txt")} {
		if _, serr := os.Lstat(name); !errors.Is(serr, fs.ErrNotExist) {
			t.Errorf("%s exists after the refused commit", strings.TrimPrefix(name, base))
		}
	}
}

// TestWorkspaceFsConfinesLastMomentSwap checks the TOCTOU design of Options.WorkspaceFs
// (F1): with an os.Root-backed WorkspaceFs, a link swapped in after the last check
// cannot carry the write out of the workspace; the commit fails, rolls back, writes
// nothing outside, and names no host path. The control run without WorkspaceFs proves
// the swap really lands after the last check: there, the write escapes.
func TestWorkspaceFsConfinesLastMomentSwap(t *testing.T) {
	for _, confined := range []bool{true, false} {
		t.Run(fmt.Sprintf("confined=%v", confined), func(t *testing.T) {
			base := linktree.Build(t, "ws/dir/keep.txt", "outside/")
			ws := filepath.Join(base, "ws")
			opts := &Options{Workspace: ws, Owner: &swapOnce{t: t, base: base, at: 2}} // the write's last check
			if confined {
				confine(t, opts)
			}
			_, err := Apply(context.Background(), afero.NewOsFs(), payload("*** Add File: dir/new.txt", "+planted"), opts)
			_, serr := os.Lstat(filepath.Join(base, "outside", "new.txt"))
			escaped := serr == nil
			if !confined {
				if !escaped {
					t.Fatalf("control: the swap did not redirect an unconfined write (err %v); the test proves nothing", err)
				}
				return
			}
			if escaped {
				t.Fatal("the write escaped the workspace through the swapped link")
			}
			// os.Root refuses the swapped path at the transaction's last look (a
			// conflict) or at the write itself (an escape), whichever comes first.
			if !errors.Is(err, &ConflictError{}) && !rootfs.IsEscape(err) {
				t.Errorf("err = %v, want a conflict or the os.Root escape error", err)
			}
			if strings.Contains(err.Error(), base) {
				t.Errorf("error %q names a host path", err)
			}
		})
	}
}

// TestWorkspaceFsCarriesWorkspaceIO checks the routing of Options.WorkspaceFs: baselines
// of workspace paths are read and written there by workspace-relative names, while an
// allowed outside path goes to the Fs given to Resolve.
func TestWorkspaceFsCarriesWorkspaceIO(t *testing.T) {
	host := afero.NewMemMapFs()
	host.MkdirAll("/ws", 0o755)
	host.MkdirAll("/elsewhere", 0o755)
	inside := afero.NewMemMapFs()
	afero.WriteFile(inside, "/a.txt", []byte("a\n"), 0o644)
	_, err := Apply(context.Background(), host, payload(
		"*** Update File: a.txt", "@@", "-a", "+A",
		"*** Add File: sub/b.txt", "+b",
		"*** Add File: /elsewhere/c.txt", "+c"),
		&Options{Workspace: "/ws", WorkspaceFs: inside, Allow: []string{"/elsewhere"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fsys afero.Fs
		name string
		want string
	}{{inside, "/a.txt", "A\n"}, {inside, "/sub/b.txt", "b\n"}, {host, "/elsewhere/c.txt", "c\n"}} {
		if b, err := afero.ReadFile(c.fsys, c.name); string(b) != c.want {
			t.Errorf("%s = %q, %v; want %q", c.name, b, err, c.want)
		}
	}
	for _, name := range []string{"/ws/a.txt", "/ws/sub", "/elsewhere/c.txt"} {
		if ok, _ := afero.Exists(host, name); ok == (name != "/elsewhere/c.txt") {
			t.Errorf("host filesystem: %s exists=%v", name, ok)
		}
	}
}

// errBackend is the cause a leaky filesystem wraps in its own error text.
var errBackend = errors.New("backend failure")

// leakyFs fails Stat and Open with an error that spells the host path in its text, as
// some filesystems do, rather than in a path field.
type leakyFs struct {
	afero.Fs
	fail string
}

func (l leakyFs) Stat(name string) (fs.FileInfo, error) {
	if strings.HasSuffix(name, l.fail) {
		return nil, fmt.Errorf("backend could not stat %s: %w", name, errBackend)
	}
	return l.Fs.Stat(name)
}

func (l leakyFs) Open(name string) (afero.File, error) {
	if strings.HasSuffix(name, l.fail) {
		return nil, fmt.Errorf("backend could not stat %s: %w", name, errBackend)
	}
	return l.Fs.Open(name)
}

// TestErrorTextsNameNoHostPaths checks F5 on every kind of failure the fence and the
// transaction report: refusals, link loops, aliases, failing Lstat, Readlink, reads and
// writes, an unresolvable workspace, and an error that spells a host path in its text.
// Each error and each result text names the path as authored and nothing of the host
// directory, while errors.Is still finds the cause.
func TestErrorTextsNameNoHostPaths(t *testing.T) {
	base := linktree.Build(t, "ws/a.txt", "ws/dir/b.txt", "outside/o.txt", "home/.ssh/id",
		"ws/out -> ../outside/o.txt", "ws/key -> ${BASE}/home/.ssh/id", "ws/ping -> pong", "ws/pong -> ping",
		"ws/alias -> a.txt", "ws/via -> dir")
	ws := filepath.Join(base, "ws")
	failOn := func(op faultfs.Op, part string) afero.Fs {
		return faultfs.New(afero.NewOsFs(), faultfs.CountReads(), faultfs.FailEvery(func(o faultfs.Op, name string) bool {
			return o == op && strings.Contains(name, part)
		}))
	}
	tests := []struct {
		name    string
		fsys    afero.Fs
		payload string
		want    string // in the error text
		is      error
	}{
		{"outside link", afero.NewOsFs(), payload("*** Update File: out", "@@", "-o", "+p"), "out: the path is outside", &FileError{Reason: FileUnauthorized}},
		{"forbidden link", afero.NewOsFs(), payload("*** Update File: key", "@@", "-k", "+K"), "key: the path is, or leads", &FileError{Reason: FileForbidden}},
		{"loop", afero.NewOsFs(), payload("*** Add File: ping/x", "+x"), "ping/x: the path cannot be resolved: too many", pathwalk.ErrLinkLoop},
		{"alias", afero.NewOsFs(), payload("*** Delete File: a.txt", "*** Update File: alias", "@@", "-a", "+A"), "alias: the path names the same file", &FileError{Reason: FileAliased}},
		{"lstat fails", failOn(faultfs.OpStat, "/ws/dir/"), payload("*** Add File: dir/new.txt", "+n"), "dir/new.txt: the path cannot be resolved: lstat dir/new.txt: faultfs", faultfs.ErrInjected},
		{"readlink fails", failOn(faultfs.OpReadlink, "/ws/via"), payload("*** Add File: via/new.txt", "+n"), "via/new.txt: the path cannot be resolved: readlink via/new.txt", faultfs.ErrInjected},
		{"read fails", failOn(faultfs.OpRead, "/ws/a.txt"), payload("*** Delete File: a.txt"), "a.txt: the file cannot be read", faultfs.ErrInjected},
		{"write fails", failOn(faultfs.OpRename, "/ws/dir/.b.txt.applypatch"), payload("*** Update File: via/b.txt", "@@", "-ws/dir/b.txt", "+B"), "via/b.txt", faultfs.ErrInjected},
		{"workspace unresolvable", failOn(faultfs.OpStat, filepath.Base(base)), payload("*** Add File: n.txt", "+n"), "the workspace cannot be resolved", faultfs.ErrInjected},
		{"leaky text", leakyFs{afero.NewOsFs(), "/ws/dir/b.txt"}, payload("*** Delete File: dir/b.txt"), "backend could not stat dir/b.txt", errBackend},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Apply(context.Background(), tt.fsys, tt.payload, &Options{Workspace: ws})
			if err == nil {
				t.Fatal("Apply succeeded")
			}
			t.Log(err)
			if !errors.Is(err, tt.is) {
				t.Errorf("err = %v; errors.Is(%v) = false", err, tt.is)
			}
			for _, text := range []string{err.Error(), res.Text(), res.Summary()} {
				if strings.Contains(text, base) {
					t.Errorf("text names a host path: %q", text)
				}
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "dir", "b.txt")); string(b) != "ws/dir/b.txt" {
		t.Errorf("dir/b.txt = %q after failed patches", b)
	}
}

// confine has opts reach its workspace through an os.Root over it (fs/rootfs), as the
// command does, until the test ends.
func confine(t *testing.T, opts *Options) {
	t.Helper()
	root, err := rootfs.Open(opts.Workspace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	opts.WorkspaceFs = root
}
