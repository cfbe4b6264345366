package applypatch

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// staged builds a review with selection, feedback, a revision and fold state.
func staged(t *testing.T) *fixture {
	f := newFixture(t, map[string]string{"one.txt": twelve.file, "d.txt": "keep\ndrop\n", "e.txt": ""}, patch(
		"*** Update File: one.txt",
		"@@", " one", "-two", "+TWO", " three",
		"@@", " ten", "-eleven", "+ELEVEN", " twelve",
		"*** Delete File: d.txt",
		"*** Delete File: e.txt",
		"*** Add File: n.txt", "+new"))
	f.must(f.s.SetFeedback(Target{1, 2}, "not eleven"))
	f.must(f.revise(Target{File: 1}, strings.Replace(twelve.file, "two", "zwei", 1), nil))
	f.must(f.revise(Target{File: 2}, "keep\n", nil))
	f.must(f.s.SetFeedback(Target{}, "see notes"))
	f.must(f.s.Select(Target{File: 4}, false, nil))
	f.must(f.s.Fold(Target{File: 1}, false))
	f.must(f.s.Fold(Target{1, 2}, true))
	return f
}

// R12: a review round-trips through JSON: rows, render, card and the committed result
// are the same after restoring, with baselines by content or by hash.
func TestSaveRestoreRoundTrip(t *testing.T) {
	for _, byHash := range []bool{false, true} {
		f := staged(t)
		data, err := f.s.Save(SaveOptions{BaselinesByHash: byHash})
		f.must(err)
		if strings.Contains(string(data), `"bytes"`) != !byHash {
			t.Errorf("byHash=%t: baseline bytes saved = %t", byHash, !byHash)
		}
		s, err := RestoreSession(context.Background(), f.fsys, data, &Options{Workspace: workspace, Mode: ModeAsk})
		if err != nil {
			t.Fatalf("byHash=%t: restore: %v", byHash, err)
		}
		if diff := cmp.Diff(f.s.Render(), s.Render()); diff != "" {
			t.Errorf("byHash=%t: render (-saved +restored):\n%s", byHash, diff)
		}
		if f.s.Card(CardOptions{}).Hash != s.Card(CardOptions{}).Hash {
			t.Errorf("byHash=%t: the card differs", byHash)
		}
		again, err := s.Save(SaveOptions{BaselinesByHash: byHash})
		if err != nil || string(again) != string(data) {
			t.Errorf("byHash=%t: saving the restored review gives other JSON", byHash)
		}
		res, err := s.Submit(context.Background())
		if err != nil {
			t.Fatalf("byHash=%t: submit: %v", byHash, err)
		}
		if !hasLine(res.Text(), "User edited during review (authoritative): one.txt (whole file revised)") ||
			!hasLine(res.Text(), "Feedback: one.txt hunk 2: not eleven") || f.read("d.txt") != "keep\n" || f.read("n.txt") != "<absent>" {
			t.Errorf("byHash=%t: result:\n%s\nd.txt=%q", byHash, res.Text(), f.read("d.txt"))
		}
		if f.read("one.txt") != strings.Replace(twelve.file, "two", "zwei", 1) {
			t.Errorf("byHash=%t: one.txt = %q", byHash, f.read("one.txt"))
		}
	}
}

// R12, X2, X7: Commit of a restored review revalidates the baselines: a file that moved
// on since is a conflict, nothing is written and the review stays usable.
func TestCommitRestoredConflict(t *testing.T) {
	f := staged(t)
	data, err := f.s.Save(SaveOptions{})
	f.must(err)
	f.write("d.txt", "keep\ndrop\nmore\n")
	s, err := RestoreSession(context.Background(), f.fsys, data, &Options{Workspace: workspace})
	f.must(err)
	if _, err := s.Submit(context.Background()); !errors.Is(err, &ConflictError{}) || s.View().State != StateOpen {
		t.Fatalf("submit: %v, %s", err, s.View().State)
	}
	if f.read("one.txt") != twelve.file {
		t.Error("a conflicted commit wrote")
	}
	t2, err := s.Find("d.txt", 0)
	f.must(err)
	f.must(s.Select(t2, false, nil))
	if _, err := s.Submit(context.Background()); err != nil {
		t.Errorf("after deselecting the stale file: %v", err)
	}
}

