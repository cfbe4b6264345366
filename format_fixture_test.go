package applypatch_test

// Format fixtures (issue 21): bytes that one build writes and a later build must still
// read, committed under testdata/formats as the build that wrote them left them. The
// tests here read them with the current build; the generators, skipped unless
// APPLYPATCH_WRITE_FIXTURES=1, show how each was made. Regenerating a fixture to make its
// test pass hides the very break the test exists to catch: do it only when the format's
// version changed on purpose, and keep the old fixture beside the new one while the old
// version is still meant to be read.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
	"github.com/spf13/afero"
)

// writeFixturesEnv names the variable that makes the generators rewrite the fixtures.
const writeFixturesEnv = "APPLYPATCH_WRITE_FIXTURES"

// formatsDir holds the format fixtures.
var formatsDir = filepath.Join("testdata", "formats")

// skipUnlessWriting skips a generator unless the fixtures are to be rewritten.
func skipUnlessWriting(t *testing.T) {
	t.Helper()
	if os.Getenv(writeFixturesEnv) != "1" {
		t.Skipf("set %s=1 to rewrite the fixtures in %s with this build", writeFixturesEnv, formatsDir)
	}
}

// The journal fixture: the workspace of a commit killed midway, its journal sealed with
// a fixed key that the host passes as Options.JournalKey, so that it verifies without
// the key file of whoever runs the tests.
const journalFixture = "journal_v2_killed.txtar"

// fixtureJournalKey is the key the journal fixture is sealed with: 32 bytes, fixed.
var fixtureJournalKey = []byte("applypatch journal fixture key 1")

// journalFixtureBaseline is the workspace before the killed commit: what recovery must
// give back, bytes and modes. The modes differ so that restoring a mode is checked.
var journalFixtureBaseline = map[string]fixtureFile{
	"a.txt":         {"one\ntwo\nthree\n", 0o640},
	"old.txt":       {"obsolete\n", 0o600},
	"src/moved.txt": {"alpha\nbeta\n", 0o755},
	"z.txt":         {"last\n", 0o644},
	"keep.txt":      {"untouched\n", 0o644},
}

// journalFixturePayload has every kind of step a journal records: an Update, an Add into
// a new directory, a Delete, a Move with an edit into a new directory, and a last Update
// that the kill cuts off after its temporary file is written and before its rename.
const journalFixturePayload = `*** Begin Patch
*** Update File: a.txt
@@
 one
-two
+TWO
*** Add File: sub/added.txt
+added
*** Delete File: old.txt
*** Update File: src/moved.txt
*** Move to: dst/moved.txt
@@
 alpha
-beta
+BETA
*** Update File: z.txt
@@
-last
+LAST
*** End Patch
`

// journalFixtureRestored are the paths, as authored, that recovery of the fixture puts
// back: every one the killed commit had changed. z.txt is not among them: the kill came
// before its rename, so it still holds its baseline, and only its temporary file goes.
var journalFixtureRestored = []string{"a.txt", "dst/moved.txt", "old.txt", "src/moved.txt", "sub/added.txt"}

// journalFixtureRemoved counts what recovery of the fixture removes besides the journal:
// z.txt's temporary file and the directories sub and dst.
const journalFixtureRemoved = 3

