package realpayload_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDump is a hook for .ci/differential, not a test: with APPLYPATCH_DUMP_CASES=DIR it
// writes every case TestRealisticPayloads generates (the same corpus, in the same order,
// from the same seed) to DIR/NNN/ as a conformance case is laid out: the files before
// under input/ and the payload as patch.txt, with the category in case.txt. Without the
// variable it is skipped.
func TestDump(t *testing.T) {
	dir := os.Getenv("APPLYPATCH_DUMP_CASES")
	if dir == "" {
		t.Skip("a hook for .ci/differential: set APPLYPATCH_DUMP_CASES=DIR")
	}
	byLang := loadCorpus()
	if len(byLang["go"]) == 0 {
		t.Skip("no Go source tree to read payloads from")
	}
	langs := make([]string, 0, len(byLang))
	for lang := range byLang {
		langs = append(langs, lang)
	}
	slices.Sort(langs)
	var corpus []source
	for _, lang := range langs {
		corpus = append(corpus, byLang[lang]...)
	}
	write := func(name, body string) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := generate(corpus)
	for i, c := range cases {
		d := filepath.Join(dir, fmt.Sprintf("%03d", i))
		for name, body := range c.before {
			write(filepath.Join(d, "input", filepath.FromSlash(name)), body)
		}
		write(filepath.Join(d, "patch.txt"), c.payload)
		write(filepath.Join(d, "case.txt"), fmt.Sprintf("%s, determinable %v\n", c.category, c.determinable))
	}
	t.Logf("wrote %d cases to %s", len(cases), dir)
}
