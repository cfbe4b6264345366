package applypatch_test

import (
	"context"
	"fmt"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// A text editor tool's str_replace: the old text must occur once; the file keeps its
// CRLF line ends and tabs.
func ExampleResolveEdit() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/main.go", []byte("func main() {\r\n\tprintln(\"hi\")\r\n}\r\n"), 0o644)
	opts := &applypatch.Options{Workspace: "/ws"}

	pr, err := applypatch.ResolveEdit(ctx, fsys, applypatch.Edit{Path: "main.go", Old: `"hi"`, New: `"hello"`}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := applypatch.Commit(ctx, pr)
	b, _ := afero.ReadFile(fsys, "/ws/main.go")
	fmt.Printf("%s\n%q\n", res.Text(), b)

	_, err = applypatch.ResolveEdit(ctx, fsys, applypatch.Edit{Path: "main.go", Old: "(", New: "["}, opts)
	fmt.Println(err)
	// Output:
	// Applied patch: 1 change
	// Applied: main.go hunk 1
	// "func main() {\r\n\tprintln(\"hello\")\r\n}\r\n"
	// main.go: the old text occurs at 2 places, starting on lines 1, 2; include more of the lines around it so that it occurs once.
	// Nothing was applied.
}