// TestWriteJournalFixture rewrites the journal fixture with this build: it commits
// journalFixturePayload on an in-memory workspace holding journalFixtureBaseline, with
// fixtureJournalKey, and stops it dead at the rename of z.txt's temporary file: that
// operation and every one after it fail, the rollback's included, as if the process had
// been killed there. What the workspace then holds is the fixture. (An in-memory
// filesystem has no hard links, so each baseline is kept as a copy, with the mode
// recorded in the journal; a copy restores on any filesystem, where a hard link could
// not be kept in an archive.)
func TestWriteJournalFixture(t *testing.T) {
	skipUnlessWriting(t)
	fsys := afero.NewMemMapFs()
	const root = "/ws"
	writeFixture(t, fsys, root, journalFixtureBaseline)
	dead := false
	crashing := faultfs.New(fsys, faultfs.FailEvery(func(op faultfs.Op, name string) bool {
		dead = dead || op == faultfs.OpRename && strings.HasPrefix(filepath.Base(name), ".z.txt.applypatch-")
		return dead
	}))
	opts := &applypatch.Options{Workspace: root, JournalKey: fixtureJournalKey}
	pr := mustResolve(t, crashing, journalFixturePayload, opts)
	if _, err := applypatch.Commit(context.Background(), pr); !errors.Is(err, faultfs.ErrInjected) {
		t.Fatalf("the commit was not cut off: %v", err)
	}
	if !dead {
		t.Fatal("the commit never reached the rename of z.txt's temporary file")
	}
	var comment strings.Builder
	fmt.Fprintf(&comment, `The workspace of a commit killed midway, as journal version 2 leaves it (issue 21).
Written by TestWriteJournalFixture (%s=1 go test -run TestWriteJournalFixture .)
and read by TestJournalFixtureFromEarlierBuildRecovers. Do not regenerate it to make
that test pass: a later build must recover what this one wrote.

The commit was stopped dead at the rename of z.txt's temporary file (that operation and
every one after it failed, the rollback's too). Its journal is sealed with the 32-byte
Options.JournalKey %q.
Each baseline is kept as a copy (b<step>), not a hard link. The payload it was committing:

%s
Before the commit the workspace held:
`, writeFixturesEnv, fixtureJournalKey, indent(journalFixturePayload))
	for _, name := range slices.Sorted(maps.Keys(journalFixtureBaseline)) {
		f := journalFixtureBaseline[name]
		fmt.Fprintf(&comment, "\t%s %04o %q\n", name, f.mode, f.data)
	}
	writeArchive(t, filepath.Join(formatsDir, journalFixture), comment.String(), fsys, root)
}

// TestJournalFixtureFromEarlierBuildRecovers loads the journal fixture, a commit killed
// midway by an earlier build, and recovers it with the fixed key: on an in-memory
// filesystem, on the operating system's, and through fs/rootfs. Recovery must put every
// file back to its baseline bytes and mode, remove the temporary file, the directories
// the commit created and the journal, and say what it restored. A key other than the
// one the journal was sealed with must not act on it at all.
func TestJournalFixtureFromEarlierBuildRecovers(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join(formatsDir, journalFixture))
	if err != nil {
		t.Fatal(err)
	}
	backends := []struct {
		name    string
		fsys    afero.Fs
		temp    bool // the workspace is a new temporary directory, else /ws
		confine bool // reads and writes go through fs/rootfs (Options.WorkspaceFs)
	}{
		{name: "MemMapFs", fsys: afero.NewMemMapFs()},
		{name: "OsFs", fsys: afero.NewOsFs(), temp: true},
		{name: "rootfs", fsys: afero.NewOsFs(), temp: true, confine: true},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			fsys, root := b.fsys, "/ws"
			if b.temp {
				root = t.TempDir()
			}
			if err := fsys.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			loadArchive(t, ar, fsys, root)
			opts := &applypatch.Options{Workspace: root}
			if b.confine {
				ws, err := rootfs.Open(root)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ws.Close() })
				opts.WorkspaceFs = ws
			}
			journals := journalDirs(t, fsys, root)
			if len(journals) != 1 {
				t.Fatalf("the fixture holds journals %v, want one", journals)
			}
			killed := readTree(t, fsys, root)
			want := baselineTree(journalFixtureBaseline)
			checkKilled(t, killed, journals[0])

			// Sealed with another key, the journal is neither read further nor acted on.
			other := *opts
			other.JournalKey = []byte("some other key, 32 bytes long!!!")
			r, err := applypatch.Recover(context.Background(), fsys, &other)
			if err != nil {
				t.Fatalf("recovery with another key: %v", err)
			}
			if r.Found || len(r.Restored) != 0 || r.Untrusted[journals[0]] == "" {
				t.Errorf("recovery with another key: %s; want the journal untrusted and nothing done", describe(r))
			}
			if diff := treeDiff(killed, readTree(t, fsys, root)); len(diff) != 0 {
				t.Fatalf("recovery with another key changed %v", diff)
			}

			opts.JournalKey = fixtureJournalKey
			r, err = applypatch.Recover(context.Background(), fsys, opts)
			if err != nil {
				t.Fatalf("recovery: %v (%s)", err, describe(r))
			}
			restored := slices.Sorted(slices.Values(r.Restored))
			if !r.Found || !slices.Equal(restored, journalFixtureRestored) || r.Removed != journalFixtureRemoved ||
				len(r.Left) != 0 || len(r.Untrusted) != 0 || r.Pending {
				t.Errorf("recovery: %s; want Found, Restored %v and Removed %d, nothing left or untrusted",
					describe(r), journalFixtureRestored, journalFixtureRemoved)
			}
			msg := r.String()
			for _, p := range journalFixtureRestored {
				if !strings.Contains(msg, p) {
					t.Errorf("recovery says %q, which does not name %s", msg, p)
				}
			}
			if !strings.HasPrefix(msg, "recovered an interrupted commit: restored ") {
				t.Errorf("recovery says %q", msg)
			}
			got := readTree(t, fsys, root)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(treeEntry{})); diff != "" {
				t.Errorf("after recovery the workspace is not its baseline (-want +got):\n%s", diff)
			}
			if left := journalDirs(t, fsys, root); len(left) != 0 {
				t.Errorf("journal left after recovery: %v", left)
			}

			// Recovered, the workspace has nothing more to recover.
			if r, err := applypatch.Recover(context.Background(), fsys, opts); err != nil || r.Found || r.String() != "" {
				t.Errorf("second recovery: %s, %v; want nothing found", describe(r), err)
			}
		})
	}
}

