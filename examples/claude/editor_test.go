package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/fs/rootfs"
	"github.com/spf13/afero"
)

// TestCRLFTabs edits a file with a byte-order mark, CRLF line ends and tab indentation,
// the new text written with "\n" as a model writes it: the file comes back byte for byte
// as it was except for the change, whose new line ends in CRLF and keeps its tab.
func TestCRLFTabs(t *testing.T) {
	const before = "\xef\xbb\xbfpackage main\r\n\r\nfunc main() {\r\n\tprintln(\"hi\")\r\n}\r\n"
	const after = "\xef\xbb\xbfpackage main\r\n\r\nfunc main() {\r\n\tprintln(\"hi\")\r\n\tprintln(\"bye\")\r\n}\r\n"
	api := &fakeAPI{replies: []string{
		message("msg_1", toolUse("toolu_1", map[string]any{"command": "str_replace", "path": "main.go",
			"old_str": "\tprintln(\"hi\")\n", "new_str": "\tprintln(\"hi\")\n\tprintln(\"bye\")\n"})),
		done,
	}}
	agent, fsys := newAgent(t, api, map[string]string{"main.go": before})
	run(t, agent, api, 2)
	if got := fileText(fsys, "/ws/main.go"); got != after {
		t.Errorf("main.go = %q\nwant      %q", got, after)
	}
	if got := results(t, api.requests[1]); len(got) != 1 || got[0].isError {
		t.Errorf("tool results = %+v", got)
	}
}

// TestView views a file whole, with view_range (an end of -1 reads to the end) and with
// a bad range, cut to max_characters, and lists a directory: two levels deep, hidden
// entries left out, directories marked with "/".
func TestView(t *testing.T) {
	files := map[string]string{
		"notes.txt":       "one\n\ttwo\nthree\nfour\nfive\n",
		"src/a.go":        "package src\n",
		"src/pkg/deep.go": "package pkg\n",
		".hidden":         "x\n",
		".git/HEAD":       "ref: refs/heads/main\n",
	}
	view := func(input map[string]any) map[string]any { input["command"] = "view"; return input }
	api := &fakeAPI{replies: []string{
		message("msg_1",
			toolUse("toolu_range", view(map[string]any{"path": "notes.txt", "view_range": []int{2, 3}})),
			toolUse("toolu_tail", view(map[string]any{"path": "notes.txt", "view_range": []int{4, -1}})),
			toolUse("toolu_bad", view(map[string]any{"path": "notes.txt", "view_range": []int{4, 9}})),
			toolUse("toolu_dir", view(map[string]any{"path": "."})),
			toolUse("toolu_whole", view(map[string]any{"path": "/ws/notes.txt"})),
			toolUse("toolu_git", view(map[string]any{"path": ".git/HEAD"})),
			toolUse("toolu_missing", view(map[string]any{"path": "nope.txt"}))),
		done,
	}}
	agent, _ := newAgent(t, api, files)
	agent.Editor.MaxCharacters = 20
	run(t, agent, api, 2)
	want := []result{
		{id: "toolu_range", text: "2: \ttwo\n3: three"},
		{id: "toolu_tail", text: "4: four\n5: five"},
		{id: "toolu_bad", isError: true, text: "Error: view_range [4, 9] is not a range of the file's lines, which are 1 to 5; " +
			"give [start, end] with 1 <= start <= end <= 5, or end -1 for the end of the file"},
		{id: "toolu_dir", text: "Files and directories up to 2 levels deep in ., hidden items excluded:\n" +
			"notes.txt\nsrc/\nsrc/a.go\nsrc/pkg/"},
		{id: "toolu_whole", text: "1: one\n2: \ttwo\n" +
			"[truncated to 20 characters: this shows lines 1 to 2 of 5; view the rest with view_range [3, -1]]"},
		{id: "toolu_git", isError: true, text: "Error: .git/HEAD: the path is protected (such as .git/), and the host did not allow it; leave it alone"},
		{id: "toolu_missing", isError: true, text: "Error: nope.txt: no such file or directory; view the workspace (path \".\") to find the right path"},
	}
	got := results(t, api.requests[1])
	if len(got) != len(want) {
		t.Fatalf("tool results = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %+v\nwant        %+v", i, got[i], want[i])
		}
	}
}

