package applypatch

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/internal/txn"
)

// fuzzKey is the journal key of FuzzRecover's workspace.
var fuzzKey = []byte("fuzz journal key, sixteen bytes or more")

// writeOps are the operations that change a filesystem.
var writeOps = map[faultfs.Op]bool{
	faultfs.OpCreate: true, faultfs.OpWrite: true, faultfs.OpRename: true, faultfs.OpChmod: true,
	faultfs.OpChtimes: true, faultfs.OpChown: true, faultfs.OpRemove: true, faultfs.OpMkdir: true,
	faultfs.OpSymlink: true, faultfs.OpLink: true,
}

// FuzzRecover: X13, X15. Whatever a journal's record says, sealed with the user's key or
// not, and whatever its backup holds, recovery writes only inside the workspace, reads
// nothing outside it but the workspace's own ancestors, and leaves a file outside as it
// was. The sealed case feeds the record's bytes under a valid seal, so the fuzzer
// reaches the confinement of each step rather than stopping at the MAC.
func FuzzRecover(f *testing.F) {
	for _, rec := range []string{
		`{"version":2,"id":"0123456789ab","steps":[{"name":"a.txt","path":"a.txt","existed":true,"backup":"b0","mode":420,"wrote":"7f8b1dfc466b6249f06cbe55c9174df2578e7754da793fded244ef5cba2a38f1","wrote_mode":420}],"dirs":[]}`,
		`{"version":2,"id":"0123456789ab","steps":[{"name":"../out/secret.txt","path":"../out/secret.txt","existed":true,"backup":"b0","mode":3565}],"dirs":["../out"]}`,
		`{"version":2,"id":"0123456789ab","steps":[{"name":"/out/secret.txt","path":"/out/secret.txt","wrote":"00"}],"dirs":["/out"]}`,
		`{"version":2,"id":"0123456789ab","steps":[{"name":"sub/../../out/secret.txt","outside":false,"granted":true,"existed":true,"backup":"b0"}]}`,
		`{"version":2,"id":"0123456789ab","steps":[{"name":".git/config","granted":true,"existed":true,"backup":"../../out/secret.txt"}]}`,
		`{"version":1,"steps":[{"op":"create","path":"/out/secret.txt","temp":"/out/secret.txt"}]}`,
	} {
		f.Add([]byte(rec), []byte("attacker\n"), true)
		f.Add([]byte(rec), []byte("attacker\n"), false)
	}
	f.Fuzz(func(t *testing.T, record, backup []byte, sealed bool) {
		mem := afero.NewMemMapFs()
		afero.WriteFile(mem, "/out/secret.txt", []byte("secret\n"), 0o600)
		afero.WriteFile(mem, "/ws/a.txt", []byte("changed\n"), 0o644)
		afero.WriteFile(mem, "/ws/.git/config", []byte("[core]\n"), 0o644)
		dir := "/ws/.applypatch-journal"
		data := record
		if sealed {
			dir = "/ws/" + txn.JournalName(fuzzKey, "0123456789ab")
			data = txn.Seal(fuzzKey, filepath.Base(dir), record)
		}
		afero.WriteFile(mem, dir+"/journal.json", data, 0o600)
		afero.WriteFile(mem, dir+"/b0", backup, 0o600)

		ffs := faultfs.New(mem)
		Recover(context.Background(), ffs, &Options{Workspace: "/ws", JournalKey: fuzzKey})
		for _, e := range ffs.Events() {
			name := filepath.Clean(e.Name)
			inside := strings.HasPrefix(name, "/ws/") || name == "/ws"
			if !inside && (writeOps[e.Op] || (name != "/" && name != ".")) {
				t.Fatalf("recovery did %s %q outside the workspace", e.Op, e.Name)
			}
		}
		if b, err := afero.ReadFile(mem, "/out/secret.txt"); err != nil || string(b) != "secret\n" {
			t.Fatalf("/out/secret.txt = %q, %v after recovery", b, err)
		}
	})
}
