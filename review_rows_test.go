package applypatch

import (
	"context"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/show"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/afero"
)

// R3: gutter numbers against the baseline, as in the worked example of mevedel §2.7:
// baseline a,old1,c,d,old2 with hunks "@@ a" (−old1 +new1 +extra) and "@@ d" (−old2
// +new2) start at 2/2 and 5/6; repeated lines resolve in hunk order (x,a,x,b: 2 and 3).
// Old and New are the two-column gutter: a context line has both.
func TestGutterNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, file, payload string
		want                [][]DiffLine
	}{{
		name: "worked example",
		file: "a\nold1\nc\nd\nold2\n",
		payload: patch("*** Update File: f.txt", "@@ a", "-old1", "+new1", "+extra",
			"@@ d", "-old2", "+new2"),
		want: [][]DiffLine{
			{gl(LineRemove, 2, 2, 0, "old1"), gl(LineAdd, 2, 0, 2, "new1"), gl(LineAdd, 3, 0, 3, "extra")},
			{gl(LineRemove, 5, 5, 0, "old2"), gl(LineAdd, 6, 0, 6, "new2")},
		},
	}, {
		name:    "repeated lines in hunk order",
		file:    "x\na\nx\nb\n",
		payload: patch("*** Update File: f.txt", "@@", "-a", "+A", "@@", "-x", "+X"),
		want: [][]DiffLine{
			{gl(LineRemove, 2, 2, 0, "a"), gl(LineAdd, 2, 0, 2, "A")},
			{gl(LineRemove, 3, 3, 0, "x"), gl(LineAdd, 3, 0, 3, "X")},
		},
	}, {
		name:    "context counts on both sides",
		file:    "1\n2\n3\n4\n5\n6\n",
		payload: patch("*** Update File: f.txt", "@@", " 1", "+1.5", " 2", "@@", " 4", "-5", " 6"),
		want: [][]DiffLine{
			{gl(LineContext, 1, 1, 1, "1"), gl(LineAdd, 2, 0, 2, "1.5"), gl(LineContext, 2, 2, 3, "2")},
			{gl(LineContext, 4, 4, 5, "4"), gl(LineRemove, 5, 5, 0, "5"), gl(LineContext, 6, 6, 6, "6")},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"f.txt": tc.file}, tc.payload)
			f.must(f.s.Fold(Target{}, false))
			var got [][]DiffLine
			for _, r := range f.s.View().Rows[1:] {
				got = append(got, r.Lines)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("gutter (-want +got):\n%s", diff)
			}
		})
	}
}

// gl is a diff line with its gutter: Num, and the Old and New columns.
func gl(kind LineKind, num, old, new int, text string) DiffLine {
	return DiffLine{Kind: kind, Num: num, Old: old, New: new, Text: text}
}

// R3: new-file numbers count every earlier hunk, selected or not, so they stay put while
// a person toggles hunks.
func TestGutterNumbersIgnoreSelection(t *testing.T) {
	f := newFixture(t, map[string]string{"f.txt": "a\nb\nc\nd\ne\nf\n"}, patch(
		"*** Update File: f.txt", "@@", " a", "+a2", "@@", " e", "-f", "+F"))
	f.must(f.s.Fold(Target{}, false))
	before := f.s.View().Rows[2].Lines
	f.must(f.s.Select(Target{1, 1}, false, nil))
	if diff := cmp.Diff(before, f.s.View().Rows[2].Lines); diff != "" || before[2].Num != 7 {
		t.Errorf("numbers moved with selection (-before +after):\n%s (F at %d)", diff, before[2].Num)
	}
}

