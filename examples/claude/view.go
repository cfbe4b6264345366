package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// Bounds of what view reads and shows.
const (
	// viewFileBytes is the largest file view reads when Options.Limits.FileBytes is unset.
	viewFileBytes = 16 << 20
	// listEntries is the most entries a directory listing shows.
	listEntries = 1000
	// binarySniff is how much of a file is searched for a NUL byte.
	binarySniff = 8192
)

// view shows a file with line numbers, or lists a directory two levels deep. Only paths
// that land inside the workspace are read: forbidden paths never, outside ones not at
// all, protected ones (.git) only when an allow rule or the Authorizer allows them.
func (e *Editor) view(ctx context.Context, cmd Command) (string, error) {
	cp, err := e.classify(cmd.Path)
	if err != nil {
		return "", err
	}
	switch {
	case cp.Class == applypatch.ClassForbidden:
		return "", fmt.Errorf("%s: the path is, or leads to, a credential location, which this tool never reads", cmd.Path)
	case cp.Outside:
		return "", fmt.Errorf("%s: the path is outside the workspace (by '..', an absolute path or a symbolic link); "+
			"view reads only inside the workspace, so use a path inside it", cmd.Path)
	case cp.Class == applypatch.ClassProtected && !cp.Allowed:
		if err := e.authorizeRead(ctx, cp); err != nil {
			return "", err
		}
	}
	fsys, name, err := e.workspaceFile(cp)
	if err != nil {
		return "", err
	}
	info, err := fsys.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s: no such file or directory; view the workspace (path \".\") to find the right path", cmd.Path)
	case err != nil:
		return "", fmt.Errorf("%s: cannot be read: %w", cmd.Path, cause(err))
	case info.IsDir():
		if len(cmd.ViewRange) > 0 {
			return "", fmt.Errorf("%s: is a directory; view_range applies to files only", cmd.Path)
		}
		return listDir(fsys, name, cmd.Path)
	}
	limit := e.Options.Limits.FileBytes
	if limit <= 0 {
		limit = viewFileBytes
	}
	if info.Size() > limit {
		return "", fmt.Errorf("%s: the file has %d bytes, over the %d this tool reads", cmd.Path, info.Size(), limit)
	}
	b, err := afero.ReadFile(fsys, name)
	if err != nil {
		return "", fmt.Errorf("%s: cannot be read: %w", cmd.Path, cause(err))
	}
	text, err := e.decode(cp.Name, b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cmd.Path, err)
	}
	return e.numbered(cmd, text)
}

// authorizeRead asks the Authorizer about a protected path no allow rule covers.
func (e *Editor) authorizeRead(ctx context.Context, cp applypatch.ClassifiedPath) error {
	refused := fmt.Errorf("%s: the path is protected (such as .git/), and the host did not allow it; leave it alone", cp.Path)
	if e.Options.Authorizer == nil {
		return refused
	}
	mode := e.Options.Mode
	if mode == "" {
		mode = applypatch.ModeAsk
	}
	if err := e.Options.Authorizer.Authorize(ctx, mode, []applypatch.ClassifiedPath{cp}); err != nil {
		return fmt.Errorf("%w (%w)", refused, err)
	}
	return nil
}

// workspaceFile is where a workspace path is read: through WorkspaceFs at its name
// below the workspace when there is one, else on FS at the resolved name.
func (e *Editor) workspaceFile(cp applypatch.ClassifiedPath) (afero.Fs, string, error) {
	if e.Options.WorkspaceFs == nil {
		return e.FS, cp.Name, nil
	}
	root, err := e.classify(".")
	if err != nil {
		return nil, "", err
	}
	rel, err := filepath.Rel(root.Name, cp.Name)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, "", fmt.Errorf("%s: the path does not lie below the workspace", cp.Path)
	}
	return e.Options.WorkspaceFs, "/" + filepath.ToSlash(rel), nil
}

