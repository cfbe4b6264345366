package applypatch_test

import (
	"flag"
	"os"
	"testing"

	"github.com/applypatch/applypatch/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata scripts")

func TestMain(m *testing.M) {
	// The journal key is the user's, kept outside every workspace: the tests keep theirs
	// in a directory of their own, never in the home directory of whoever runs them.
	if os.Getenv("APPLYPATCH_TEST_STATE") == "" || os.Getenv("XDG_STATE_HOME") != os.Getenv("APPLYPATCH_TEST_STATE") {
		dir, err := os.MkdirTemp("", "applypatch-state-")
		if err != nil {
			panic(err)
		}
		os.Setenv("XDG_STATE_HOME", dir)
		os.Setenv("APPLYPATCH_TEST_STATE", dir)
	}
	testscript.Main(m, map[string]func(){
		"applypatch": func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the behaviour scenarios in testdata/: one scenario a file, each named
// for the requirement it covers.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Cmds:                scriptCmds,
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_STATE_HOME", os.Getenv("XDG_STATE_HOME"))
			env.Setenv("APPLYPATCH_TEST_STATE", os.Getenv("XDG_STATE_HOME"))
			return nil
		},
	})
}
