package applypatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/applypatch/applypatch/internal/match"
	"github.com/spf13/afero"
)

// identicalFile is n lines of "}".
func identicalFile(n int) string { return strings.Repeat("}\n", n) }

// hintedPayload is h hunks over identical lines, each settled by a line hint.
func hintedPayload(n, h int) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: f.txt\n")
	for i := 1; i <= h; i++ {
		fmt.Fprintf(&b, "@@ %d\n }\n-}\n+X%d\n", i*(n/(h+1)), i)
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

// ambiguousPayload is h hunks that each match every line pair of an identical file.
func ambiguousPayload(h int) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: f.txt\n")
	for i := 1; i <= h; i++ {
		fmt.Fprintf(&b, "@@\n }\n-}\n+X%d\n", i)
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}

func resolveText(t testing.TB, file, payload string) (*Proposal, error) {
	t.Helper()
	fsys := afero.NewMemMapFs()
	if err := afero.WriteFile(fsys, "/w/f.txt", []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	return ResolvePayload(context.Background(), fsys, payload, &Options{Workspace: "/w"})
}

// TestAmbiguityErrorBounded: PERF4, M9. An ambiguity over 200,000 identical lines lists
// five candidates and how many more there are, and the whole error of 300 such hunks
// stays within its budget.
func TestAmbiguityErrorBounded(t *testing.T) {
	_, err := resolveText(t, identicalFile(200_000), ambiguousPayload(300))
	var me *MatchError
	if !errors.As(err, &me) {
		t.Fatalf("error %v, want a *MatchError", err)
	}
	if len(me.Lines) != match.Listed || !slices.Equal(me.Lines, []int{1, 2, 3, 4, 5}) {
		t.Errorf("Candidates = %v, want the first five lines", me.Lines)
	}
	text := err.Error()
	if len(text) >= 64<<10 {
		t.Errorf("error text is %d bytes, want under 64 KiB", len(text))
	}
	for _, want := range []string{"more than 10,000 places (lines 1, 2, 3, 4, 5 and over 9,995 more)", "more problems not shown"} {
		if !strings.Contains(text, want) {
			t.Errorf("error text lacks %q:\n%.600s", want, text)
		}
	}
	_, err = resolveText(t, identicalFile(20), ambiguousPayload(1))
	if !strings.Contains(err.Error(), "occur at 19 places (lines 1, 2, 3, 4, 5 and 14 more)") {
		t.Errorf("a countable ambiguity is not counted exactly: %v", err)
	}
}

// TestErrorTextBudget: PERF4. However large the payload's paths, lines and problem
// count, an error's text stays under 64 KiB.
func TestErrorTextBudget(t *testing.T) {
	long := strings.Repeat("d/", 10_000) + "f.txt"
	var errs []error
	var paths []string
	for i := range 2000 {
		errs = append(errs, &FileError{Path: fmt.Sprint(long, i), Reason: FileMissing})
		paths = append(paths, fmt.Sprint(long, i))
	}
	_, perr := Parse("*** Begin Patch\n*** Add File: a\n" + strings.Repeat("x", 1<<20) + "\n*** End Patch")
	for name, err := range map[string]error{
		"many problems": &patchError{errs: errs},
		"one problem":   &patchError{errs: errs[:1]},
		"parse line":    perr,
		"conflict":      &ConflictError{Paths: []string{long, long}},
		"ownership":     &ConflictError{Reason: ConflictOwner, Paths: paths, Reasons: map[string]string{paths[0]: "owned by another user"}},
		"recovery":      errors.New((&Recovery{Found: true, Restored: paths, Left: map[string]string{long: "it holds neither what it held before the interrupted commit nor what that commit wrote: someone else changed it; left as they made it"}}).String()),
	} {
		if n := len(err.Error()); n >= 64<<10 {
			t.Errorf("%s: %d bytes of error text", name, n)
		}
	}
}

// BenchmarkHostileHints: line hints over identical lines at two hunk counts.
func BenchmarkHostileHints(b *testing.B) {
	for _, h := range []int{1000, 4000} {
		file, payload := identicalFile(200_000), hintedPayload(200_000, h)
		b.Run(fmt.Sprint(h), func(b *testing.B) {
			for b.Loop() {
				if _, err := resolveText(b, file, payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHostileAmbiguous: hunks ambiguous over every line of an identical file.
func BenchmarkHostileAmbiguous(b *testing.B) {
	for _, h := range []int{100, 300} {
		file, payload := identicalFile(200_000), ambiguousPayload(h)
		b.Run(fmt.Sprint(h), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := resolveText(b, file, payload); err == nil {
					b.Fatal("ambiguity accepted")
				}
			}
		})
	}
}

// TestToolArgsRefusedBeforeDecoding: PERF4, H2. Arguments larger than any payload within
// the limit could be as JSON are refused before they are decoded.
func TestToolArgsRefusedBeforeDecoding(t *testing.T) {
	tool := &Tool{FS: afero.NewMemMapFs(), Options: Options{Mode: ModeEdits, Limits: Limits{Payload: 1000}}}
	args := []byte(`{"patchText": "` + strings.Repeat("x", argsLimit(1000)) + `"}`)
	_, err := tool.propose(context.Background(), args)
	if !errors.As(err, new(*ParseError)) || !strings.HasPrefix(err.Error(), "invalid arguments: the tool-call arguments have ") {
		t.Fatalf("error %v, want a *ParseError on the arguments", err)
	}
	_, err = tool.propose(context.Background(), []byte(`{"patchText": "`+strings.Repeat("x", 1001)+`"}`))
	if !errors.As(err, new(*ParseError)) || !strings.HasPrefix(err.Error(), "invalid patch: the patch has 1,0") {
		t.Fatalf("error %v, want a *ParseError on the payload", err)
	}
}
