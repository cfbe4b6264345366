package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	godiff "github.com/rogpeppe/go-internal/diff"
)

func TestDiffHunksTable(t *testing.T) {
	twelve := numberedLines(12)
	tests := []struct {
		name    string
		a, b    []string
		context int
		want    []string
	}{
		{name: "equal", a: twelve, b: numberedLines(12), context: 3, want: nil},
		{name: "both empty", a: nil, b: []string{}, context: 3, want: nil},
		{
			name: "a empty", a: nil, b: []string{"x", "y"}, context: 3,
			want: []string{"@@ -0,0 +0,2", "+x", "+y"},
		},
		{
			name: "b empty", a: []string{"x", "y"}, b: nil, context: 3,
			want: []string{"@@ -0,2 +0,0", "-x", "-y"},
		},
		{
			name: "first line", a: numberedLines(6), b: upperLines(numberedLines(6), 0), context: 3,
			want: []string{"@@ -0,4 +0,4", "-one", "+ONE", " two", " three", " four"},
		},
		{
			name: "append last line", a: numberedLines(5), b: numberedLines(6), context: 3,
			want: []string{"@@ -2,3 +2,4", " three", " four", " five", "+six"},
		},
		{
			name: "delete last line", a: numberedLines(6), b: numberedLines(5), context: 3,
			want: []string{"@@ -2,4 +2,3", " three", " four", " five", "-six"},
		},
		{
			name: "two hunks", a: twelve, b: upperLines(twelve, 1, 10), context: 3,
			want: []string{
				"@@ -0,5 +0,5", " one", "-two", "+TWO", " three", " four", " five",
				"@@ -7,5 +7,5", " eight", " nine", " ten", "-eleven", "+ELEVEN", " twelve",
			},
		},
		{
			name: "gap of 6 merges", a: twelve, b: upperLines(twelve, 2, 9), context: 3,
			want: []string{
				"@@ -0,12 +0,12", " one", " two", "-three", "+THREE",
				" four", " five", " six", " seven", " eight", " nine",
				"-ten", "+TEN", " eleven", " twelve",
			},
		},
		{
			name: "gap of 7 splits", a: twelve, b: upperLines(twelve, 1, 9), context: 3,
			want: []string{
				"@@ -0,5 +0,5", " one", "-two", "+TWO", " three", " four", " five",
				"@@ -6,6 +6,6", " seven", " eight", " nine", "-ten", "+TEN", " eleven", " twelve",
			},
		},
		{
			name: "context 0", a: twelve, b: upperLines(twelve, 1, 3), context: 0,
			want: []string{"@@ -1,1 +1,1", "-two", "+TWO", "@@ -3,1 +3,1", "-four", "+FOUR"},
		},
		{
			name: "go function inserted", a: goFuncLines(false), b: goFuncLines(true), context: 3,
			want: []string{
				"@@ -3,6 +3,10", " \treturn", " }", " ",
				"+func n() {", "+\treturn", "+}", "+",
				" func b() {", " \treturn", " }",
			},
		},
		{
			name: "go function removed", a: goFuncLines(true), b: goFuncLines(false), context: 3,
			want: []string{
				"@@ -3,10 +3,6", " \treturn", " }", " ",
				"-func n() {", "-\treturn", "-}", "-",
				" func b() {", " \treturn", " }",
			},
		},
		{
			name: "go function appended", a: []string{"func a() {", "}"},
			b: []string{"func a() {", "}", "", "func n() {", "}"}, context: 3,
			want: []string{"@@ -0,2 +0,5", " func a() {", " }", "+", "+func n() {", "+}"},
		},
		{
			name: "replacement stays together", a: []string{"y", "x", "x"}, b: []string{"y", "z", "x"},
			context: 3, want: []string{"@@ -0,3 +0,3", " y", "-x", "+z", " x"},
		},
		{
			name: "ties slide down", a: []string{"x", "y"}, b: []string{"x", "y", "x", "y"},
			context: 3, want: []string{"@@ -0,2 +0,4", " x", " y", "+x", "+y"},
		},
		{
			name: "removals before insertions", a: []string{"k", "a", "b", "k"},
			b: []string{"k", "c", "d", "k"}, context: 1,
			want: []string{"@@ -0,4 +0,4", " k", "-a", "-b", "+c", "+d", " k"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hunks := Hunks(tt.a, tt.b, tt.context)
			if diff := cmp.Diff(tt.want, diffHunkText(hunks)); diff != "" {
				t.Errorf("Hunks (-want +got):\n%s", diff)
			}
			checkDiffHunks(t, tt.a, tt.b, hunks, tt.context)
			checkDiffOps(t, tt.a, tt.b, Lines(tt.a, tt.b))
		})
	}
}

