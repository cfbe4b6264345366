package applypatch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/applypatch/applypatch/internal/lines"
	"github.com/applypatch/applypatch/internal/match"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
)

// A cut is a hunk cut from a file: lines [start, start+n) of the file, the first one
// removed and a new line inserted in its place, with an optional line hint, and the End
// of File marker on the last hunk when asked.
type cut struct {
	start, n, hint int
	eof            bool
}

// hunk builds the hunk of a cut from the file's lines.
func (c cut) hunk(lines []string, k int) Hunk {
	h := Hunk{Hint: c.hint, EOF: c.eof}
	h.Lines = append(h.Lines, Line{LineRemove, lines[c.start]}, Line{LineAdd, insertedLine(k)})
	for _, l := range lines[c.start+1 : c.start+c.n] {
		h.Lines = append(h.Lines, Line{LineContext, l})
	}
	return h
}

// insertedLine is the line hunk k inserts.
func insertedLine(k int) string { return "inserted by hunk " + string(rune('1'+k)) }

// expectation is what SPEC M says happens to a hunk: where it lands and by which pass,
// or that it is ambiguous between cands (0-based), or not found. An error lists the
// first few candidates and counts the rest as more (PERF4).
type expectation struct {
	start int
	pass  match.Pass
	err   MatchReason
	cands []int
	more  int
}

// listed cuts an ambiguity's candidates to those an error lists, counting the rest.
func (e expectation) listed() expectation {
	if e.err == MatchAmbiguous && len(e.cands) > match.Listed {
		e.cands, e.more = e.cands[:match.Listed], len(e.cands)-match.Listed
	}
	return e
}

// expect works out, by brute force over every start and straight from SPEC M1-M4 and
// M7, where a hunk whose expected lines are old lands when the cursor is at cursor.
// End of File first tries the end at every pass (M4). Otherwise the first pass with any
// candidate decides (M1); among several, those at or after the cursor are kept when
// there are any (M3), then those nearest the hint (M7); more than one left is
// ambiguous (M2).
func expect(lines, old []string, cursor, hint int, eof bool) expectation {
	n := len(old)
	if eof && n <= len(lines) {
		for p := match.Exact; p <= match.Punctuation; p++ {
			if equalAt(lines, old, len(lines)-n, p) {
				return expectation{start: len(lines) - n, pass: p}
			}
		}
	}
	for p := match.Exact; p <= match.Punctuation; p++ {
		var cands []int
		for s := 0; s+n <= len(lines); s++ {
			if equalAt(lines, old, s, p) {
				cands = append(cands, s)
			}
		}
		if len(cands) == 0 {
			continue
		}
		if after := slices.DeleteFunc(slices.Clone(cands), func(s int) bool { return s < cursor }); len(cands) > 1 && len(after) > 0 {
			cands = after
		}
		if len(cands) > 1 && hint > 0 {
			cands = nearestTo(cands, hint-1)
		}
		if len(cands) > 1 {
			return expectation{err: MatchAmbiguous, cands: cands}
		}
		return expectation{start: cands[0], pass: p}
	}
	return expectation{err: MatchNotFound}
}

// equalAt reports whether old occurs in lines at s after normalisation for pass p.
func equalAt(lines, old []string, s int, p match.Pass) bool {
	for k, o := range old {
		if p.Normalize(lines[s+k]) != p.Normalize(o) {
			return false
		}
	}
	return true
}

// nearestTo keeps the candidates at the least distance from target.
func nearestTo(cands []int, target int) []int {
	dist := func(s int) int { return max(s-target, target-s) }
	best := dist(cands[0])
	for _, s := range cands {
		best = min(best, dist(s))
	}
	return slices.DeleteFunc(slices.Clone(cands), func(s int) bool { return dist(s) != best })
}

// occurrences returns every start at which old occurs in lines byte for byte.
func occurrences(lines, old []string) []int {
	var out []int
	for s := 0; s+len(old) <= len(lines); s++ {
		if slices.Equal(lines[s:s+len(old)], old) {
			out = append(out, s)
		}
	}
	return out
}

// cutsFor turns fuzzer numbers into one or two cuts of a file of count lines: the
// second starts at or after the end of the first.
func cutsFor(count int, s1, n1, s2, n2 uint8, h1, h2 uint16, eof bool) []cut {
	hint := func(h uint16) int {
		if h == 0 {
			return 0
		}
		return 1 + int(h)%(count+1)
	}
	length := func(n uint8, start int) int { return 1 + int(n)%min(4, count-start) }
	a := cut{start: int(s1) % count, hint: hint(h1)}
	a.n = length(n1, a.start)
	cuts := []cut{a}
	if next := a.start + a.n; n2 > 0 && next < count {
		b := cut{start: next + int(s2)%(count-next), hint: hint(h2)}
		b.n = length(n2, b.start)
		cuts = append(cuts, b)
	}
	cuts[len(cuts)-1].eof = eof
	return cuts
}

