package history

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
)

// The name parsers are the patterns below, written out so that a process does not
// compile them (a bounded repetition compiles into dozens of copies) on every start.
var (
	entryPattern = regexp.MustCompile(`^([0-9]{10})-([0-9a-f]{12,64})(?:\.([0-9]{1,18}))?\.entry$`)
	keptPattern  = regexp.MustCompile(`^([0-9a-f]{12,64})\.([0-9]{1,18})\.kept$`)
	filePattern  = regexp.MustCompile(`^b[0-9]{1,9}$`)
)

// TestNamesAgreeWithPatterns (U1) holds the parsers to the patterns over random names built
// from the characters that matter to them.
func TestNamesAgreeWithPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"0", "7", "9", "a", "f", "g", "A", "-", ".", "b", "entry", ".entry", ".kept", "kept", "0000000001", "00112233aabb", "00112233aabbccddeeff", ".4096"}
	matched := map[string]int{}
	for range 200000 {
		var name string
		for range r.IntN(8) {
			name += pieces[r.IntN(len(pieces))]
		}
		m := entryPattern.FindStringSubmatch(name)
		_, id, size, ok := entryName(name)
		want := int64(-1)
		if m != nil && m[3] != "" {
			want, _ = strconv.ParseInt(m[3], 10, 64)
		}
		if ok != (m != nil) || ok && (id != m[2] || size != want) {
			t.Fatalf("entryName(%q) = %q %d %v, the pattern says %q", name, id, size, ok, m)
		}
		k := keptPattern.FindStringSubmatch(name)
		kid, _, kok := keptName(name)
		if kok != (k != nil) || kok && kid != k[1] {
			t.Fatalf("keptName(%q) = %q %v, the pattern says %q", name, kid, kok, k)
		}
		matched["entry"] += len(m) / 4
		if m != nil && m[3] != "" {
			matched["sized entry"]++
		}
		matched["kept"] += len(k) / 3
		if filePattern.MatchString(name) {
			matched["file"]++
		}
		if keptFile(name) != filePattern.MatchString(name) {
			t.Fatalf("keptFile(%q) = %v, the pattern says otherwise", name, keptFile(name))
		}
	}
	if matched["entry"] == 0 || matched["sized entry"] == 0 || matched["kept"] == 0 || matched["file"] == 0 {
		t.Errorf("the random names never matched every pattern: %v", matched)
	}
}
