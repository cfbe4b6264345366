package applypatch

import (
	"context"
	"errors"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// workspace is the root of the in-memory workspaces of review tests.
const workspace = "/ws"

// fixture is a workspace in memory with a review of one payload.
type fixture struct {
	t    *testing.T
	fsys afero.Fs
	pr   *Proposal
	s    *Session
}

// newFixture writes files (path relative to the workspace → content), then parses and
// resolves the payload in ask mode and opens a session on it.
func newFixture(t *testing.T, files map[string]string, payload string) *fixture {
	t.Helper()
	fsys := afero.NewMemMapFs()
	return newFixtureOn(t, fsys, files, payload, &Options{})
}

func newFixtureOn(t *testing.T, fsys afero.Fs, files map[string]string, payload string, opts *Options) *fixture {
	t.Helper()
	for name, content := range files {
		if err := afero.WriteFile(fsys, path.Join(workspace, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Parse(payload)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	opts.Workspace, opts.Mode = workspace, ModeAsk
	pr, err := Resolve(context.Background(), fsys, p, opts)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	s := NewSession(pr)
	// The tests start from every file folded, as a reader who folded them does;
	// TestReviewStart and TestReviewFirstLook check how a review opens.
	if err := s.Fold(Target{}, true); err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, fsys: fsys, pr: pr, s: s}
}

// patch wraps sections in the payload envelope.
func patch(sections ...string) string {
	return "*** Begin Patch\n" + strings.Join(sections, "\n") + "\n*** End Patch\n"
}

// read returns a workspace file's content, or "<absent>".
func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := afero.ReadFile(f.fsys, path.Join(workspace, name))
	if err != nil {
		return "<absent>"
	}
	return string(b)
}

// write changes a workspace file behind the review's back.
func (f *fixture) write(name, content string) {
	f.t.Helper()
	if err := afero.WriteFile(f.fsys, path.Join(workspace, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// must fails the test on a review error.
func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// find returns the target of a path and hunk.
func (f *fixture) find(p string, hunk int) Target {
	f.t.Helper()
	t, err := f.s.Find(p, hunk)
	f.must(err)
	return t
}

// submit submits and fails the test on an error.
func (f *fixture) submit() *Result {
	f.t.Helper()
	res, err := f.s.Submit(context.Background())
	if err != nil {
		f.t.Fatalf("Submit: %v", err)
	}
	return res
}

// rowStrings renders the visible rows.
func (f *fixture) rowStrings() []string { return rowStrings(f.s.View().Rows) }

// rowStrings renders rows.
func rowStrings(rows []Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.String())
	}
	return out
}

// wantReason checks err is a *ReviewError with that reason.
func wantReason(t *testing.T, err error, r ReviewReason) {
	t.Helper()
	if !errors.Is(err, &ReviewError{Reason: r}) {
		t.Fatalf("err = %v, want a ReviewError with reason %d", err, r)
	}
}

// hasLine reports whether text has a line equal to want.
func hasLine(text, want string) bool {
	for _, l := range strings.Split(text, "\n") {
		if l == want {
			return true
		}
	}
	return false
}

// matchesErr reports whether err's tree holds an error of target's type (errors.As) and,
// for a type with reasons, one that errors.Is matches with target's reason.
func matchesErr(err, target error) bool {
	if !errors.As(err, reflect.New(reflect.TypeOf(target)).Interface()) {
		return false
	}
	if _, ok := target.(interface{ Is(error) bool }); ok {
		return errors.Is(err, target)
	}
	return true
}

// autoApprove is a [Reviewer] that submits the proposal as resolved: every change
// selected, nothing revised. A conflict at submission settles the review with the conflict
// as an error result.
var autoApprove Reviewer = ReviewerFunc(func(ctx context.Context, s *Session) error {
	_, err := s.Submit(ctx)
	return err
})

// toggle flips a target's selection as a front end's space bar does, from what the view
// shows: a visible row with something selected is deselected, any other row selected;
// Target{} by the view's counts likewise. The target's row must be visible.
func (f *fixture) toggle(t Target, confirm func(prompt string) bool) error {
	f.t.Helper()
	v := f.s.View()
	selected := v.Selected
	if t != (Target{}) {
		i := slices.IndexFunc(v.Rows, func(r Row) bool { return r.Target == t })
		if i < 0 {
			f.t.Fatalf("no visible row for %v", t)
		}
		selected = v.Rows[i].Selected
	}
	return f.s.Select(t, selected == 0, confirm)
}