// checkKilled asserts that the fixture is a commit killed midway: the steps before the
// kill have taken effect, z.txt has not but its temporary file is written, and the
// journal holds its record and a backup of each path that existed.
func checkKilled(t *testing.T, killed fsTree, journal string) {
	t.Helper()
	wantFiles := map[string]string{
		"a.txt":         "one\nTWO\nthree\n",
		"sub/added.txt": "added\n",
		"dst/moved.txt": "alpha\nBETA\n",
		"z.txt":         "last\n",
		"keep.txt":      "untouched\n",
	}
	for name, data := range wantFiles {
		if e, ok := killed[name]; !ok || e.data != data {
			t.Errorf("the fixture's %s = %q, want %q, as the killed commit left it", name, e.data, data)
		}
	}
	for _, gone := range []string{"old.txt", "src/moved.txt"} {
		if _, ok := killed[gone]; ok {
			t.Errorf("the fixture holds %s, which the killed commit had removed", gone)
		}
	}
	temps := 0
	for name, e := range killed {
		if strings.HasPrefix(name, ".z.txt.applypatch-") {
			temps++
			if e.data != "LAST\n" {
				t.Errorf("z.txt's temporary file holds %q", e.data)
			}
		}
	}
	if temps != 1 {
		t.Errorf("the fixture holds %d temporary files of z.txt, want 1", temps)
	}
	// Steps in payload order: a.txt 0, sub/added.txt 1, old.txt 2, dst/moved.txt 3,
	// src/moved.txt 4, z.txt 5; those whose path existed have a backup.
	for _, n := range []string{"journal.json", "b0", "b2", "b4", "b5"} {
		if e, ok := killed[journal+"/"+n]; !ok || e.mode != 0o600 {
			t.Errorf("the journal's %s: %+v (present %t), want a private file", n, e, ok)
		}
	}
	if e := killed[journal]; !e.dir || e.mode != 0o700 {
		t.Errorf("the journal directory: %+v, want a private directory", e)
	}
}

// describe shows a Recovery's fields, which its String method words.
func describe(r *applypatch.Recovery) string {
	if r == nil {
		return "nil"
	}
	return fmt.Sprintf("Found %t, Restored %q, Removed %d, Left %q, Untrusted %q, Pending %t",
		r.Found, r.Restored, r.Removed, r.Left, r.Untrusted, r.Pending)
}