func TestDiffLinesOps(t *testing.T) {
	got := Lines([]string{"a", "b", "c"}, []string{"a", "x", "c", "d"})
	want := []Op{
		{Kind: KindContext, A: 0, B: 0},
		{Kind: KindRemove, A: 1, B: 1},
		{Kind: KindAdd, A: 2, B: 1},
		{Kind: KindContext, A: 2, B: 2},
		{Kind: KindAdd, A: 3, B: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
	if got := Lines(nil, nil); len(got) != 0 {
		t.Errorf("Lines(nil, nil) = %v, want empty", got)
	}
}

func TestDiffEndScore(t *testing.T) {
	for line, want := range map[string]int{
		"": 2, "  \t": 2, "}": 1, "\t})": 1, "},": 1, "];": 1, "x": 0, ",": 0, "} else {": 0,
	} {
		if got := blockEndScore(line); got != want {
			t.Errorf("blockEndScore(%q) = %d, want %d", line, got, want)
		}
	}
}

// randomDiffLines returns up to 12 lines drawn from the first 3 or 4 entries of a small pool
// that includes blank and closing-bracket lines, so the slider is exercised too.
func randomDiffLines(r *rand.Rand, alphabet int) []string {
	pool := []string{"x", "", "}", "y"}
	out := make([]string, r.IntN(13))
	for i := range out {
		out[i] = pool[r.IntN(alphabet)]
	}
	return out
}

func TestDiffRandomAgainstLCS(t *testing.T) {
	r := rand.New(rand.NewPCG(2024, 11))
	for iter := range 20000 {
		alphabet := 3 + iter%2
		a, b := randomDiffLines(r, alphabet), randomDiffLines(r, alphabet)
		checkDiffOps(t, a, b, Lines(a, b))
		context := iter % 4
		checkDiffHunks(t, a, b, Hunks(a, b, context), context)
		if t.Failed() {
			t.Fatalf("a=%q b=%q", a, b)
		}
	}
}

// countUnifiedChanges counts the '+' and '-' lines of a unified diff body, skipping headers.
func countUnifiedChanges(unified string) (plus, minus int) {
	for _, l := range strings.Split(unified, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			plus++
		case strings.HasPrefix(l, "-"):
			minus++
		}
	}
	return plus, minus
}

func TestDiffNotWorseThanGoInternal(t *testing.T) {
	cases := [][2][]string{
		{goFuncLines(false), goFuncLines(true)},
		{numberedLines(12), upperLines(numberedLines(12), 1, 10)},
		{strings.Fields("a b c a b b a"), strings.Fields("c b a b a c")},
		{strings.Fields("} } x } y } }"), strings.Fields("} x } } y y }")},
	}
	r := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		cases = append(cases, [2][]string{randomDiffLines(r, 4), randomDiffLines(r, 4)})
	}
	for _, c := range cases {
		a, b := c[0], c[1]
		hunks := Hunks(a, b, 3)
		plus, minus := 0, 0
		for _, h := range hunks {
			for _, l := range h.Lines {
				switch l.Kind {
				case KindAdd:
					plus++
				case KindRemove:
					minus++
				}
			}
		}
		join := func(l []string) []byte {
			if len(l) == 0 {
				return nil
			}
			return []byte(strings.Join(l, "\n") + "\n")
		}
		theirPlus, theirMinus := countUnifiedChanges(string(godiff.Diff("a", join(a), "b", join(b))))
		if plus > theirPlus || minus > theirMinus {
			t.Errorf("a=%q b=%q: we have +%d -%d, go-internal +%d -%d",
				a, b, plus, minus, theirPlus, theirMinus)
		}
	}
}

// countEdits counts the ops that remove or insert a line.
func countEdits(ops []Op) int {
	n := 0
	for _, op := range ops {
		if op.Kind != KindContext {
			n++
		}
	}
	return n
}

func TestDiffLargeFewChanges(t *testing.T) {
	a, b := largeDiffInput(200_000, 50)
	ops := Lines(a, b)
	checkDiffOps(t, a, b, ops)
	edits := countEdits(ops)
	if edits != 100 {
		t.Errorf("%d edits, want 100", edits)
	}
	checkDiffHunks(t, a, b, Hunks(a, b, 3), 3)
}

func TestDiffRepetitiveWorstCase(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a, b := make([]string, 3000), make([]string, 2500)
	for i := range a {
		a[i] = []string{"}", "", "x"}[r.IntN(3)]
	}
	for i := range b {
		b[i] = []string{"}", "", "x"}[r.IntN(3)]
	}
	ops := Lines(a, b)
	checkDiffOps(t, a, b, ops)
	edits := countEdits(ops)
	// checkDiffOps skips the oracle at this size, so compare with it here.
	if want := len(a) + len(b) - 2*lcsLenOracle(a, b); edits != want {
		t.Errorf("%d edits, minimum is %d", edits, want)
	}
}

// largeDiffInput returns n distinct lines and a copy with changes lines replaced, spread
// evenly.
func largeDiffInput(n, changes int) (a, b []string) {
	a = make([]string, n)
	for i := range a {
		a[i] = fmt.Sprintf("line %d: some typical source text", i)
	}
	b = append([]string(nil), a...)
	for i := range changes {
		j := i*(n/changes) + n/(2*changes)
		b[j] = fmt.Sprintf("changed %d", j)
	}
	return a, b
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc", "a\nc")
	f.Add("", "x")
	f.Add("x\ny", "")
	f.Add(strings.Join(goFuncLines(false), "\n"), strings.Join(goFuncLines(true), "\n"))
	f.Add("}\n\n}\nx\n\n", "\n}\nx\n}\n\n}")
	f.Fuzz(func(t *testing.T, sa, sb string) {
		a, b := strings.Split(sa, "\n"), strings.Split(sb, "\n")
		checkDiffOps(t, a, b, Lines(a, b))
		checkDiffHunks(t, a, b, Hunks(a, b, 3), 3)
		checkDiffHunks(t, a, b, Hunks(a, b, 0), 0)
	})
}

func BenchmarkDiff(b *testing.B) {
	old, edited := largeDiffInput(200_000, 50)
	b.ReportAllocs()
	for b.Loop() {
		Hunks(old, edited, 3)
	}
}