// decode turns a file's bytes into text: in the encoding the host declares for it, else
// UTF-8 without its byte-order mark. A file with a NUL byte near its start is binary.
func (e *Editor) decode(name string, b []byte) (string, error) {
	if bytes.IndexByte(b[:min(len(b), binarySniff)], 0) >= 0 {
		return "", errors.New("the file looks binary (it has a NUL byte); only text files can be viewed")
	}
	if e.Options.Encoding != nil {
		if enc, _ := e.Options.Encoding(name); enc != nil {
			d, err := enc.NewDecoder().Bytes(b)
			if err != nil {
				return "", fmt.Errorf("the file is not valid in its encoding: %w", err)
			}
			b = d
		}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

// numbered renders the lines view_range asks for (all by default), each prefixed with
// its 1-based number and ": " as the API's documentation shows, and cuts the text to
// MaxCharacters.
func (e *Editor) numbered(cmd Command, text string) (string, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	n := len(lines)
	start, end := 1, n
	switch len(cmd.ViewRange) {
	case 0:
		if n == 0 {
			return fmt.Sprintf("%s is empty.", cmd.Path), nil
		}
	case 2:
		start, end = cmd.ViewRange[0], cmd.ViewRange[1]
		if end == -1 {
			end = n
		}
		if start < 1 || start > n || end < start || end > n {
			return "", fmt.Errorf("view_range [%d, %d] is not a range of the file's lines, which are 1 to %d; "+
				"give [start, end] with 1 <= start <= end <= %d, or end -1 for the end of the file",
				cmd.ViewRange[0], cmd.ViewRange[1], n, n)
		}
	default:
		return "", fmt.Errorf("view_range must be two line numbers [start, end], not %d", len(cmd.ViewRange))
	}
	var b strings.Builder
	for i := start; i <= end; i++ {
		if i > start {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d: %s", i, lines[i-1])
	}
	return e.truncate(b.String(), start, n), nil
}

// truncate cuts a view to MaxCharacters characters, at the end of a line where one ends
// inside the budget, and says which lines it shows and how to see the rest.
func (e *Editor) truncate(out string, start, total int) string {
	if e.MaxCharacters <= 0 || utf8.RuneCountInString(out) <= e.MaxCharacters {
		return out
	}
	cut, k := out, 0
	for i := range out { // i is the byte offset of rune number k
		if k == e.MaxCharacters {
			cut = out[:i]
			break
		}
		k++
	}
	if nl := strings.LastIndexByte(cut, '\n'); nl > 0 {
		cut = cut[:nl]
	}
	last := start + strings.Count(cut, "\n")
	return fmt.Sprintf("%s\n[truncated to %d characters: this shows lines %d to %d of %d; view the rest with view_range [%d, -1]]",
		cut, e.MaxCharacters, start, last, total, last+1)
}

// listDir lists the entries of a directory and of its subdirectories, two levels deep,
// hidden ones (a name starting with ".") left out, as the API's tool describes. A
// symbolic link is listed, never followed.
func listDir(fsys afero.Fs, name, shown string) (string, error) {
	var out []string
	more := false
	var walk func(dir, rel string, depth int) error
	walk = func(dir, rel string, depth int) error {
		entries, err := afero.ReadDir(fsys, dir)
		if err != nil {
			return fmt.Errorf("%s: cannot be listed: %w", shown, cause(err))
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, en := range entries {
			if strings.HasPrefix(en.Name(), ".") {
				continue
			}
			if len(out) == listEntries {
				more = true
				return nil
			}
			r := path.Join(rel, en.Name())
			if !en.IsDir() {
				out = append(out, path.Join(shown, r))
				continue
			}
			out = append(out, path.Join(shown, r)+"/")
			if depth < 2 {
				if err := walk(path.Join(dir, en.Name()), r, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(name, "", 1); err != nil {
		return "", err
	}
	head := fmt.Sprintf("Files and directories up to 2 levels deep in %s, hidden items excluded:", shown)
	if len(out) == 0 {
		return head + "\n(none)", nil
	}
	if more {
		out = append(out, fmt.Sprintf("[listing cut at %d entries: view a subdirectory to see more]", listEntries))
	}
	return head + "\n" + strings.Join(out, "\n"), nil
}

// cause is a filesystem error without the path it names (a host path the model never
// gave), or err itself.
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