// R12: with baselines saved by hash, a file that moved on cannot be restored: its
// baseline is gone, and the restore says so with a conflict.
func TestRestoreByHashStale(t *testing.T) {
	f := staged(t)
	data, err := f.s.Save(SaveOptions{BaselinesByHash: true})
	f.must(err)
	f.write("one.txt", "rewritten\n")
	_, err = RestoreSession(context.Background(), f.fsys, data, &Options{Workspace: workspace})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Paths) != 1 || ce.Paths[0] != "one.txt" {
		t.Errorf("restore: %v", err)
	}
}

// R12: restoring refuses state that is malformed, from another version, tampered with,
// or whose path changed class.
func TestRestoreRefusesBadState(t *testing.T) {
	f := staged(t)
	data, err := f.s.Save(SaveOptions{})
	f.must(err)
	edit := func(change func(m map[string]any)) []byte {
		var m map[string]any
		f.must(json.Unmarshal(data, &m))
		change(m)
		b, err := json.Marshal(m)
		f.must(err)
		return b
	}
	proposal := func(m map[string]any) map[string]any { return m["proposal"].(map[string]any) }
	change := func(m map[string]any, i int) map[string]any {
		return proposal(m)["changes"].([]any)[i].(map[string]any)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"not JSON", []byte("{"), &ReviewError{Reason: ReviewUnrestorable}},
		{"version", edit(func(m map[string]any) { m["version"] = 7.0 }), &ReviewError{Reason: ReviewUnrestorable}},
		{"placement", edit(func(m map[string]any) {
			h := change(m, 0)["op"].(map[string]any)["hunks"].([]any)[0].(map[string]any)
			h["place"].(map[string]any)["start"] = 9.0
		}), &ReviewError{Reason: ReviewUnrestorable}},
		{"hash", edit(func(m map[string]any) { change(m, 1)["base"].(map[string]any)["hash"] = strings.Repeat("0", 64) }), &ReviewError{Reason: ReviewUnrestorable}},
		{"marker", edit(func(m map[string]any) {
			h := change(m, 0)["op"].(map[string]any)["hunks"].([]any)[0].(map[string]any)
			h["lines"] = []any{"?x"}
		}), &ReviewError{Reason: ReviewUnrestorable}},
		{"class", edit(func(m map[string]any) { change(m, 3)["class"] = "outside" }), &FileError{}},
		{"forbidden", edit(func(m map[string]any) {
			change(m, 3)["op"].(map[string]any)["path"] = ".ssh/id_rsa"
		}), &FileError{}},
		{"control character", edit(func(m map[string]any) { // P14
			change(m, 3)["op"].(map[string]any)["path"] = "zz\n.txt"
		}), &ReviewError{Reason: ReviewUnrestorable}},
	} {
		_, err := RestoreSession(context.Background(), f.fsys, tc.data, &Options{Workspace: workspace})
		if !matchesErr(err, tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// R12: a restored review commits what was staged, and a review that is not open cannot
// be saved.
func TestSaveCommitLater(t *testing.T) {
	f := staged(t)
	data, err := f.s.Save(SaveOptions{})
	f.must(err)
	s, err := RestoreSession(context.Background(), f.fsys, data, &Options{Workspace: workspace})
	f.must(err)
	res, err := s.Submit(context.Background())
	if err != nil || res.Revised != 2 {
		t.Errorf("commit of a restored proposal: %v\n%s", err, res.Text())
	}
	f.must(f.s.Reject())
	_, err = f.s.Save(SaveOptions{})
	wantReason(t, err, reviewSettled)
}

// TestRestoreKeepsAddEncoding: an Add to a path with a declared encoding is written in it
// after a save and restore too (R12, T3).
func TestRestoreKeepsAddEncoding(t *testing.T) {
	fsys := afero.NewMemMapFs()
	opts := &Options{Encoding: func(string) (encoding.Encoding, string) { return charmap.ISO8859_1, "ISO-8859-1" }}
	p, err := Parse("*** Begin Patch\n*** Add File: n.txt\n+café\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Resolve(context.Background(), fsys, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := NewSession(pr).Save(SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	restored, err := RestoreSession(context.Background(), fsys, data, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := restored.Submit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := afero.ReadFile(fsys, "/n.txt"); string(got) != "caf\xe9\n" {
		t.Errorf("n.txt = %q, want Latin-1 %q", got, "caf\xe9\n")
	}
}
