package faultfs_test

import (
	"errors"
	"fmt"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/faultfs"
)

// writeBoth writes two files, stopping at the first error.
func writeBoth(fsys afero.Fs) error {
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := afero.WriteFile(fsys, name, []byte("hello\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Fail the second operation of a two-file write: afero.WriteFile creates
// a.txt (operation 1) and then writes to it (operation 2), which fails and
// leaves an empty a.txt behind for a rollback to clean up.
func Example() {
	base := afero.NewMemMapFs()
	fsys := faultfs.New(base, faultfs.FailAt(2))

	err := writeBoth(fsys)
	fmt.Println("error:", err)
	fmt.Println("injected:", errors.Is(err, faultfs.ErrInjected))

	for _, ev := range fsys.Events() {
		fmt.Printf("%d %s %s failed=%t\n", ev.N, ev.Op, ev.Name, ev.Err != nil)
	}
	data, _ := afero.ReadFile(base, "a.txt")
	fmt.Printf("a.txt on the base: %q\n", data)
	// Output:
	// error: write a.txt: faultfs: injected fault at operation 2 (write)
	// injected: true
	// 1 create a.txt failed=false
	// 2 write a.txt failed=true
	// 3 close a.txt failed=false
	// a.txt on the base: ""
}

// Run the code under test once for every k, failing the k-th mutating
// operation, until a run makes fewer than k operations.
func ExampleFailAt() {
	for k := 1; ; k++ {
		fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailAt(k))
		err := writeBoth(fsys)
		if k > fsys.Count() {
			fmt.Printf("k=%d: nothing failed, err=%v\n", k, err)
			break
		}
		ev := fsys.Events()[k-1]
		fmt.Printf("k=%d: %s %s, injected=%t\n", k, ev.Op, ev.Name, errors.Is(err, faultfs.ErrInjected))
	}
	// Output:
	// k=1: create a.txt, injected=true
	// k=2: write a.txt, injected=true
	// k=3: close a.txt, injected=true
	// k=4: create b.txt, injected=true
	// k=5: write b.txt, injected=true
	// k=6: close b.txt, injected=true
	// k=7: nothing failed, err=<nil>
}

// Fail every rename, whatever its position.
func ExampleFailEvery() {
	renames := func(op faultfs.Op, _ string) bool { return op == faultfs.OpRename }
	fsys := faultfs.New(afero.NewMemMapFs(), faultfs.FailEvery(renames))

	fmt.Println(afero.WriteFile(fsys, "a.txt", []byte("x"), 0o644))
	fmt.Println(fsys.Rename("a.txt", "b.txt"))
	// Output:
	// <nil>
	// rename a.txt b.txt: faultfs: injected fault at operation 4 (rename)
}
