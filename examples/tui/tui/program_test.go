package tui

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// keystrokes are the bytes a terminal sends for the keys the program tests press.
var keystrokes = map[string]string{
	"tab": "\t", "space": " ", "enter": "\r", "ctrl+c": "\x03", "ctrl+k": "\x0b", "ctrl+s": "\x13",
}

// terminal is a fake terminal: keys typed into a pipe, the screen drawn into a buffer.
// The pipe is an operating-system pipe, as a terminal is a file: an editor run from the
// program inherits it instead of having it copied.
type terminal struct {
	in     *os.File
	keys   *os.File
	screen screen
}

// screen is what the program wrote, safe to read while it writes.
type screen struct {
	mu  sync.Mutex
	out strings.Builder
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// await blocks until the program has written text, or ctx ends.
func (s *screen) await(ctx context.Context, text string) bool {
	for !strings.Contains(s.String(), text) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	in, keys, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keys.Close(); in.Close() })
	return &terminal{in: in, keys: keys}
}

// reviewer returns a Reviewer on the fake terminal, 100×40.
func (term *terminal) reviewer(editor string) Reviewer {
	return Reviewer{Input: term.in, Output: &term.screen, Editor: editor,
		ProgramOptions: []tea.ProgramOption{tea.WithWindowSize(100, 40), tea.WithoutSignalHandler()}}
}

// press types keys (names of keystrokes, or text) into the terminal, from a goroutine:
// the program reads them as it runs.
func (term *terminal) press(keys ...string) {
	go func() {
		for _, k := range keys {
			if b, ok := keystrokes[k]; ok {
				k = b
			}
			if _, err := io.WriteString(term.keys, k); err != nil {
				return
			}
		}
	}()
}

// The Reviewer runs a real bubbletea program over a fake terminal: the keys deselect a
// hunk and apply the rest, and the session settles with what was written (R10).
func TestReviewerProgram(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, workspace+"/greet.go", []byte(greetFile), 0o644)
	p, err := applypatch.Parse(greetPayload)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := applypatch.Resolve(context.Background(), fsys, p, &applypatch.Options{Workspace: workspace, Mode: applypatch.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	term := newTerminal(t)
	term.press("n", "space", "ctrl+c", "ctrl+c")
	res, err := applypatch.Review(t.Context(), pr, term.reviewer(""))
	if err != nil {
		t.Fatalf("Review: %v\nscreen:\n%s", err, term.screen.String())
	}
	if want := "Applied patch: 1 change\nRejected: greet.go hunk 1\nApplied: greet.go hunk 2"; res.Text() != want {
		t.Errorf("result text:\n%s\nwant:\n%s", res.Text(), want)
	}
	written, _ := afero.ReadFile(fsys, workspace+"/greet.go")
	if want := strings.Replace(greetFile, `"bye"`, `"goodbye"`, 1); string(written) != want {
		t.Errorf("greet.go:\n%s\nwant:\n%s", written, want)
	}
	if !strings.Contains(term.screen.String(), "ApplyPatch · Apply 1 change in 1 file …") {
		t.Errorf("the submission's progress line is missing from the output")
	}
}

// The "e" key runs the editor with the terminal handed over (tea.ExecProcess), adopts
// what it leaves and goes on with the review (R8).
func TestReviewerProgramEdit(t *testing.T) {
	fsys := afero.NewMemMapFs()
	afero.WriteFile(fsys, workspace+"/greet.go", []byte(greetFile), 0o644)
	p, err := applypatch.Parse(greetPayload)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := applypatch.Resolve(context.Background(), fsys, p, &applypatch.Options{Workspace: workspace, Mode: applypatch.ModeAsk})
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(greetFile, `"bye"`, `"see you"`, 1)
	editor, _ := useFakeEditor(t, edited)
	term := newTerminal(t)
	term.press("e")
	go func() {
		if term.screen.await(t.Context(), "Adopted your edit of greet.go") {
			term.press("ctrl+c", "ctrl+c")
		}
	}()
	res, err := applypatch.Review(t.Context(), pr, term.reviewer(editor[0]))
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	if !strings.HasPrefix(res.Text(), "Applied patch: 1 change (1 revised by the user during review)") {
		t.Errorf("result text:\n%s", res.Text())
	}
	if written, _ := afero.ReadFile(fsys, workspace+"/greet.go"); string(written) != edited {
		t.Errorf("greet.go:\n%s\nwant:\n%s", written, edited)
	}
}
