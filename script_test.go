package applypatch_test

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/applypatch/applypatch/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata scripts")

func TestMain(m *testing.M) {
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
	})
}

// scriptCmds are the commands the scenarios add to testscript's own, for bytes a txtar
// archive cannot hold readably (CR, NUL, a BOM) and for proving that a file was not
// rewritten:
//
//	printf FILE TEXT   write FILE with TEXT read as the body of a Go "…" string literal,
//	                   so 'a\r\nb\x00\n' writes a CR, an LF and a NUL byte
//	crlf FILE...       rewrite each FILE with every LF turned into CRLF (a CRLF stays one)
//	stamp FILE...      set each FILE's modification time to a fixed moment in the past
//	stamped FILE...    assert each FILE still has that time, so nothing rewrote it;
//	                   with ! assert that something did
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"printf":  cmdPrintf,
	"crlf":    cmdCRLF,
	"stamp":   cmdStamp,
	"stamped": cmdStamped,
}

// stampTime is the modification time stamp gives a file.
var stampTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

func cmdPrintf(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: printf FILE TEXT")
	}
	text, err := strconv.Unquote(`"` + args[1] + `"`)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(text), 0o644))
}

func cmdCRLF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: crlf FILE...")
	}
	for _, name := range args {
		b, err := os.ReadFile(ts.MkAbs(name))
		ts.Check(err)
		s := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n", "\r\n")
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(s), 0o644))
	}
}

func cmdStamp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: stamp FILE...")
	}
	for _, name := range args {
		ts.Check(os.Chtimes(ts.MkAbs(name), stampTime, stampTime))
	}
}

func cmdStamped(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: [!] stamped FILE...")
	}
	for _, name := range args {
		fi, err := os.Stat(ts.MkAbs(name))
		ts.Check(err)
		switch kept := fi.ModTime().Equal(stampTime); {
		case neg && kept:
			ts.Fatalf("%s was not rewritten: it still has its stamped time", name)
		case !neg && !kept:
			ts.Fatalf("%s was rewritten: its time is %v, not the stamped %v", name, fi.ModTime(), stampTime)
		}
	}
}
