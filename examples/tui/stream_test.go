package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// piecewise is a reader that hands out its text in the given pieces, one per Read, as a
// model's stream arrives.
type piecewise struct{ pieces []string }

func (p *piecewise) Read(b []byte) (int, error) {
	if len(p.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.pieces[0])
	if n < len(p.pieces[0]) {
		p.pieces[0] = p.pieces[0][n:]
	} else {
		p.pieces = p.pieces[1:]
	}
	return n, nil
}

// H8: with --stream the command previews the patch while it arrives: once the Update's
// hunk is complete (the Add's header has come), the preview shows the hunk where it lands
// in greet.go, before the Add is complete; when the input ends the review applies it all.
func TestStreamPreviewsWhileArriving(t *testing.T) {
	dir, _ := workspace(t)
	cut := strings.Index(payload, "+# Notes") + len("+# No")
	var out, errOut bytes.Buffer
	in := &piecewise{pieces: []string{payload[:40], payload[40:cut], payload[cut:]}}
	code := run(context.Background(), []string{"-C", dir, "--stream"}, in, &out, &errOut, fakeTerminal(t, "\x03\x03"))
	if code != exitApplied {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errOut.String(), out.String())
	}
	frames := strings.Split(errOut.String(), clearScreen)[1:]
	if len(frames) != 2 {
		t.Fatalf("%d previews, want 2 (the Update, then both):\n%s", len(frames), errOut.String())
	}
	first := frames[0]
	for _, want := range []string{"Receiving the patch · ", "M greet.go", `4 + │ 	return "hello, world"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first preview lacks %q:\n%s", want, first)
		}
	}
	if strings.Contains(first, "notes.md") {
		t.Errorf("the first preview shows the Add before it is complete:\n%s", first)
	}
	if !strings.Contains(frames[1], "A docs/notes.md") {
		t.Errorf("the last preview lacks the Add:\n%s", frames[1])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "docs", "notes.md")); string(b) != "# Notes\n" {
		t.Errorf("docs/notes.md = %q", b)
	}
}

// --stream reads standard input; a payload argument beside it is a usage error.
func TestStreamWithArgumentIsUsage(t *testing.T) {
	dir, file := workspace(t)
	code, _, stderr := runCommand(t, "", "-C", dir, "--stream", file)
	if code != exitUsage || !strings.Contains(stderr, "give no payload argument") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
