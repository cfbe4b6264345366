package applypatch_test

import (
	"fmt"
	"log"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// ExampleClassify classifies a payload before anything runs, so a host can pre-approve
// it (F3): an allow rule covers the docs directory, .git is protected, a "../" path is
// outside and ~/.ssh is forbidden in every mode.
func ExampleClassify() {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/project/main.go", []byte("package main\n"), 0o644)

	p, err := applypatch.Parse(`*** Begin Patch
*** Update File: main.go
@@
-package main
+package app
*** Add File: docs/intro.md
+# Intro
*** Add File: .git/hooks/pre-commit
+#!/bin/sh
*** Update File: notes.txt
*** Move to: ../elsewhere/notes.txt
*** Delete File: /home/me/.ssh/id_ed25519
*** End Patch`)
	if err != nil {
		log.Fatal(err)
	}
	paths, err := applypatch.Classify(fsys, p, &applypatch.Options{
		Workspace: "/project",
		Allow:     []string{"docs"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, cp := range paths {
		fmt.Printf("%-6s %-9s allowed=%-5v %s\n", cp.Kind, cp.Class, cp.Allowed, cp.Path)
	}
	// Output:
	// update workspace allowed=false main.go
	// add    workspace allowed=true  docs/intro.md
	// add    protected allowed=false .git/hooks/pre-commit
	// update workspace allowed=false notes.txt
	// add    outside   allowed=false ../elsewhere/notes.txt
	// delete forbidden allowed=false /home/me/.ssh/id_ed25519
}
