package rootfs_test

import (
	"fmt"
	"log"
	"os"

	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// Example writes and reads a file through an Fs and shows that a name
// leaving the workspace is refused with an error that names only what the
// caller gave.
func Example() {
	dir, err := os.MkdirTemp("", "rootfs-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	fsys, err := rootfs.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer fsys.Close()

	// "/notes" and "notes" name the same directory inside the workspace.
	if err := fsys.MkdirAll("/notes", 0o755); err != nil {
		log.Fatal(err)
	}
	if err := afero.WriteFile(fsys, "/notes/todo.txt", []byte("ship it\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	b, err := afero.ReadFile(fsys, "notes/todo.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(b))

	err = afero.WriteFile(fsys, "../escape.txt", []byte("no"), 0o644)
	fmt.Println(err)
	fmt.Println(rootfs.IsEscape(err))
	// Output:
	// ship it
	// openat ../escape.txt: path escapes from parent
	// true
}
