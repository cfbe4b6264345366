package applypatch_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// payload is the patch the examples apply: it changes greet.go (one hunk found only by
// ignoring trailing whitespace), adds a file and deletes another.
const payload = `*** Begin Patch
*** Update File: greet.go
@@ func Greet
-	return "Hello"
+	return "Hello, " + name
*** Add File: docs/NOTES.md
+Greet now takes a name.
*** Delete File: old.txt
*** End Patch`

// workspace returns an in-memory filesystem with the files the payload expects.
func workspace() afero.Fs {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/greet.go", []byte("package greet\n\nfunc Greet(name string) string {\n\treturn \"Hello\"  \n}\n"), 0o644)
	afero.WriteFile(fsys, "/old.txt", []byte("obsolete\n"), 0o644)
	return fsys
}

// Parse reads a payload into operations and hunks, with their payload lines, and
// reports the first malformed line of a bad one.
func ExampleParse() {
	p, err := applypatch.Parse(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range p.Ops {
		fmt.Printf("line %d: %s %s", op.Line, op.Kind, op.Path)
		for _, h := range op.Hunks {
			fmt.Printf(", hunk under %q (%d lines)", h.Anchor, len(h.Lines))
		}
		fmt.Println()
	}

	_, err = applypatch.Parse("*** Begin Patch\n*** Add File: a.txt\nhello\n*** End Patch")
	fmt.Println(err)
	// Output:
	// line 2: update greet.go, hunk under "func Greet" (2 lines)
	// line 6: add docs/NOTES.md
	// line 8: delete old.txt
	// invalid patch: line 3 "hello": every line of an Add File section must start with '+' (a lone '+' is an empty line)
}

// Format renders a patch as canonical payload text: padding, a heredoc wrapper, CRLF and
// an omitted first "@@" are gone, and Parse reads it back to the same patch.
func ExampleFormat() {
	p, _ := applypatch.Parse("cat <<'EOF'\r\n  *** Begin Patch\r\n*** Update File: a.txt\r\n old\r\n-x\r\n+y\r\n*** End Patch\r\nEOF\r\n")
	fmt.Print(applypatch.Format(p))
	// Output:
	// *** Begin Patch
	// *** Update File: a.txt
	// @@
	//  old
	// -x
	// +y
	// *** End Patch
}

// Resolve reads the files and places every hunk without writing anything; a review of the
// proposal shows each change, and how a hunk that did not match exactly was matched.
func ExampleResolve() {
	fsys := workspace()
	p, _ := applypatch.Parse(payload)
	pr, err := applypatch.Resolve(context.Background(), fsys, p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := applypatch.NewSession(pr)
	s.Fold(applypatch.Target{}, false)
	for _, r := range s.View().Rows {
		fmt.Println(r)
		if r.Fuzzy != "" {
			fmt.Println("      matched", r.Fuzzy)
		}
	}

	// A hunk that does not match is reported with the closest region of the file.
	p, _ = applypatch.Parse("*** Begin Patch\n*** Update File: old.txt\n@@\n obsolete\n-unused\n*** End Patch")
	_, err = applypatch.Resolve(context.Background(), fsys, p, nil)
	fmt.Println(err)
	// Output:
	// ▼ ✓ M greet.go · 1/1 · +1 −1
	//     ✓ @@ func Greet · +1 −1 · fuzzy
	//       matched ignoring trailing whitespace
	// ▼ ✓ A docs/NOTES.md · +1
	// ▼ ✓ D old.txt · −1
	// old.txt: hunk 1 (payload line 3): the hunk's context and '-' lines were not found together in the file. Re-read the file and resend the hunk with its context and '-' lines copied exactly.
	// The closest region starts at line 1, where 1 of the hunk's 2 expected lines occur ('-' is what the hunk expects and the file lacks, '+' is what the file has there):
	//        1  obsolete
	// -         unused
	// Nothing was applied.
}

// Commit writes a resolved proposal as one transaction and returns the result the
// model reads. A change left unselected (as a review would) is reported as rejected.
func ExampleCommit() {
	fsys := workspace()
	p, _ := applypatch.Parse(payload)
	pr, err := applypatch.Resolve(context.Background(), fsys, p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := applypatch.NewSession(pr)
	s.Select(applypatch.Target{File: 3}, false, nil) // keep old.txt

	res, err := applypatch.Commit(context.Background(), pr)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	fmt.Println(res.Summary())
	_, err = fsys.Stat("/old.txt")
	fmt.Println("old.txt kept:", err == nil)
	// Output:
	// Applied patch: 2 changes
	// Applied: greet.go hunk 1
	// Fuzzy: greet.go hunk 1 matched while ignoring trailing whitespace
	// Applied: docs/NOTES.md
	// Rejected: old.txt
	// ApplyPatch: 2 files · 2/3 changes (+2 -1)
	// old.txt kept: true
}

// Apply is the one call for an agent: parse, resolve and commit, all or nothing. A
// payload with any problem writes nothing, and its error lists every problem.
func ExampleApply() {
	fsys := workspace()
	res, err := applypatch.Apply(context.Background(), fsys, payload, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	notes, _ := afero.ReadFile(fsys, "/docs/NOTES.md")
	fmt.Printf("docs/NOTES.md: %s", notes)

	res, err = applypatch.Apply(context.Background(), fsys, `*** Begin Patch
*** Update File: greet.go
@@
-}
+} // Greet
*** Add File: docs/NOTES.md
+again
*** End Patch`, nil)
	fmt.Println(errors.Is(err, &applypatch.FileError{Reason: applypatch.FileExists}))
	fmt.Println(res.Text())
	// Output:
	// Applied patch: 3 changes
	// Applied: greet.go hunk 1
	// Fuzzy: greet.go hunk 1 matched while ignoring trailing whitespace
	// Applied: docs/NOTES.md
	// Applied: old.txt
	// docs/NOTES.md: Greet now takes a name.
	// true
	// Error: docs/NOTES.md: the path already exists; use '*** Update File:' to change it, or choose another path
	// Nothing was applied.
}
