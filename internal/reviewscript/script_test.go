package reviewscript_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/applypatch/applypatch/internal/reviewscript"
	"github.com/spf13/afero"
)

// twoFiles is a workspace of two files and a payload with two hunks on one.txt and one
// on two.txt.
var twoFiles = struct {
	files   map[string]string
	payload string
}{
	files: map[string]string{
		"one.txt": "alpha\nold one\nbeta\ngamma\ndelta\nepsilon\nzeta\nold two\neta\n",
		"two.txt": "first\nold three\nlast\n",
	},
	payload: "*** Begin Patch\n*** Update File: one.txt\n@@ alpha\n-old one\n+new one\n@@ zeta\n-old two\n+new two\n" +
		"*** Update File: two.txt\n@@ first\n-old three\n+new three\n*** End Patch\n",
}

// resolve writes files into an in-memory workspace /ws and resolves payload on it.
func resolve(t *testing.T, files map[string]string, payload string) (afero.Fs, *applypatch.Proposal) {
	t.Helper()
	fsys := afero.NewMemMapFs()
	for name, content := range files {
		if err := afero.WriteFile(fsys, "/ws/"+name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pr, err := applypatch.ResolvePayload(context.Background(), fsys, payload, &applypatch.Options{Workspace: "/ws", Mode: applypatch.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	return fsys, pr
}

// parse parses a script with no revise files.
func parse(t *testing.T, src string) *reviewscript.Script {
	t.Helper()
	sc, err := reviewscript.Parse("review.txt", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A failed submit leaves the review open and the script goes on, saying so to Log
// (R10, X7).
func TestScriptFailedSubmitGoesOn(t *testing.T) {
	fsys, pr := resolve(t, twoFiles.files, twoFiles.payload)
	if err := afero.WriteFile(fsys, "/ws/two.txt", []byte("moved on\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	sc := parse(t, "feedback one.txt 1 keep it\nsubmit\ndeselect two.txt\nsubmit\n")
	sc.Log = &log
	res, err := applypatch.Review(context.Background(), pr, sc)
	if err != nil || res.Applied != 1 {
		t.Fatalf("%v\n%s", err, res.Text())
	}
	if !strings.Contains(log.String(), "review.txt, line 2: submit: file changed during review: two.txt") {
		t.Errorf("log: %q", log.String())
	}
}

// An action the session refuses ends the script with an *Error naming its line.
func TestScriptRefusedAction(t *testing.T) {
	_, pr := resolve(t, twoFiles.files, twoFiles.payload)
	res, err := applypatch.Review(context.Background(), pr, parse(t, "deselect one.txt 3\nsubmit\n"))
	var se *reviewscript.Error
	if !errors.As(err, &se) || se.Line != 1 || !errors.As(err, new(*applypatch.ReviewError)) {
		t.Errorf("err = %v, want an *Error at line 1 wrapping the session's *ReviewError", err)
	}
	if !strings.HasPrefix(res.Text(), "Error: review script review.txt, line 1: deselect: no change has that target") {
		t.Errorf("%s", res.Text())
	}
	_, pr = resolve(t, twoFiles.files, twoFiles.payload)
	if _, err := applypatch.Review(context.Background(), pr, parse(t, "feedback three.txt why\nsubmit\n")); err == nil ||
		!strings.Contains(err.Error(), `line 1: feedback: no change has that target: the patch does not touch "three.txt"`) {
		t.Errorf("unknown path: %v", err)
	}
}

// A settled review ignores the script's late lines and Log says which were not played
// (R10).
func TestScriptLinesAfterSettling(t *testing.T) {
	_, pr := resolve(t, twoFiles.files, twoFiles.payload)
	var log bytes.Buffer
	sc := parse(t, "submit\ndeselect one.txt\nsubmit\n")
	sc.Log = &log
	res, err := applypatch.Review(context.Background(), pr, sc)
	if err != nil || res.Applied != 3 {
		t.Errorf("a settled review ignores the script's late lines: %v %s", err, res.Text())
	}
	if want := "review script review.txt, line 2: the review settled at line 1, so this and the later lines were not played\n"; log.String() != want {
		t.Errorf("log = %q, want %q", log.String(), want)
	}
}

// A revise action adopts the FILE's content as the file's result: the two nearby
// changes become one derived hunk (R8, R9).
func TestScriptRevise(t *testing.T) {
	const greet = "package greet\nfunc hello() string {\n\treturn \"hello\"\n}\nfunc bye() string {\n\treturn \"bye\"\n}\n"
	const payload = "*** Begin Patch\n*** Update File: greet.go\n@@ func hello\n-\treturn \"hello\"\n+\treturn \"hello, world\"\n" +
		"@@ func bye\n-\treturn \"bye\"\n+\treturn \"goodbye\"\n*** End Patch\n"
	edited := strings.NewReplacer(`"hello"`, `"hello, world"`, `"bye"`, `"see you"`).Replace(greet)
	fsys, pr := resolve(t, map[string]string{"greet.go": greet}, payload)
	var asked []string
	sc, err := reviewscript.Parse("review.txt", "revise greet.go edited.go\nsubmit\n", func(file string) (string, error) {
		asked = append(asked, file)
		return edited, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := applypatch.Review(context.Background(), pr, sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "edited.go" {
		t.Errorf("files read: %q", asked)
	}
	if !strings.HasPrefix(res.Text(), "Applied patch: 1 change (1 revised by the user during review)\n") ||
		!strings.HasSuffix(res.Text(), "\nApplied: greet.go hunk 1") {
		t.Errorf("result:\n%s", res.Text())
	}
	if b, _ := afero.ReadFile(fsys, "/ws/greet.go"); string(b) != edited {
		t.Errorf("greet.go = %q, want the revised %q", b, edited)
	}
}

// A cancelled context stops the script before its next action.
func TestScriptCancelled(t *testing.T) {
	fsys, pr := resolve(t, twoFiles.files, twoFiles.payload)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := applypatch.NewSession(pr)
	if err := parse(t, "submit\n").Review(ctx, s); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if b, _ := afero.ReadFile(fsys, "/ws/one.txt"); string(b) != twoFiles.files["one.txt"] {
		t.Errorf("one.txt was written: %q", b)
	}
}
