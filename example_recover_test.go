package applypatch_test

import (
	"context"
	"fmt"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// A host runs Recover when it starts, before it serves the model: a commit its last run
// left interrupted (the process killed midway) is undone, so the workspace is as it was
// before that commit.
func ExampleRecover() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/project/a.txt", []byte("one\n"), 0o644)
	opts := &applypatch.Options{Workspace: "/project"}

	r, err := applypatch.Recover(context.Background(), fsys, opts)
	if err != nil {
		fmt.Println("recovery failed:", err)
		return
	}
	if r.Found {
		fmt.Println(r)
	} else {
		fmt.Println("nothing to recover")
	}
	// Output: nothing to recover
}
