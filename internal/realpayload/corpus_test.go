package realpayload_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// A source is a real file payloads are written against.
type source struct {
	lang  string // "go", "python", "c", "markdown"
	name  string // the path inside the workspace
	lines []string
}

// corpusRoots are where real files are read from: the Go tree always (it is there
// wherever the tests run), the others where the machine has them.
func corpusRoots() []struct{ lang, dir, ext string } {
	goroot := goRoot()
	roots := []struct{ lang, dir, ext string }{
		{"go", filepath.Join(goroot, "src"), ".go"},
		{"markdown", goroot, ".md"},
	}
	pys, _ := filepath.Glob("/usr/lib/python3.*")
	slices.Sort(pys)
	if len(pys) > 0 {
		roots = append(roots, struct{ lang, dir, ext string }{"python", pys[len(pys)-1], ".py"})
	}
	roots = append(roots, struct{ lang, dir, ext string }{"c", "/usr/include", ".h"},
		struct{ lang, dir, ext string }{"markdown", "/usr/share/doc", ".md"})
	return roots
}

// maxPerLang is how many files of each language are read.
const maxPerLang = 120

// loadCorpus reads up to maxPerLang text files of each language, spread over its tree
// in a fixed order, so the same machine always yields the same payloads.
func loadCorpus() map[string][]source {
	byLang := map[string][]source{}
	for _, r := range corpusRoots() {
		var names []string
		filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor" || d.Name() == "site-packages") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, r.ext) {
				names = append(names, p)
			}
			return nil
		})
		slices.Sort(names)
		step := max(1, len(names)/(maxPerLang*3))
		for i := 0; i < len(names) && len(byLang[r.lang]) < maxPerLang; i += step {
			if s, ok := readSource(r.lang, r.dir, names[i]); ok {
				byLang[r.lang] = append(byLang[r.lang], s)
			}
		}
	}
	return byLang
}

// readSource reads one file: UTF-8 text of 40 to 3,000 lines, LF line endings.
func readSource(lang, root, name string) (source, bool) {
	b, err := os.ReadFile(name)
	if err != nil || !utf8.Valid(b) || strings.ContainsAny(string(b), "\x00\r\f") {
		return source{}, false
	}
	text := strings.TrimSuffix(string(b), "\n")
	lines := strings.Split(text, "\n")
	if len(lines) < 40 || len(lines) > 3000 {
		return source{}, false
	}
	rel, _ := filepath.Rel(root, name)
	return source{lang: lang, name: filepath.ToSlash(rel), lines: lines}, true
}

// goRoot is the Go tree of the go command that runs the tests.
func goRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