// R2: the hunk label is the anchor, else the section heading at or above the hunk, else
// ~N; at most 48 columns, the last being "…".
func TestSectionLabels(t *testing.T) {
	long := strings.Repeat("x", 60)
	wide := strings.Repeat("界", 30)
	for _, tc := range []struct {
		name, file string
		hunk       []string
		want       string
	}{
		{"anchor", "func f() {\n\tbody\n}\n", []string{"@@ func f", "-\tbody", "+\tBODY"}, "func f"},
		{"chain of anchors (P8)", "type T struct {\n\tf func() {\n\t\tbody\n\t}\n}\n", []string{"@@ type T", "@@ \tf func", "-\t\tbody", "+\t\tBODY"}, "type T › f func"},
		{"section above", "func f() {\n\tone\n\ttwo\n}\n", []string{"@@", "-\ttwo", "+\tTWO"}, "func f() {"},
		{"hunk's own first line", "top\nfunc g() {\n\tx\n}\n", []string{"@@", "-func g() {", "+func h() {"}, "func g() {"},
		{"skips indented and closers", "type T struct\n}\n)\n]\n  indented\n\n\tx\n", []string{"@@", "-\tx", "+\ty"}, "type T struct"},
		{"no section", "\tx\n\ty\n", []string{"@@", "-\ty", "+\tz"}, "~2"},
		{"line hint is not an anchor", "head\n\tx\n\tx\n", []string{"@@ 3", "-\tx", "+\ty"}, "head"},
		{"long section", long + "\n\tx\n", []string{"@@", "-\tx", "+\ty"}, strings.Repeat("x", 47) + "…"},
		{"wide characters", wide + "\n\tx\n", []string{"@@", "-\tx", "+\ty"}, strings.Repeat("界", 23) + "…"},
		{"exactly 48", strings.Repeat("y", 48) + "\n\tx\n", []string{"@@", "-\tx", "+\ty"}, strings.Repeat("y", 48)},
		{"trailing space trimmed", "func k()   \n\tx\n", []string{"@@", "-\tx", "+\ty"}, "func k()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"f.go": tc.file}, patch(append([]string{"*** Update File: f.go"}, tc.hunk...)...))
			f.must(f.s.Fold(Target{}, false))
			got := f.s.View().Rows[1].Label
			if got != tc.want {
				t.Errorf("label = %q, want %q", got, tc.want)
			}
			if show.Columns(got) > labelColumns {
				t.Errorf("label is %d columns wide", show.Columns(got))
			}
		})
	}
}

// R5: tallies count selected changes: an Update's selected hunks, an Add's content and a
// Delete's baseline whatever their selection, all of a Move's hunks; locators count
// nowhere; comments are whole-patch + each target (mevedel §2.5, §7.4 counts).
func TestTallies(t *testing.T) {
	files := map[string]string{
		"u.txt": "a\nb\nc\nd\ne\n",
		"d.txt": "x\n\n",
		"e.txt": "",
		"m.txt": "1\n2\n3\n",
	}
	payload := patch(
		"*** Update File: u.txt", "@@", " a", "@@", "-b", "+B", "+B2", "@@", "-d", "+D",
		"*** Add File: n.txt", "+x", "+",
		"*** Delete File: d.txt",
		"*** Delete File: e.txt",
		"*** Update File: m.txt", "*** Move to: m2.txt", "@@", "-1", "+one", "@@", " 3", "+4",
	)
	type row struct{ sel, total, added, removed int }
	for _, tc := range []struct {
		name  string
		apply func(f *fixture)
		rows  []row
		tally View // the counts only
	}{{
		name:  "all selected",
		apply: func(*fixture) {},
		rows:  []row{{2, 2, 3, 2}, {1, 1, 2, 0}, {1, 1, 0, 2}, {1, 1, 0, 0}, {1, 1, 2, 1}},
		tally: View{Files: 5, FilesSelected: 5, Selected: 6, Total: 6, Added: 7, Removed: 5},
	}, {
		name: "some deselected, feedback staged",
		apply: func(f *fixture) {
			f.must(f.s.SetFeedback(Target{1, 1}, "no"))
			f.must(f.s.Select(Target{File: 2}, false, nil))
			f.must(f.s.SetFeedback(Target{File: 3}, "keep it"))
			f.must(f.s.SetFeedback(Target{}, "hm"))
			f.must(f.s.SetFeedback(Target{File: 1}, "file"))
		},
		rows:  []row{{1, 2, 1, 1}, {0, 1, 2, 0}, {0, 1, 0, 2}, {1, 1, 0, 0}, {1, 1, 2, 1}},
		tally: View{Files: 5, FilesSelected: 3, Selected: 3, Total: 6, Added: 3, Removed: 2, Comments: 4},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, files, payload)
			tc.apply(f)
			var got []row
			for _, r := range f.s.View().Rows {
				got = append(got, row{r.Selected, r.Total, r.Added, r.Removed})
			}
			if diff := cmp.Diff(tc.rows, got, cmp.AllowUnexported(row{})); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			counts := cmpopts.IgnoreFields(View{}, "State", "Header", "Action", "Feedback", "Conflict", "Rows")
			if diff := cmp.Diff(tc.tally, f.s.View(), counts); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
		})
	}
}

