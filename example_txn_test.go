package applypatch_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// A host declares the encoding of legacy files; the patch is written in the model's
// UTF-8 and the file keeps its ISO-8859-1 bytes.
func ExampleOptions_encoding() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/menu.txt", []byte("caf\xe9\n"), 0o644)
	opts := &applypatch.Options{
		Workspace: "/ws",
		Encoding: func(name string) (encoding.Encoding, string) {
			if filepath.Ext(name) == ".txt" {
				return charmap.ISO8859_1, "ISO-8859-1"
			}
			return nil, ""
		},
	}
	payload := "*** Begin Patch\n*** Update File: menu.txt\n@@\n-café\n+café crème\n*** End Patch\n"
	if _, err := applypatch.Apply(context.Background(), fsys, payload, opts); err != nil {
		fmt.Println(err)
	}
	b, _ := afero.ReadFile(fsys, "/ws/menu.txt")
	fmt.Printf("%q\n", b)
	// Output: "caf\xe9 cr\xe8me\n"
}

// A file edited after the proposal was resolved is a conflict: nothing is written and
// the proposal stays usable. Deselecting the stale change applies the rest.
func ExampleConflictError() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("one\n"), 0o644)
	afero.WriteFile(fsys, "/ws/b.txt", []byte("two\n"), 0o644)
	p, _ := applypatch.Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n" +
		"*** Update File: b.txt\n@@\n-two\n+TWO\n*** End Patch\n")
	pr, _ := applypatch.Resolve(context.Background(), fsys, p, &applypatch.Options{Workspace: "/ws"})

	afero.WriteFile(fsys, "/ws/b.txt", []byte("someone else\n"), 0o644)
	s := applypatch.NewSession(pr)
	_, err := s.Submit(context.Background())
	var conflict *applypatch.ConflictError
	if errors.As(err, &conflict) {
		fmt.Println("stale:", conflict.Paths)
	}

	// Nothing was written and the review is still open: leave b.txt out and submit again.
	s.Select(applypatch.Target{File: 2}, false, nil)
	res, err := s.Submit(context.Background())
	fmt.Println(res.Text(), err)
	// Output:
	// stale: [b.txt]
	// Applied patch: 1 change
	// Applied: a.txt hunk 1
	// Rejected: b.txt hunk 1 <nil>
}
