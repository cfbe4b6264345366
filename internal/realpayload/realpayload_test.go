// Package realpayload_test measures the library on payloads written the way models
// write them, against real files of this machine: the Go tree (always present where the
// tests run), and the Python standard library, C headers and Markdown documents where
// they are installed. Each case is generated from a fixed seed, applied in memory, and
// classified: applied as intended, refused, or a wrong tree (any result other than the
// intended one, or any write for a payload that must be refused). The test asserts that
// no case writes a wrong tree and that at least 97% of the cases a careful reader can
// place are applied.
package realpayload_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/applypatch/applypatch"
	"github.com/spf13/afero"
)

// perCategory is how many cases each category generates.
const perCategory = 60

// outcome is how one case ended.
type outcome int

const (
	outcomeApplied outcome = iota
	outcomeRefused
	outcomeWrong
)

// run applies a case in memory and classifies the outcome.
func run(c payloadCase) (outcome, error) {
	fsys := afero.NewMemMapFs()
	for name, body := range c.before {
		if err := afero.WriteFile(fsys, path.Join("/w", name), []byte(body), 0o644); err != nil {
			panic(err)
		}
	}
	_, err := applypatch.Apply(context.Background(), fsys, c.payload, &applypatch.Options{Workspace: "/w"})
	if err != nil {
		for name, body := range c.before {
			if b, _ := afero.ReadFile(fsys, path.Join("/w", name)); string(b) != body {
				return outcomeWrong, fmt.Errorf("refused, but %s changed: %w", name, err)
			}
		}
		return outcomeRefused, err
	}
	if c.want == nil {
		return outcomeWrong, fmt.Errorf("applied a payload that must be refused")
	}
	for name, body := range c.want {
		if b, _ := afero.ReadFile(fsys, path.Join("/w", name)); string(b) != body {
			return outcomeWrong, fmt.Errorf("%s differs from the intended result", name)
		}
	}
	return outcomeApplied, nil
}

// tally counts the outcomes of one category.
type tally struct {
	cases, determinable, applied, detApplied, refused, wrong int
}

func (t *tally) add(c payloadCase, o outcome) {
	t.cases++
	if c.determinable {
		t.determinable++
	}
	switch o {
	case outcomeApplied:
		t.applied++
		if c.determinable {
			t.detApplied++
		}
	case outcomeRefused:
		t.refused++
	case outcomeWrong:
		t.wrong++
	}
}

// generate makes the cases of every category from a fixed seed.
func generate(corpus []source) []payloadCase {
	g := &gen{r: rand.New(rand.NewPCG(10, 97)), corpus: corpus}
	var out []payloadCase
	for _, cat := range categories {
		for n, tries := 0, 0; n < perCategory && tries < perCategory*40; tries++ {
			c, ok := cat.gen(g, corpus[g.r.IntN(len(corpus))])
			if !ok {
				continue
			}
			c.category = cat.name
			out = append(out, c)
			n++
		}
	}
	return out
}

func TestRealisticPayloads(t *testing.T) {
	byLang := loadCorpus()
	if len(byLang["go"]) == 0 {
		t.Skip("no Go source tree to read payloads from")
	}
	var corpus []source
	langs := make([]string, 0, len(byLang))
	for lang := range byLang {
		langs = append(langs, lang)
	}
	slices.Sort(langs)
	for _, lang := range langs {
		corpus = append(corpus, byLang[lang]...)
		t.Logf("%s: %d files", lang, len(byLang[lang]))
	}
	tallies := map[string]*tally{}
	var total tally
	var notes []string
	for _, c := range generate(corpus) {
		o, err := run(c)
		if tallies[c.category] == nil {
			tallies[c.category] = &tally{}
		}
		tallies[c.category].add(c, o)
		total.add(c, o)
		if o == outcomeWrong || (o == outcomeRefused && c.determinable) {
			notes = append(notes, fmt.Sprintf("[%s] %v\n%s", c.category, err, c.payload))
		}
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "category\tcases\tdeterminable\tapplied\tapplied of determinable\trefused\twrong\t")
	for _, cat := range categories {
		if tl := tallies[cat.name]; tl != nil {
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", cat.name, tl.cases, tl.determinable, tl.applied, tl.detApplied, tl.refused, tl.wrong)
		}
	}
	fmt.Fprintf(w, "total\t%d\t%d\t%d\t%d\t%d\t%d\t\n", total.cases, total.determinable, total.applied, total.detApplied, total.refused, total.wrong)
	w.Flush()
	t.Log("\n" + b.String())
	if os.Getenv("REALPAYLOAD_NOTES") != "" {
		for _, n := range notes {
			t.Log(n)
		}
	}
	if total.wrong > 0 {
		t.Errorf("%d payloads wrote a wrong tree; want none (REALPAYLOAD_NOTES=1 shows them)", total.wrong)
	}
	if rate := float64(total.detApplied) / float64(max(total.determinable, 1)); rate < 0.97 {
		t.Errorf("applied %.1f%% of the determinable payloads; want at least 97%% (REALPAYLOAD_NOTES=1 shows the refusals)", 100*rate)
	}
}