// R1: file rows: counts per kind, "· edited", "✎", a Move's fuzzy pass, and dimming.
func TestFileRowStrings(t *testing.T) {
	f := newFixture(t, map[string]string{"d.txt": "1\n2\n3\n", "m.txt": "a  \nb\n", "p.txt": "p\n"}, patch(
		"*** Delete File: d.txt",
		"*** Update File: m.txt", "*** Move to: n.txt", "@@", " a", "-b", "+c",
		"*** Update File: p.txt", "*** Move to: q.txt",
		"*** Add File: new.txt", "+1"))
	f.must(f.s.SetFeedback(Target{File: 1}, "keep"))
	want := []string{
		"▶ ✗ D d.txt · −3 ✎",
		"▶ ✓ R m.txt → n.txt · +1 −1 · fuzzy",
		"▶ ✓ R p.txt → q.txt",
		"▶ ✓ A new.txt · +1",
	}
	if diff := cmp.Diff(want, f.rowStrings()); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if r := f.s.View().Rows[0]; !r.Dimmed || r.Feedback != "keep" {
		t.Errorf("deselected Delete row: %+v", r)
	}
}

// TestRowsDecodeUTF16Delete: an expanded Delete of a UTF-16 file shows its decoded lines,
// not its raw bytes, which hold NULs (R1, T3).
func TestRowsDecodeUTF16Delete(t *testing.T) {
	fsys := afero.NewMemMapFs()
	utf16 := []byte{0xFF, 0xFE, 'h', 0, 'i', 0, '\n', 0}
	afero.WriteFile(fsys, "/u.txt", utf16, 0o644)
	p, err := Parse("*** Begin Patch\n*** Delete File: u.txt\n*** End Patch\n")
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Resolve(context.Background(), fsys, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(pr)
	if err := s.Fold(Target{File: 1}, false); err != nil {
		t.Fatal(err)
	}
	rows := s.View().Rows
	if len(rows) != 1 || len(rows[0].Lines) != 1 || rows[0].Lines[0].Text != "hi" {
		t.Fatalf("rows = %+v, want one removed line \"hi\"", rows)
	}
}

// TestRowsShowFileTextOfFuzzyHunk: a hunk placed by a fuzzy pass shows the file's own
// context and removed lines, which are what is kept and removed, not the payload's
// ASCII copy (R3, M5).
func TestRowsShowFileTextOfFuzzyHunk(t *testing.T) {
	f := newFixture(t, map[string]string{"q.txt": "say \u201chi\u201d\nold\n"},
		patch("*** Update File: q.txt", "@@", ` say "hi"`, "-old", "+new"))
	f.must(f.s.Fold(Target{File: 1}, false))
	var got []string
	for _, r := range f.s.View().Rows {
		for _, l := range r.Lines {
			got = append(got, l.String())
		}
	}
	want := []string{"       1   │ say \u201chi\u201d", "       2 - │ old", "       2 + │ new"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}
