package applypatch

import "testing"

// binaryRewrite is a Delete then an Add of a file that looks binary (P17, T1), after an
// Update of a text file.
var binaryRewrite = struct{ file, payload string }{
	file: "a\x00b\n",
	payload: patch("*** Update File: one.txt", "@@", "-one", "+ONE",
		"*** Delete File: blob.dat", "*** Add File: blob.dat", "+text"),
}

// wholeFiles are the files binaryRewrite applies to.
func wholeFiles() map[string]string {
	return map[string]string{"one.txt": "one\n", "blob.dat": binaryRewrite.file}
}

// P17, R1: a rewrite of a file with no lines is selected or rejected as one change,
// through the file or through its one hunk alike.
func TestWholeRewriteSelectedAsOne(t *testing.T) {
	for _, target := range []Target{{File: 2}, {File: 2, Hunk: 1}} {
		f := newFixture(t, wholeFiles(), binaryRewrite.payload)
		f.must(f.s.Select(target, false, nil))
		res := f.submit()
		if got := f.read("blob.dat"); got != binaryRewrite.file {
			t.Errorf("%+v rejected: file = %q", target, got)
		}
		if res.Applied != 1 || res.Total != 2 || !hasLine(res.Text(), "Rejected: blob.dat") {
			t.Errorf("%+v rejected: result %d/%d\n%s", target, res.Applied, res.Total, res.Text())
		}
	}
}

// P17, R8: a person's revision of such a rewrite is what is written, not the payload's
// content.
func TestWholeRewriteRevised(t *testing.T) {
	f := newFixture(t, wholeFiles(), binaryRewrite.payload)
	f.must(f.revise(Target{File: 2}, "mine\n", nil))
	f.submit()
	if got := f.read("blob.dat"); got != "mine\n" {
		t.Errorf("file = %q, want the revision", got)
	}
}
