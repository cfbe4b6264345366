package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/linktree"
	"github.com/applypatch/applypatch/internal/pathwalk"
	"github.com/spf13/afero"
)

// payload builds a patch text from section lines.
func payload(lines ...string) string {
	return "*** Begin Patch\n" + strings.Join(lines, "\n") + "\n*** End Patch\n"
}

// mustParse parses a payload or fails the test.
func mustParse(t *testing.T, text string) *Patch {
	t.Helper()
	p, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClassOfPaths checks the classes of F2 on real links: '..' and absolute escapes,
// a sibling that shares the workspace's name as a prefix (afero #513), links that leave
// the root (to a file, a directory, a dangling target, in a parent), protected .git
// anywhere and through links, and credential paths named or reached through links.
func TestClassOfPaths(t *testing.T) {
	base := linktree.Build(t,
		"ws/a.txt", "ws/.git/HEAD", "ws/gitstore/HEAD", "ws-sibling/x", "outside/o.txt", "home/.ssh/authorized_keys",
		"ws/outfile -> ../outside/o.txt",
		"ws/outdir -> ../outside",
		"ws/outdangling -> ../outside/none.txt",
		"ws/hooks -> .git/hooks",
		"ws/proj/",
		"ws/proj/.git -> ../gitstore",
		"ws/keys -> ../home/.ssh/authorized_keys",
		"ws/home -> ../home",
		"ws/inside -> a.txt",
		"wslink -> ws",
	)
	tests := []struct {
		path  string
		class Class
		link  bool
	}{
		{"a.txt", ClassWorkspace, false},
		{"new/dir/b.txt", ClassWorkspace, false},
		{"inside", ClassWorkspace, true},
		{"../outside/o.txt", ClassOutside, false},
		{"../ws-sibling/x", ClassOutside, false},
		{"sub/../../outside/n.txt", ClassOutside, false},
		{"${BASE}/outside/o.txt", ClassOutside, false},
		{"${BASE}/ws/a.txt", ClassWorkspace, false},
		{"${BASE}/wslink/a.txt", ClassWorkspace, true},
		{"outfile", ClassOutside, true},
		{"outdir/new.txt", ClassOutside, true},
		{"outdangling", ClassOutside, true},
		{".git/hooks/pre-commit", ClassProtected, false},
		{"sub/.git/config", ClassProtected, false},
		{".GIT/hooks/x", ClassProtected, false},
		{".git./config", ClassProtected, false},
		{"hooks/pre-commit", ClassProtected, true},
		{"proj/.git/hooks/post-merge", ClassProtected, true},
		{".github/workflows/ci.yml", ClassWorkspace, false},
		{".ssh/id_ed25519", ClassForbidden, false},
		{".SSH/config", ClassForbidden, false},
		{"cfg/.aws/credentials", ClassForbidden, false},
		{".aws/config", ClassWorkspace, false},
		{".netrc", ClassForbidden, false},
		{".git-credentials", ClassForbidden, false},
		{".docker/config.json", ClassForbidden, false},
		{".gnupg/pubring.kbx", ClassForbidden, false},
		{"keys", ClassForbidden, true},
		{"home/.ssh/new_key", ClassForbidden, true},
		{"../home/.ssh/config", ClassForbidden, false},
		{"certs/server.pem", ClassForbidden, false}, // host-listed
	}
	f, err := newFence(afero.NewOsFs(), &Options{Workspace: filepath.Join(base, "wslink"), Forbidden: []string{"*.pem"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		path := strings.ReplaceAll(tt.path, "${BASE}", base)
		cp, _, err := classifyPath(f, path, OpAdd)
		if err != nil {
			t.Errorf("classify(%q): %v", tt.path, err)
			continue
		}
		if cp.Class != tt.class || cp.Link != tt.link {
			t.Errorf("classify(%q) = %v link=%v, want %v link=%v", tt.path, cp.Class, cp.Link, tt.class, tt.link)
		}
	}
}

// TestProtectedOption checks that Options.Protected replaces the default list, and that
// an empty list protects nothing (F2).
func TestProtectedOption(t *testing.T) {
	for _, tt := range []struct {
		protected []string
		path      string
		want      Class
	}{
		{nil, ".git/config", ClassProtected},
		{[]string{}, ".git/config", ClassWorkspace},
		{[]string{".github/workflows"}, ".github/workflows/ci.yml", ClassProtected},
		{[]string{".github/workflows"}, ".git/config", ClassWorkspace},
		{[]string{"Makefile"}, "sub/makefile", ClassProtected},
	} {
		f, err := newFence(afero.NewMemMapFs(), &Options{Workspace: "/ws", Protected: tt.protected})
		if err != nil {
			t.Fatal(err)
		}
		if cp, _, _ := classifyPath(f, tt.path, OpAdd); cp.Class != tt.want {
			t.Errorf("Protected=%q: %s is %v, want %v", tt.protected, tt.path, cp.Class, tt.want)
		}
	}
}

// TestBadPatterns checks that malformed host patterns are an error, not silently inert.
func TestBadPatterns(t *testing.T) {
	for _, o := range []Options{{Forbidden: []string{"["}}, {Protected: []string{""}}, {Allow: []string{"a/[x"}}} {
		if _, err := Classify(afero.NewMemMapFs(), &Patch{}, &o); err == nil {
			t.Errorf("Classify with %+v: no error", o)
		}
	}
}

// noContentFs fails every open: Classify must work without reading any file (F3).
type noContentFs struct{ afero.Fs }

func (noContentFs) Open(name string) (afero.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}

func (noContentFs) OpenFile(name string, _ int, _ fs.FileMode) (afero.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}

// TestClassifyReadsNoContents checks F3: the classification of a whole payload is
// available without reading contents, in payload order with Move destinations after
// their sources, while Resolve, which reads baselines, fails on the same filesystem.
func TestClassifyReadsNoContents(t *testing.T) {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/ws/a.txt", []byte("a\n"), 0o644)
	afero.WriteFile(mem, "/ws/b.txt", []byte("b\n"), 0o644)
	fsys := noContentFs{mem}
	p := mustParse(t, payload("*** Update File: a.txt", "@@", "-a", "+A",
		"*** Update File: b.txt", "*** Move to: ../out/b.txt", "*** Add File: .git/x", "+x"))
	paths, err := Classify(fsys, p, &Options{Workspace: "/ws", Allow: []string{"/out"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cp := range paths {
		got = append(got, fmt.Sprintf("%s %s %s %v %s", cp.Path, cp.Kind, cp.Class, cp.Allowed, cp.Name))
	}
	want := []string{
		"a.txt update workspace false /ws/a.txt",
		"b.txt update workspace false /ws/b.txt",
		"../out/b.txt add outside true /out/b.txt",
		".git/x add protected false /ws/.git/x",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Classify:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Resolve(context.Background(), fsys, p, &Options{Workspace: "/ws", Allow: []string{"/out", ".git"}}); err == nil {
		t.Error("Resolve read no baselines: the test filesystem does not refuse reads")
	}
}

// TestClassifyUnresolvable checks that Classify reports a link loop as a typed error.
func TestClassifyUnresolvable(t *testing.T) {
	base := linktree.Build(t, "ws/ping -> pong", "ws/pong -> ping")
	_, err := Classify(afero.NewOsFs(), mustParse(t, payload("*** Add File: ping", "+x")), &Options{Workspace: filepath.Join(base, "ws")})
	if !errors.Is(err, &FileError{Reason: FileUnreadable}) || !errors.Is(err, pathwalk.ErrLinkLoop) {
		t.Fatalf("err = %v, want an Unresolvable FileError wrapping ErrLinkLoop", err)
	}
}

// authorityFs is a workspace with a file, a .git directory and a file outside it.
func authorityFs() afero.Fs {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("a\n"), 0o644)
	afero.WriteFile(fsys, "/ws/.git/config", []byte("[core]\n"), 0o644)
	afero.WriteFile(fsys, "/elsewhere/o.txt", []byte("o\n"), 0o644)
	return fsys
}

// recorder is an Authorizer that records what it was asked and answers with err.
type recorder struct {
	err   error
	calls [][]string
	modes []Mode
}

func (r *recorder) Authorize(_ context.Context, mode Mode, paths []ClassifiedPath) error {
	var names []string
	for _, p := range paths {
		names = append(names, string(p.Class)+":"+p.Path)
	}
	r.calls = append(r.calls, names)
	r.modes = append(r.modes, mode)
	return r.err
}

// TestAuthorityInEveryMode checks the F4 table: in Ask, Edits and FullAuto alike an
// outside or protected path is allowed by an allow rule without asking, else by the
// Authorizer, else refused; a forbidden path is refused even with every rule and a
// yes-saying Authorizer, which is then never asked.
func TestAuthorityInEveryMode(t *testing.T) {
	risky := payload("*** Update File: a.txt", "@@", "-a", "+A",
		"*** Add File: ../elsewhere/new.txt", "+n",
		"*** Update File: .git/config", "@@", " [core]", "+\tbare = false")
	forbidden := payload("*** Add File: a/.ssh/authorized_keys", "+k")
	no := errors.New("the user said no")
	tests := []struct {
		name     string
		payload  string
		allow    []string
		auth     *recorder
		wantErr  error    // nil: allowed
		wantAsk  []string // paths the Authorizer is asked about; nil: not asked
		wantText string
	}{
		{name: "no authority", payload: risky, wantErr: &FileError{Reason: FileUnauthorized},
			wantText: "../elsewhere/new.txt: the path is outside the workspace"},
		{name: "authorizer yes", payload: risky, auth: &recorder{},
			wantAsk: []string{"outside:../elsewhere/new.txt", "protected:.git/config"}},
		{name: "authorizer no", payload: risky, auth: &recorder{err: no}, wantErr: no,
			wantAsk:  []string{"outside:../elsewhere/new.txt", "protected:.git/config"},
			wantText: ".git/config: the path is protected (such as .git/), and the host did not allow it (the user said no)"},
		{name: "allow rules", payload: risky, allow: []string{"/elsewhere", ".git"}, auth: &recorder{err: no}},
		{name: "allow rule for one", payload: risky, allow: []string{"/elsewhere"}, auth: &recorder{},
			wantAsk: []string{"protected:.git/config"}},
		{name: "forbidden", payload: forbidden, allow: []string{"/", "a"}, auth: &recorder{},
			wantErr: &FileError{Reason: FileForbidden}, wantText: "credential location"},
	}
	for _, mode := range []Mode{ModeAsk, ModeEdits, ModeFullAuto} {
		for _, tt := range tests {
			t.Run(string(mode)+"/"+tt.name, func(t *testing.T) {
				opts := &Options{Workspace: "/ws", Mode: mode, Allow: tt.allow}
				var auth recorder
				if tt.auth != nil {
					auth = *tt.auth
					opts.Authorizer = &auth
				}
				fsys := authorityFs()
				pr, err := Resolve(context.Background(), fsys, mustParse(t, tt.payload), opts)
				if tt.wantErr == nil && err != nil {
					t.Fatalf("Resolve: %v", err)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Fatalf("Resolve err = %v, want %v", err, tt.wantErr)
				}
				if err != nil && !strings.Contains(err.Error(), tt.wantText) {
					t.Errorf("error text %q lacks %q", err, tt.wantText)
				}
				if fmt.Sprint(auth.calls) != fmt.Sprint(wrapNonNil(tt.wantAsk)) {
					t.Errorf("Authorizer asked %v, want %v", auth.calls, wrapNonNil(tt.wantAsk))
				}
				for _, m := range auth.modes {
					if m != mode {
						t.Errorf("Authorizer told mode %v, want %v", m, mode)
					}
				}
				if err != nil {
					return
				}
				if _, err := Commit(context.Background(), pr); err != nil {
					t.Fatalf("Commit: %v", err)
				}
				if b, _ := afero.ReadFile(fsys, "/elsewhere/new.txt"); string(b) != "n\n" {
					t.Errorf("outside file = %q after an allowed commit", b)
				}
			})
		}
	}
}

func wrapNonNil(s []string) [][]string {
	if s == nil {
		return nil
	}
	return [][]string{s}
}

// TestNeedsReview checks F4's review rule: only Ask mode reviews, and only when a path
// lies in the workspace and the allow rules do not cover every path.
func TestNeedsReview(t *testing.T) {
	workspace := payload("*** Update File: a.txt", "@@", "-a", "+A")
	outside := payload("*** Add File: ../elsewhere/new.txt", "+n")
	both := payload("*** Update File: a.txt", "*** Move to: ../elsewhere/a.txt")
	yes := authorizerFunc(func(context.Context, Mode, []ClassifiedPath) error { return nil })
	for _, tt := range []struct {
		mode    Mode
		payload string
		allow   []string
		want    bool
	}{
		{ModeAsk, workspace, nil, true},
		{ModeAsk, workspace, []string{"*.txt"}, false},
		{ModeAsk, workspace, []string{"docs"}, true},
		{ModeAsk, outside, nil, false},
		{ModeAsk, both, nil, true},
		{ModeAsk, both, []string{"a.txt", "/elsewhere"}, false},
		{ModeEdits, workspace, nil, false},
		{ModeFullAuto, workspace, nil, false},
	} {
		pr, err := Resolve(context.Background(), authorityFs(), mustParse(t, tt.payload),
			&Options{Workspace: "/ws", Mode: tt.mode, Allow: tt.allow, Authorizer: yes})
		if err != nil {
			t.Fatal(err)
		}
		if got := pr.needsReview(); got != tt.want {
			t.Errorf("mode %v, allow %q, payload %q: needsReview = %v, want %v", tt.mode, tt.allow, tt.payload, got, tt.want)
		}
	}
}

// TestAliasedPaths checks that two operations reaching one file through a link are
// refused before anything is read: their baselines would overlap. (A Delete of the link
// itself removes the link, a name of its own: F1.)
func TestAliasedPaths(t *testing.T) {
	base := linktree.Build(t, "ws/a.txt", "ws/alias -> a.txt")
	opts := &Options{Workspace: filepath.Join(base, "ws")}
	for _, text := range []string{
		payload("*** Delete File: a.txt", "*** Update File: alias", "@@", "-ws/a.txt", "+x"),
		payload("*** Update File: a.txt", "*** Move to: alias"),
	} {
		_, err := Resolve(context.Background(), afero.NewOsFs(), mustParse(t, text), opts)
		if !errors.Is(err, &FileError{Reason: FileAliased}) || !strings.Contains(err.Error(), "alias: the path names the same file as a.txt (through a symbolic link") {
			t.Errorf("err = %v, want an Aliased FileError", err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(base, "ws", "a.txt")); string(b) != "ws/a.txt" {
		t.Errorf("a.txt = %q, changed", b)
	}
}

// TestClassJSON checks that classes travel as their names in render data (F3), and the
// zero class (a change without a Move) as the empty string.
func TestClassJSON(t *testing.T) {
	for _, c := range []Class{"", ClassWorkspace, ClassOutside, ClassProtected, ClassForbidden} {
		b, err := json.Marshal(ClassifiedPath{Class: c})
		var back ClassifiedPath
		if err != nil || json.Unmarshal(b, &back) != nil || back.Class != c || !strings.Contains(string(b), `"class":"`+string(c)+`"`) {
			t.Errorf("%q: JSON %s, %v", c, b, err)
		}
	}
}

// TestAllowNeverCoversForbidden checks that no allow rule marks a forbidden path allowed
// (F2, F4), even one that covers everything.
func TestAllowNeverCoversForbidden(t *testing.T) {
	p := mustParse(t, payload("*** Add File: .ssh/config", "+x", "*** Add File: ../elsewhere/.netrc", "+x"))
	paths, err := Classify(afero.NewMemMapFs(), p, &Options{Workspace: "/ws", Allow: []string{"/", ".ssh", "*"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, cp := range paths {
		if cp.Class != ClassForbidden || cp.Allowed {
			t.Errorf("%s: class %v allowed=%v, want forbidden and not allowed", cp.Path, cp.Class, cp.Allowed)
		}
	}
}

// TestRelativeWorkspace checks containment when the workspace is given relative to the
// current directory: ".." above it stays outside, however many times it climbs (F1, F2).
func TestRelativeWorkspace(t *testing.T) {
	base := linktree.Build(t, "ws/a.txt", "outside/o.txt", "ws/out -> ../outside")
	for _, tt := range []struct{ chdir, workspace string }{{"ws", "."}, {"", "ws"}, {"ws", ""}} {
		t.Chdir(filepath.Join(base, tt.chdir))
		ws := tt.workspace
		if ws == "" {
			ws = "./"
		}
		f, err := newFence(afero.NewOsFs(), &Options{Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]Class{
			"a.txt": ClassWorkspace, "../outside/o.txt": ClassOutside, "../../../x": ClassOutside,
			"sub/../../x": ClassOutside, "out/o.txt": ClassOutside, "./sub/./b.txt": ClassWorkspace,
		} {
			if cp, _, err := classifyPath(f, path, OpAdd); err != nil || cp.Class != want {
				t.Errorf("workspace %q: %s is %v (%v), want %v", ws, path, cp.Class, err, want)
			}
		}
	}
}
