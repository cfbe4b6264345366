package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/faultfs"
	"github.com/applypatch/applypatch/internal/prefault"
	"github.com/applypatch/applypatch/internal/reviewscript"
	"github.com/spf13/afero"
)

// TestWorkspaceWritesGoThroughRoot checks the CLI's TOCTOU design (F1, H5): every write
// inside the workspace goes through the os.Root, never through the plain filesystem the
// paths are resolved on, so a link swapped in at the last moment cannot redirect it. The
// plain filesystem here fails every change; the workspace patch still applies, and only
// an allowed outside path reaches it.
func TestWorkspaceWritesGoThroughRoot(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(ws, "src"), 0o755)
	os.WriteFile(filepath.Join(ws, "src", "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "old.txt"), []byte("old\n"), 0o644)
	saved := hostFs
	defer func() { hostFs = saved }()
	var watched *faultfs.Fs
	hostFs = func() afero.Fs {
		watched = faultfs.New(afero.NewOsFs(), faultfs.FailEvery(nil))
		return watched
	}

	inside := "*** Begin Patch\n*** Update File: src/a.txt\n@@\n-a\n+A\n*** Add File: new/b.txt\n+b\n" +
		"*** Update File: old.txt\n*** Move to: moved/old.txt\n*** End Patch\n"
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"-C", ws, inside}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n := watched.Count(); n != 0 {
		t.Errorf("%d changes reached the plain filesystem: %v", n, watched.Events())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "moved", "old.txt")); string(b) != "old\n" {
		t.Errorf("moved/old.txt = %q", b)
	}

	outside := "*** Begin Patch\n*** Add File: ../out.txt\n+o\n*** End Patch\n"
	stderr.Reset()
	if code := Run([]string{"--allow-outside", "-C", ws, outside}, nil, &stdout, &stderr); code != 1 {
		t.Fatalf("outside write through a failing filesystem: exit %d, want 1", code)
	}
	if watched.Count() == 0 {
		t.Error("the outside write did not reach the plain filesystem")
	}
	if strings.Contains(stderr.String(), base) {
		t.Errorf("error names a host path: %s", stderr.String())
	}
}

// TestExitIncompleteRollback: a commit that fails and cannot restore a path it wrote
// exits 3, names the path and tells the user to inspect it (H5, X6).
func TestExitIncompleteRollback(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		dir := t.TempDir()
		for name, data := range map[string]string{"a.txt": "a1\n", "b.txt": "b1\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		payload := "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+A1\n*** Update File: b.txt\n@@\n-b1\n+B1\n*** End Patch\n"
		// The first rename writes a.txt; every later one fails, b.txt's and then the
		// one that would restore a.txt.
		renames := 0
		inject := func(ws afero.Fs) afero.Fs {
			return faultfs.New(ws, faultfs.FailEvery(func(op faultfs.Op, _ string) bool {
				if op != faultfs.OpRename {
					return false
				}
				renames++
				return renames > 1
			}))
		}
		args := []string{"-C", dir, payload}
		if asJSON {
			args = append([]string{"--json"}, args...)
		}
		var stdout, stderr bytes.Buffer

		code := run(args, strings.NewReader(""), &stdout, &stderr, inject)

		if code != exitIncomplete {
			t.Fatalf("json=%v: exit %d, want %d\nstdout: %s\nstderr: %s", asJSON, code, exitIncomplete, &stdout, &stderr)
		}
		out := stdout.String() // the result, failure included, is on stdout
		if asJSON {
			var res struct{ Text string }
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			out = res.Text
		}
		for _, want := range []string{"rollback incomplete", "a.txt", "Inspect them before retrying", "injected fault"} {
			if !strings.Contains(out, want) {
				t.Errorf("json=%v: output lacks %q:\n%s", asJSON, want, out)
			}
		}
		for name, want := range map[string]string{"a.txt": "A1\n", "b.txt": "b1\n"} {
			if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
				t.Errorf("json=%v: %s = %q, want %q", asJSON, name, got, want)
			}
		}
	}
}