// resolveSeeds are the baseline files of the placement table and, when the environment
// names a directory of conformance cases in APPLYPATCH_CONFORMANCE, their input files.
func resolveSeeds() []string {
	var seeds []string
	for _, tc := range placeCases {
		seeds = append(seeds, tc.file)
	}
	if dir := os.Getenv("APPLYPATCH_CONFORMANCE"); dir != "" {
		names, _ := filepath.Glob(filepath.Join(dir, "*", "*", "input", "*"))
		for _, name := range names {
			if b, err := os.ReadFile(name); err == nil {
				seeds = append(seeds, string(b))
			}
		}
	}
	return seeds
}

// FuzzResolve cuts one or two hunks out of a file and resolves them with Resolve. Each
// hunk must land where SPEC M says (see expect): in particular a single hunk without
// hint or End of File lands at its own place by the exact pass when its lines occur
// there only, and is rejected as ambiguous, naming exactly the places where its lines
// occur byte for byte, when they occur more than once. When every hunk lands at its own
// place, the result must be the file with those lines replaced, every kept line with
// its own terminator.
func FuzzResolve(f *testing.F) {
	for i, file := range resolveSeeds() {
		f.Add(file, uint8(i), uint8(i/2), uint8(i/3), uint8(i%3), uint16(i%5), uint16(i%7), i%4 == 0)
	}
	f.Fuzz(func(t *testing.T, file string, s1, n1, s2, n2 uint8, h1, h2 uint16, eof bool) {
		// Text only (T1), without a byte-order mark, which is not part of the first line (T3).
		file = strings.ToValidUTF8(strings.ReplaceAll(file, "\x00", "0"), "?")
		file = strings.TrimPrefix(file, "\ufeff")
		txt := lines.Split(file)
		lines := txt.Strings()
		if len(lines) == 0 {
			return
		}
		cuts := cutsFor(len(lines), s1, n1, s2, n2, h1, h2, eof)
		op := Operation{Kind: OpUpdate, Path: "f.txt"}
		for k, c := range cuts {
			op.Hunks = append(op.Hunks, c.hunk(lines, k))
		}

		var want []expectation
		cursor := 0
		for _, c := range cuts {
			old := lines[c.start : c.start+c.n]
			e := expect(lines, old, cursor, c.hint, c.eof)
			if len(cuts) == 1 && c.hint == 0 && !c.eof {
				checkOccurrences(t, e, c, occurrences(lines, old))
			}
			if e.err == 0 {
				// Each hunk changes its first line only: the next may start on the line
				// after it, its change after this one's, sharing this one's context (M3).
				cursor = e.start + 1
			}
			want = append(want, e.listed())
		}

		expectOverlap(want, cuts)

		fsys := afero.NewMemMapFs()
		if err := afero.WriteFile(fsys, "/f.txt", []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		pr, err := Resolve(context.Background(), fsys, &Patch{Ops: []Operation{op}}, nil)
		got := make([]expectation, len(cuts))
		var pe *patchError
		switch {
		case err == nil:
			for k, h := range pr.changes[0].Hunks {
				got[k] = expectation{start: h.Place.Start, pass: h.Place.Pass}
			}
		case errors.As(err, &pe):
			got = landedOrFailed(t, pe, cuts, want)
		default:
			t.Fatalf("Resolve: %v", err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(expectation{})); diff != "" {
			t.Fatalf("file %q, cuts %+v (-spec +got):\n%s", file, cuts, diff)
		}
		if err == nil && landsInPlace(want, cuts) {
			checkResult(t, pr.changes[0], txt, cuts)
		}
	})
}

// expectOverlap marks the first hunk, in file order, that changes lines an earlier one
// changes: every cut hunk changes its first line only (the rest is context), so two
// hunks overlap exactly when they start on the same line (apply.go). Derivation stops at
// the first overlap; its candidates are the other hunk's index and the first and last
// lines it changes.
func expectOverlap(want []expectation, cuts []cut) {
	order := make([]int, 0, len(want))
	for k, e := range want {
		if e.err != 0 {
			return // nothing is derived when a hunk fails
		}
		order = append(order, k)
	}
	slices.SortStableFunc(order, func(a, b int) int { return want[a].start - want[b].start })
	for i := 1; i < len(order); i++ {
		prev, k := order[i-1], order[i]
		if want[k].start == want[prev].start {
			want[k] = expectation{err: MatchOverlap, cands: []int{prev, want[prev].start, want[prev].start}}
			return
		}
	}
}

// checkOccurrences states the headline property directly: a lone hunk is placed where
// it was cut exactly when its lines occur once, and is otherwise ambiguous between the
// places they occur.
func checkOccurrences(t *testing.T, e expectation, c cut, occ []int) {
	t.Helper()
	switch {
	case len(occ) == 1 && (e.err != 0 || e.start != c.start || e.pass != match.Exact):
		t.Fatalf("lines occurring once at %d expected at %+v", c.start, e)
	case len(occ) > 1 && (e.err != MatchAmbiguous || !slices.Equal(e.cands, occ)):
		t.Fatalf("lines occurring at %v expected as %+v", occ, e)
	}
}

// landedOrFailed reads the outcome of each hunk from a PatchError: the hunks it names
// failed; the others are taken to have landed as expected (Resolve does not report
// placements when something fails), which the comparison then checks by the failures.
func landedOrFailed(t *testing.T, pe *patchError, cuts []cut, want []expectation) []expectation {
	got := slices.Clone(want)
	failed := map[int]bool{}
	for _, err := range pe.errs {
		var me *MatchError
		if !errors.As(err, &me) {
			t.Fatalf("Resolve: %v", err)
		}
		k := me.Hunk - 1
		failed[k] = true
		got[k] = expectation{err: me.Reason, more: me.More}
		for _, c := range lineFacts(me) {
			got[k].cands = append(got[k].cands, c-1)
		}
	}
	for k := range cuts {
		if !failed[k] && want[k].err != 0 {
			got[k] = expectation{start: -1} // expected to fail, but did not
		}
	}
	return got
}

func landsInPlace(want []expectation, cuts []cut) bool {
	for k, e := range want {
		if e.err != 0 || e.start != cuts[k].start {
			return false
		}
	}
	return true
}

// checkResult checks the derived bytes: the file with each cut's first line replaced by
// its inserted line, kept lines with their own terminators (a last line without one
// gains the file's style), inserted lines with the style, and an empty line ending in LF
// right after a lone CR ending in a lone CR too, so that it is not read back as part of
// one CRLF (T2, T4, M5).
func checkResult(t *testing.T, c *change, txt *lines.Text, cuts []cut) {
	t.Helper()
	var b strings.Builder
	var last lines.EOL
	for i, l := range txt.Strings() {
		k := slices.IndexFunc(cuts, func(c cut) bool { return c.start == i })
		e := txt.EOL(i)
		if e == lines.EOLNone {
			e = txt.Style
		}
		if k >= 0 {
			l, e = insertedLine(k), txt.Style
		}
		if last == lines.EOLCR && l == "" && e == lines.EOLLF {
			e = lines.EOLCR // "\r" then "\n" would read back as one CRLF, an empty line lost (T2)
		}
		b.WriteString(l + lines.EOLBytes[e])
		last = e
	}
	got, err := c.result()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Fatalf("result %q, want %q", got, b.String())
	}
}

// TestParentIsFile: a path under a file (g.txt/x where g.txt is a file) is refused with
// the parent that is a file named as authored, not a system error (X3).
func TestParentIsFile(t *testing.T) {
	root := t.TempDir()
	fsys := afero.NewOsFs()
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "g.txt"), []byte("g\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ payload, path, parent string }{
		{"*** Add File: src/g.txt/x\n+x\n", "src/g.txt/x", "src/g.txt"},
		{"*** Add File: ./src/g.txt/a/b\n+x\n", "./src/g.txt/a/b", "src/g.txt"},
		{"*** Update File: src/g.txt/y\n@@\n-a\n+b\n", "src/g.txt/y", "src/g.txt"},
	} {
		_, err := Apply(context.Background(), fsys, "*** Begin Patch\n"+tc.payload+"*** End Patch\n", &Options{Workspace: root})
		var fe *FileError
		if !errors.As(err, &fe) || fe.Reason != FileParentNotDir || fe.Path != tc.path {
			t.Fatalf("%s: err = %v, want a FileParentNotDir FileError", tc.path, err)
		}
		want := tc.path + ": a parent of the path (" + tc.parent + ") is a file, not a directory; choose another path"
		if fe.Error() != want {
			t.Errorf("error = %q\nwant    %q", fe.Error(), want)
		}
		if !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("errors.Is(%v, ENOTDIR) = false; the cause should stay reachable", err)
		}
	}
	if names, _ := os.ReadDir(filepath.Join(root, "src")); len(names) != 1 {
		t.Errorf("src holds %d entries, want only g.txt", len(names))
	}
}
