package applypatch_test

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are the commands testdata scripts may use beyond testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"expand": expand,
}

// expand FILE... replaces $VAR and ${VAR} in each file with the script's environment, so
// a payload can name an absolute path under $WORK.
func expand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand FILE...")
	}
	for _, name := range args {
		text := os.Expand(ts.ReadFile(name), ts.Getenv)
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(text), 0o666))
	}
}
