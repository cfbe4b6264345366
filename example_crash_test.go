package applypatch_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/spf13/afero"
)

// The README's crash-recovery snippet: stop a commit dead once its journal is written, as
// a kill would, then recover as the next start does.
func Example_readmeCrashRecovery() {
	ctx := context.Background()
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/a.txt", []byte("one\n"), 0o644)
	opts := &applypatch.Options{Workspace: "/ws"}
	payload := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch"

	dead := false // every operation after the journal's fails, the rollback's too
	crashing := faultfs.New(fsys, faultfs.FailEvery(func(op faultfs.Op, name string) bool {
		was := dead
		dead = dead || strings.HasSuffix(name, "journal.json")
		return was
	}))
	_, err := applypatch.Apply(ctx, crashing, payload, opts) // cut off midway
	rec, rerr := applypatch.Recover(ctx, fsys, opts)         // what the next start does
	b, _ := afero.ReadFile(fsys, "/ws/a.txt")
	fmt.Println(err != nil, rec.String() != "", rerr, strings.TrimSpace(string(b)))
	// Output: true true <nil> one
}