// TestEncodingFlag: names resolve through the IANA index and the alias table; bad
// values are usage errors.
func TestEncodingFlag(t *testing.T) {
	for in, want := range map[string]string{
		"*.txt=latin-1":          "ISO-8859-1",
		"*.txt=LATIN1":           "ISO-8859-1",
		"*.txt=iso-latin-1-unix": "ISO-8859-1",
		"*.c=cp1252":             "windows-1252",
		"*=windows-1252":         "windows-1252",
		"*.txt=sjis":             "Shift_JIS",
		"a=b/*.txt=UTF-16LE":     "UTF-16LE",
		"*.txt=utf8":             "UTF-8",
	} {
		var f encodingFlags
		if err := f.Set(in); err != nil {
			t.Errorf("Set(%q): %v", in, err)
			continue
		}
		if f[0].name != want {
			t.Errorf("Set(%q) = %s, want %s", in, f[0].name, want)
		}
	}
	for _, in := range []string{"latin-1", "*.txt=", "=latin-1", "*.txt=klingon", "[=latin-1", "*.txt=windows-31j"} {
		var f encodingFlags
		if err := f.Set(in); err == nil {
			t.Errorf("Set(%q) succeeded, want an error", in)
		}
	}
}

// TestEncodingRules: the last matching rule wins; a glob without a slash matches the
// file name anywhere, one with a slash the path from the root.
func TestEncodingRules(t *testing.T) {
	var f encodingFlags
	for _, s := range []string{"*.txt=latin-1", "legacy/*.txt=windows-1252", "*.md=utf-8"} {
		if err := f.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	declared := f.declared("/ws")
	for name, want := range map[string]string{
		"/ws/a.txt":            "ISO-8859-1",
		"/ws/deep/dir/b.txt":   "ISO-8859-1",
		"/ws/legacy/c.txt":     "windows-1252",
		"/ws/legacy/sub/d.txt": "ISO-8859-1",
		"/ws/readme.md":        "UTF-8",
		"/ws/main.go":          "",
	} {
		if _, got := declared(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if enc, _ := declared("/ws/readme.md"); enc != nil {
		t.Errorf("UTF-8 declared as %v, want the default (nil)", enc)
	}
}

// TestReviewPayloadCap: the review path checks the payload's size like every other, so
// a payload over the cap is refused before it is parsed (T5).
func TestReviewPayloadCap(t *testing.T) {
	dir := t.TempDir()
	payload := "*** Begin Patch\n*** Add File: b.txt\n+hello\n*** End Patch\n"
	script, err := reviewscript.Parse("review.txt", "submit\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &applypatch.Options{Workspace: dir, Mode: applypatch.ModeAsk, Limits: applypatch.Limits{Payload: len(payload) - 1}}
	res, err := review(context.Background(), afero.NewOsFs(), payload, opts, script)
	if !errors.As(err, new(*applypatch.ParseError)) {
		t.Fatalf("review: err = %v, want a ParseError", err)
	}
	if !strings.Contains(res.Text(), "over the limit of") {
		t.Errorf("result = %q, want the limit named", res.Text())
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b.txt was created: %v", err)
	}
}

// TestEncodingRulesThroughLinkedRoot: a glob with a slash matches the path from the
// root also when the root is given through a symbolic link and the library asks with
// the resolved name (T3).
func TestEncodingRulesThroughLinkedRoot(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(filepath.Join(real, "legacy"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var f encodingFlags
	if err := f.Set("legacy/*.txt=windows-1252"); err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(filepath.Join(real, "legacy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{link, real} {
		if _, got := f.declared(root)(filepath.Join(resolved, "a.txt")); got != "windows-1252" {
			t.Errorf("root %s: %q, want windows-1252", root, got)
		}
	}
}

// countingReader counts the bytes read from an endless stream.
type countingReader struct{ n int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	r.n += int64(len(p))
	return len(p), nil
}

// TestReadPayloadStopsAtLimit: PERF4. An endless standard input is read no further than
// the payload limit plus one byte, then refused as over the limit.
func TestReadPayloadStopsAtLimit(t *testing.T) {
	const limit = 1 << 20
	r := &countingReader{}
	_, err := readPayload(nil, r, limit)
	if !errors.As(err, new(*applypatch.ParseError)) {
		t.Fatalf("error %v, want a *ParseError", err)
	}
	if r.n > limit+1 {
		t.Errorf("read %d bytes, want at most %d", r.n, limit+1)
	}
}

// TestReadPayloadStreamHeldTwiceAtMost: PERF4. A stream is read in chunks joined once, so
// reading a payload allocates at most about twice its size (no growing buffer's copies),
// and one over the limit the limit and one chunk.
func TestReadPayloadStreamHeldTwiceAtMost(t *testing.T) {
	const limit = 4 << 20
	allocated := func(r io.Reader) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		readPayload(nil, r, limit)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	within := strings.NewReader("*** Begin Patch\n" + strings.Repeat("x", limit-32) + "\n*** End Patch\n")
	if got := allocated(io.MultiReader(within)); got > 2*limit+limit/8 {
		t.Errorf("reading a %d-byte payload allocated %d bytes, want at most about twice its size", limit, got)
	}
	if got := allocated(&countingReader{}); got > limit+readChunk+64<<10 {
		t.Errorf("reading past the limit allocated %d bytes, want the limit (%d) and one chunk", got, limit)
	}
}

// TestReadPayloadFileHeldOnce: PERF4, PERF5. A payload in a regular file (standard
// input redirected from one, or a PAYLOAD_FILE) is read into one buffer of its size,
// which becomes the payload without a copy; in the command's process, a buffer of 2 MB
// or more starts on a huge page's boundary (the room before it is allocated, never
// touched). A file over the limit is refused.
func TestReadPayloadFileHeldOnce(t *testing.T) {
	prefault.OneShot() // as Run declares
	const size = 2 << 20
	name := filepath.Join(t.TempDir(), "payload")
	want := "*** Begin Patch\n" + strings.Repeat("x", size-32) + "\n*** End Patch\n"
	if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(limit int) (string, uint64, error) {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got, err := readPayload(nil, f, limit)
		runtime.ReadMemStats(&after)
		return got, after.TotalAlloc - before.TotalAlloc, err
	}
	got, allocated, err := read(4 << 20)
	if err != nil || got != want {
		t.Fatalf("read %d bytes (%v), want the file's %d", len(got), err, len(want))
	}
	if room := uint64(2 << 20); allocated > uint64(len(want))+room+16<<10 {
		t.Errorf("reading a %d-byte payload file allocated %d bytes, want its size once and the room before a boundary", len(want), allocated)
	}
	if at := uintptr(unsafe.Pointer(unsafe.StringData(got))); runtime.GOOS == "linux" && at%(2<<20) != 0 {
		t.Errorf("a %d-byte payload starts at %#x, not on a huge page's boundary", len(want), at)
	}
	if _, _, err := read(1 << 20); !errors.As(err, new(*applypatch.ParseError)) {
		t.Errorf("a file over the limit: error %v, want a *ParseError", err)
	}
}

// TestUsageExitCodes checks the exit codes of the usage paths (H5): --help succeeds on
// stdout, and so does --version; a bad flag, a missing -C, --diff without --check, an
// argument that names no file and two arguments are usage errors, one line on stderr.
func TestUsageExitCodes(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout bool
	}{
		{args: []string{"--help"}, code: exitApplied, stdout: true},
		{args: []string{"-h"}, code: exitApplied, stdout: true},
		{args: []string{"--version"}, code: exitApplied, stdout: true},
		{args: []string{"nonexistent-payload"}, code: exitUsage},
		{args: []string{"-", "x"}, code: exitUsage},
		{args: []string{"--chek"}, code: exitUsage},
		{args: []string{"-C", filepath.Join(t.TempDir(), "missing"), "x"}, code: exitUsage},
		{args: []string{"--diff", "x"}, code: exitUsage},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Run(tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || (stdout.Len() > 0) != tt.stdout || (stderr.Len() > 0) == tt.stdout {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tt.args, code, stdout.String(), stderr.String())
		}
		if !tt.stdout && strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: stderr is not one line: %q", tt.args, stderr.String())
		}
	}
}
