package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A record is the text of what one case showed. Everything written to it has the run's
// directories replaced with placeholders, longest first, so that a record names no
// temporary directory; text that is not plain UTF-8 is written Go-quoted, line by line,
// so that the record stays a text file that diff can show.
type record struct {
	buf   bytes.Buffer
	paths []string // longest first
	names map[string]string
}

func newRecord(root string) *record {
	r := &record{names: map[string]string{}}
	r.subst(root, "$ROOT")
	return r
}

// subst has every later mention of path written as name.
func (r *record) subst(path, name string) {
	r.paths = append(r.paths, path)
	r.names[path] = name
	sort.SliceStable(r.paths, func(i, j int) bool { return len(r.paths[i]) > len(r.paths[j]) })
}

func (r *record) norm(s string) string {
	for _, p := range r.paths {
		s = strings.ReplaceAll(s, p, r.names[p])
	}
	return s
}

func (r *record) line(s string) { r.buf.WriteString(r.norm(s) + "\n") }

// output writes a stream's bytes (normalised) with their length and hash, so that the
// record differs exactly when the bytes do.
func (r *record) output(label, s string) {
	s = r.norm(s)
	sum := sha256.Sum256([]byte(s))
	fmt.Fprintf(&r.buf, "--- %s: %d bytes sha256 %s\n", label, len(s), hex.EncodeToString(sum[:8]))
	r.text(s)
}

// text writes s a line at a time behind "| ", or "|q " and the Go-quoted line when the
// line holds a control character or is not UTF-8; a last line without a newline is
// marked.
func (r *record) text(s string) {
	if s == "" {
		return
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		if plain(body) {
			r.buf.WriteString("| " + body + "\n")
		} else {
			r.buf.WriteString("|q " + strconv.Quote(body) + "\n")
		}
		if !nl {
			r.buf.WriteString("\\ no newline at end\n")
		}
	}
}

func plain(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func (r *record) bytes() []byte { return r.buf.Bytes() }
