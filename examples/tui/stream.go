package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// clearScreen moves to the top of the terminal and clears it, so each preview replaces
// the one before.
const clearScreen = "\x1b[H\x1b[2J"

// streamPayload reads the payload from r while it arrives (a model writing it) and, each
// time a section or a hunk completes, draws on w the patch so far as the review will show
// it: resolved read-only, every hunk where it would land. It returns the whole payload
// once r ends; nothing is written before the review.
func streamPayload(ctx context.Context, r io.Reader, w io.Writer, opts *applypatch.Options) (string, error) {
	var s applypatch.Stream
	var all strings.Builder
	buf := make([]byte, 32<<10)
	shown := ""
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.Write(buf[:n])
			all.Write(buf[:n])
			shown = preview(ctx, w, s.Patch(), opts, shown, all.Len())
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	if all.Len() == 0 {
		return "", errNoPayload
	}
	return all.String(), nil
}

// preview draws the patch so far unless it is what was drawn last (shown, a summary of
// its shape), and returns what it drew.
func preview(ctx context.Context, w io.Writer, p *applypatch.Patch, opts *applypatch.Options, shown string, size int) string {
	if p == nil {
		return shown
	}
	shape := fmt.Sprint(len(p.Ops))
	for _, op := range p.Ops {
		shape += fmt.Sprintf(" %d", len(op.Hunks))
	}
	if shape == shown {
		return shown
	}
	frame := clearScreen + fmt.Sprintf("Receiving the patch · %s bytes so far\n\n", thousands(size))
	if pr, err := applypatch.Resolve(ctx, afero.NewOsFs(), p, opts); err != nil {
		frame += "So far: " + firstLine(err.Error()) + "\n"
	} else {
		frame += applypatch.NewSession(pr).Render()
	}
	io.WriteString(w, frame)
	return shape
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
