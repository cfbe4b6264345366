package applypatch_test

import (
	"os"
	"path/filepath"
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/internal/scriptcmd"
)

// scriptCmds are the commands testdata scripts may use beyond testscript's own: for
// absolute paths, for bytes a txtar archive cannot hold readably (CR, NUL, a BOM), and
// for proving that a file was not rewritten.
//
//	expand FILE...     replace $VAR and ${VAR} in each FILE with the script's environment
//	printf FILE TEXT   write FILE with TEXT read as the body of a Go "…" string literal,
//	                   so 'a\r\nb\x00\n' writes a CR, an LF and a NUL byte
//	crlf FILE...       rewrite each FILE with every LF turned into CRLF (a CRLF stays one)
//	stamp FILE...      set each FILE's modification time to a fixed moment in the past
//	stamped FILE...    assert each FILE still has that time, so nothing rewrote it;
//	                   with ! assert that something did
//	listing DIR FILE   write FILE with every name under DIR (Go-quoted, sorted, with
//	                   sizes), so two listings compared with cmp show nothing was written
//	sealjournal [-cut] DIR
//	                   turn DIR (record.json, a journal record, and backups b0, b1...)
//	                   into a journal of this user's, as an interrupted commit leaves it
//	                   in the current directory, and set $JOURNAL to its name; -cut
//	                   writes the record cut short, as a commit killed while writing it
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"expand":      expand,
	"printf":      cmdPrintf,
	"crlf":        cmdCRLF,
	"stamp":       cmdStamp,
	"stamped":     cmdStamped,
	"listing":     cmdListing,
	"sealjournal": cmdSealJournal,
}

func cmdSealJournal(ts *testscript.TestScript, neg bool, args []string) {
	cut := len(args) == 2 && args[0] == "-cut"
	if cut {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sealjournal [-cut] DIR")
	}
	src := ts.MkAbs(args[0])
	rec, err := os.ReadFile(filepath.Join(src, "record.json"))
	ts.Check(err)
	if cut {
		id := regexp.MustCompile(`"id":"([0-9a-f]+)"`).FindSubmatch(rec)
		if id == nil {
			ts.Fatalf("sealjournal -cut: the record names no id")
		}
		rec = []byte(`{"version":2,"id":"` + string(id[1]) + `"}`)
	}
	name, data, err := applypatch.SealJournal(rec)
	ts.Check(err)
	if cut {
		data = data[:len(data)/2]
	}
	dir := ts.MkAbs(name)
	ts.Check(os.Mkdir(dir, 0o700))
	entries, err := os.ReadDir(src)
	ts.Check(err)
	for _, e := range entries {
		if e.Name() != "record.json" {
			ts.Check(os.Rename(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())))
		}
	}
	ts.Check(os.WriteFile(filepath.Join(dir, "journal.json"), data, 0o600))
	ts.Check(os.RemoveAll(src))
	ts.Setenv("JOURNAL", name)
}

func cmdListing(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: listing DIR FILE")
	}
	ts.Check(scriptcmd.Listing(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
}

// expand FILE... replaces $VAR and ${VAR} in each file with the script's environment, so
// a payload can name an absolute path under $WORK.
func expand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand FILE...")
	}
	for _, name := range args {
		ts.Check(scriptcmd.Expand(ts.MkAbs(name), ts.Getenv))
	}
}

func cmdPrintf(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: printf FILE TEXT")
	}
	ts.Check(scriptcmd.Printf(ts.MkAbs(args[0]), args[1]))
}

func cmdCRLF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: crlf FILE...")
	}
	for _, name := range args {
		ts.Check(scriptcmd.CRLF(ts.MkAbs(name)))
	}
}

func cmdStamp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: stamp FILE...")
	}
	for _, name := range args {
		ts.Check(scriptcmd.Stamp(ts.MkAbs(name)))
	}
}

func cmdStamped(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: [!] stamped FILE...")
	}
	for _, name := range args {
		kept, err := scriptcmd.Stamped(ts.MkAbs(name))
		ts.Check(err)
		switch {
		case neg && kept:
			ts.Fatalf("%s was not rewritten: it still has its stamped time", name)
		case !neg && !kept:
			ts.Fatalf("%s was rewritten: its time is no longer the stamped %v", name, scriptcmd.StampTime)
		}
	}
}
