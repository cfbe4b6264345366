package applypatch

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"
)

// The benchmarks (PERF2) use the shapes of the shared workload generator: one
// 200,000-line file with 2,000 hunks, 2,000 files with one hunk each, a 100,000-line file
// with typographic punctuation and trailing blanks that the payload writes as ASCII (1,000
// fuzzy hunks), and 1,000 added files. They show that parse, resolve and commit scale
// with the payload and the files, not with hunks × file lines (PERF1, M10), and report
// allocations (PERF3). The whole-process comparison with GNU patch and git apply is the
// shared bench/compare.sh.

// benchSource returns the lines of a generated Go-like file.
func benchSource(fid, n int, rng *rand.Rand, fuzzy bool) []string {
	out := make([]string, 0, n+1)
	for i := range n {
		switch k := i % 8; {
		case k == 0:
			out = append(out, fmt.Sprintf("func f%d_%d(x int) int {", fid, i))
		case k == 6:
			out = append(out, "}")
		case k == 7:
			out = append(out, "")
		case fuzzy && k == 3:
			out = append(out, fmt.Sprintf("\t// \u201cstep\u201d %d \u2014 keep x\u2019s range  ", i))
		default:
			out = append(out, fmt.Sprintf("\tx = x*%d + %d // f%d l%d", k, rng.IntN(1000), fid, i))
		}
	}
	return append(out, fmt.Sprintf("// end of file %d", fid))
}

// benchASCII folds the generator's typographic characters the way a model would type them.
var benchASCII = strings.NewReplacer("\u201c", `"`, "\u201d", `"`, "\u2019", "'", "\u2014", "-")

// benchUpdate writes an Update section changing count evenly spaced lines.
func benchUpdate(b *strings.Builder, name string, lines []string, count int, fuzzy bool) {
	var slots []int
	for i := 8; i < len(lines)-8; i++ {
		if k := i % 8; k == 1 || k == 2 || k == 4 || k == 5 {
			slots = append(slots, i)
		}
	}
	step := max(1, len(slots)/max(1, count))
	fmt.Fprintf(b, "*** Update File: %s\n", name)
	for j := 0; j < len(slots) && j/step < count; j += step {
		p := slots[j]
		b.WriteString("@@\n")
		for i := p - 3; i < p+4; i++ {
			ctx := lines[i]
			if fuzzy {
				ctx = strings.TrimRight(benchASCII.Replace(ctx), " ")
			}
			if i == p {
				fmt.Fprintf(b, "-%s\n+%s + 1\n", ctx, lines[i])
			} else {
				fmt.Fprintf(b, " %s\n", ctx)
			}
		}
	}
}

// benchWorkload builds a filesystem and a payload.
func benchWorkload(kind string) (afero.Fs, string) {
	rng := rand.New(rand.NewPCG(1, 2))
	fsys := afero.NewMemMapFs()
	var b strings.Builder
	b.WriteString("*** Begin Patch\n")
	write := func(name string, lines []string) {
		afero.WriteFile(fsys, "/"+name, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	switch kind {
	case "bigfile", "fuzzy":
		n, hunks := 200_000, 2000
		if kind == "fuzzy" {
			n, hunks = 100_000, 1000
		}
		lines := benchSource(0, n, rng, kind == "fuzzy")
		write("pkg0/file0.go", lines)
		benchUpdate(&b, "pkg0/file0.go", lines, hunks, kind == "fuzzy")
	case "manyfiles":
		for fid := range 2000 {
			name := fmt.Sprintf("pkg%d/file%d.go", fid/100, fid)
			lines := benchSource(fid, 200, rng, false)
			write(name, lines)
			benchUpdate(&b, name, lines, 1, false)
		}
	case "adds":
		for fid := range 1000 {
			fmt.Fprintf(&b, "*** Add File: pkg%d/file%d.go\n", fid/100, fid)
			for _, l := range benchSource(fid, 100, rng, false) {
				fmt.Fprintf(&b, "+%s\n", l)
			}
		}
	}
	b.WriteString("*** End Patch\n")
	return fsys, b.String()
}

func BenchmarkParse(b *testing.B)     { benchParse(b, "bigfile") }
func BenchmarkParseAdds(b *testing.B) { benchParse(b, "adds") }

func benchParse(b *testing.B, kind string) {
	_, payload := benchWorkload(kind)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(payload); err != nil {
			b.Fatal(err)
		}
	}
}

func benchResolve(b *testing.B, kind string) {
	fsys, payload := benchWorkload(kind)
	p, err := Parse(payload)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Resolve(context.Background(), fsys, p, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolveExact(b *testing.B)     { benchResolve(b, "bigfile") }
func BenchmarkResolveFuzzy(b *testing.B)     { benchResolve(b, "fuzzy") }
func BenchmarkResolveManyFiles(b *testing.B) { benchResolve(b, "manyfiles") }

// benchCommit applies a workload on the operating system's filesystem, in a fresh
// directory each time: afero's MemMapFs renames by scanning every entry it holds, which
// would make a many-file commit measure afero rather than the transaction.
func benchCommit(b *testing.B, kind string) { benchCommitWith(b, kind, false) }

// benchCommitWith is benchCommit, with a history on the OS filesystem when history is
// set: the cost of recording, against the same commit without.
func benchCommitWith(b *testing.B, kind string, history bool) {
	mem, payload := benchWorkload(kind)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		root := b.TempDir()
		if err := afero.Walk(mem, "/", func(name string, fi fs.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			data, err := afero.ReadFile(mem, name)
			if err != nil {
				return err
			}
			dst := filepath.Join(root, name)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		}); err != nil {
			b.Fatal(err)
		}
		opts := &Options{Workspace: root}
		if history {
			opts.History = NewHistory(afero.NewOsFs(), filepath.Join(b.TempDir(), "history"))
		}
		b.StartTimer()
		if _, err := Apply(context.Background(), afero.NewOsFs(), payload, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCommit(b *testing.B)        { benchCommit(b, "manyfiles") }
func BenchmarkCommitBigFile(b *testing.B) { benchCommit(b, "bigfile") }
func BenchmarkCommitAdds(b *testing.B)    { benchCommit(b, "adds") }

// BenchmarkCommitRecorded is BenchmarkCommit and BenchmarkCommitBigFile with a history
// (U1): the history's share of a commit.
func BenchmarkCommitRecorded(b *testing.B)        { benchCommitWith(b, "manyfiles", true) }
func BenchmarkCommitRecordedBigFile(b *testing.B) { benchCommitWith(b, "bigfile", true) }