// journalDirs are the names in root that look like journals.
func journalDirs(t testing.TB, fsys afero.Fs, root string) []string {
	t.Helper()
	names, err := afero.Glob(fsys, filepath.Join(root, ".applypatch-journal*"))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

// baselineTree is the tree writeFixture makes of files: each file, and each directory
// above one with mode 0755 (loadArchive sets the modes the manifest lists exactly).
func baselineTree(files map[string]fixtureFile) fsTree {
	out := fsTree{}
	for name, f := range files {
		out[name] = treeEntry{mode: f.mode, data: f.data}
		for d := filepath.Dir(name); d != "."; d = filepath.Dir(d) {
			out[filepath.ToSlash(d)] = treeEntry{dir: true, mode: 0o755}
		}
	}
	return out
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n\t") + "\n"
}

// The manifest in an archive's comment lists what txtar cannot keep: each directory
// and file with its mode, and for a file its size and the start of its SHA-256, which
// restore a final newline txtar adds to a file that lacks one and catch an archive
// changed by hand (an editor trimming spaces, a checkout rewriting line ends):
//
//	dir 0755 NAME
//	file 0644 SIZE SHA256PREFIX NAME
const manifestHeader = "Manifest (made by writeArchive, read by loadArchive):\n"

// writeArchive writes the tree under root of fsys, with its manifest, as a txtar
// archive.
func writeArchive(t *testing.T, name, comment string, fsys afero.Fs, root string) {
	t.Helper()
	ar := &txtar.Archive{}
	var manifest strings.Builder
	err := afero.Walk(fsys, root, func(full string, fi fs.FileInfo, err error) error {
		if err != nil || full == root {
			return err
		}
		rel, err := filepath.Rel(root, full)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if fi.IsDir() {
			fmt.Fprintf(&manifest, "dir %04o %s\n", fi.Mode().Perm(), rel)
			return nil
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a file", rel)
		}
		data, err := afero.ReadFile(fsys, full)
		if err != nil {
			return err
		}
		fmt.Fprintf(&manifest, "file %04o %d %s %s\n", fi.Mode().Perm(), len(data), sumPrefix(data), rel)
		ar.Files = append(ar.Files, txtar.File{Name: rel, Data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ar.Comment = []byte(comment + "\n" + manifestHeader + manifest.String())
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", name)
}

func sumPrefix(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// loadArchive makes, under root of fsys, the tree an archive holds, with the modes,
// sizes and sums its manifest lists, set exactly whatever the umask.
func loadArchive(t *testing.T, ar *txtar.Archive, fsys afero.Fs, root string) {
	t.Helper()
	_, manifest, ok := strings.Cut(string(ar.Comment), manifestHeader)
	if !ok {
		t.Fatal("the archive has no manifest")
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	listed := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(manifest))
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), " ", 3)
		if len(fields) != 3 {
			t.Fatalf("manifest line %q", sc.Text())
		}
		mode, err := strconv.ParseUint(fields[1], 8, 32)
		if err != nil {
			t.Fatalf("manifest line %q: %v", sc.Text(), err)
		}
		perm := fs.FileMode(mode)
		switch fields[0] {
		case "dir":
			full := filepath.Join(root, filepath.FromSlash(fields[2]))
			if err := fsys.MkdirAll(full, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := fsys.Chmod(full, perm); err != nil {
				t.Fatal(err)
			}
		case "file":
			var size int
			var sum, name string
			if _, err := fmt.Sscanf(fields[2], "%d %s", &size, &sum); err != nil {
				t.Fatalf("manifest line %q: %v", sc.Text(), err)
			}
			name = strings.SplitN(fields[2], " ", 3)[2]
			data, ok := files[name]
			if !ok {
				t.Fatalf("the manifest lists %s, which the archive lacks", name)
			}
			if len(data) == size+1 && data[size] == '\n' {
				data = data[:size] // txtar ends every file with a newline
			}
			if len(data) != size || sumPrefix(data) != sum {
				t.Fatalf("the archive's %s is not what its manifest says (%d bytes, sha256 %s...): it was changed after it was written", name, size, sum)
			}
			full := filepath.Join(root, filepath.FromSlash(name))
			if err := afero.WriteFile(fsys, full, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := fsys.Chmod(full, perm); err != nil {
				t.Fatal(err)
			}
			listed[name] = true
		default:
			t.Fatalf("manifest line %q", sc.Text())
		}
	}
	for name := range files {
		if !listed[name] {
			t.Fatalf("the archive holds %s, which its manifest does not list", name)
		}
	}
}