// TestViewWorkspaceFs views through an os.Root-confined WorkspaceFs on a real
// directory, as the command does: a file and a listing, and a link that leads out of
// the workspace is refused.
func TestViewWorkspaceFs(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("package src\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "leak.txt"))
	confined, err := rootfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer confined.Close()
	e := &Editor{FS: afero.NewOsFs(), Options: applypatch.Options{Workspace: dir, WorkspaceFs: confined, Mode: applypatch.ModeEdits}}
	for _, tc := range []struct{ path, want string }{
		{"src/a.go", "1: package src"},
		{"src", "Files and directories up to 2 levels deep in src, hidden items excluded:\nsrc/a.go"},
		{"leak.txt", "Error: leak.txt: the path is outside the workspace"},
	} {
		text, err := e.run(t.Context(), Command{Command: "view", Path: tc.path})
		if err != nil {
			text = "Error: " + err.Error()
		}
		if !strings.HasPrefix(text, tc.want) {
			t.Errorf("view %s = %q, want %q…", tc.path, text, tc.want)
		}
	}
}

// TestInsert inserts at the top (insert_line 0) and after the last line, then past the
// end, which is an error naming the file's length.
func TestInsert(t *testing.T) {
	api := &fakeAPI{replies: []string{
		message("msg_1", toolUse("toolu_top", map[string]any{"command": "insert", "path": "list.txt", "insert_line": 0, "insert_text": "top\n"})),
		message("msg_2", toolUse("toolu_end", map[string]any{"command": "insert", "path": "list.txt", "insert_line": 3, "insert_text": "end"})),
		message("msg_3", toolUse("toolu_past", map[string]any{"command": "insert", "path": "list.txt", "insert_line": 9, "insert_text": "x"})),
		done,
	}}
	agent, fsys := newAgent(t, api, map[string]string{"list.txt": "a\nb\n"})
	run(t, agent, api, 4)
	if got := fileText(fsys, "/ws/list.txt"); got != "top\na\nb\nend\n" {
		t.Errorf("list.txt = %q", got)
	}
	for i, id := range []string{"toolu_top", "toolu_end"} {
		want := []result{{id: id, text: "Applied patch: 1 change\nApplied: list.txt hunk 1"}}
		if got := results(t, api.requests[i+1]); !equal(got, want) {
			t.Errorf("tool result = %+v, want %+v", got, want)
		}
	}
	past := results(t, api.requests[3])
	if len(past) != 1 || !past[0].isError || !strings.Contains(past[0].text, "cannot insert after line 9: the file has 4 lines") {
		t.Errorf("tool result past the end = %+v", past)
	}
}

// TestCreate creates a file in a new directory and refuses to create one that exists,
// with a message that names the commands to use instead.
func TestCreate(t *testing.T) {
	api := &fakeAPI{replies: []string{
		message("msg_1",
			toolUse("toolu_new", map[string]any{"command": "create", "path": "notes/todo.txt", "file_text": "buy milk\ncall home"}),
			toolUse("toolu_old", map[string]any{"command": "create", "path": "greet.txt", "file_text": "replaced\n"})),
		done,
	}}
	agent, fsys := newAgent(t, api, map[string]string{"greet.txt": "hello\n"})
	run(t, agent, api, 2)
	if got := fileText(fsys, "/ws/notes/todo.txt"); got != "buy milk\ncall home\n" {
		t.Errorf("notes/todo.txt = %q", got)
	}
	if got := fileText(fsys, "/ws/greet.txt"); got != "hello\n" {
		t.Errorf("greet.txt = %q, want it unchanged", got)
	}
	want := []result{
		{id: "toolu_new", text: "Applied patch: 1 change\nApplied: notes/todo.txt"},
		{id: "toolu_old", isError: true, text: "Error: greet.txt: the file already exists, and create only makes new files; " +
			"view it and change it with str_replace or insert, or choose another path. Nothing was changed."},
	}
	if got := results(t, api.requests[1]); !equal(got, want) {
		t.Errorf("tool results = %+v\nwant %+v", got, want)
	}
}

// TestPromptReviewer answers the command's terminal reviewer as a person would: feedback
// text rejects the change and sends the text to the model, "y" applies the next one. The
// person was shown the diff and the question.
func TestPromptReviewer(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, "/ws/greet.txt", []byte("hello\nworld\n"), 0o644)
	var screen strings.Builder
	e := &Editor{FS: fsys, Options: applypatch.Options{Workspace: "/ws"},
		Reviewer: &PromptReviewer{In: bufio.NewReader(strings.NewReader("say planet, not there\ny\n")), Out: &screen}}
	edit := Command{Command: "str_replace", Path: "greet.txt", OldStr: ptr("world"), NewStr: ptr("there")}
	text, err := e.run(t.Context(), edit)
	if want := "Patch revision requested\nFeedback (whole patch): say planet, not there\nRejected: greet.txt hunk 1"; err != nil || text != want {
		t.Errorf("first answer: %q, %v; want %q", text, err, want)
	}
	edit.NewStr = ptr("planet")
	if text, err := e.run(t.Context(), edit); err != nil || text != "Applied patch: 1 change\nApplied: greet.txt hunk 1" {
		t.Errorf("second answer: %q, %v", text, err)
	}
	if got := fileText(fsys, "/ws/greet.txt"); got != "hello\nplanet\n" {
		t.Errorf("greet.txt = %q", got)
	}
	t.Logf("the person saw:%s", screen.String())
	if s := screen.String(); !strings.Contains(s, "2 + │ there") || !strings.Contains(s, "Apply? [y]es, [n]o, or type feedback for Claude: ") {
		t.Errorf("the person saw %q", s)
	}
}

// ptr returns a pointer to s.
func ptr(s string) *string { return &s }
