package applypatch_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/applypatch/applypatch"
	"github.com/rogpeppe/go-internal/testscript"
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
	root := ts.MkAbs(args[0])
	var lines []string
	ts.Check(filepath.WalkDir(root, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, name)
		lines = append(lines, fmt.Sprintf("%q %v %d", filepath.ToSlash(rel), info.Mode(), info.Size()))
		return nil
	}))
	sort.Strings(lines)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
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
