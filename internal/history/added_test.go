package history

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/spf13/afero"
)

// addSection cuts the lines of an Add File section out of payload as a parser does: each
// line of the section without its '+', the LF left out.
func addSection(payload, header string) []string {
	i := strings.Index(payload, header+"\n")
	if i < 0 {
		return nil
	}
	rest := payload[i+len(header)+1:]
	var out []string
	for len(rest) > 0 && rest[0] == '+' {
		end := strings.IndexByte(rest, '\n')
		out = append(out, rest[1:end])
		rest = rest[end+1:]
	}
	return out
}

// joined is an added file's bytes: its lines, each ended by a LF.
func joined(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// U1: an added file whose lines the payload holds as its section spells them is found
// in the payload, however its empty lines lie, and its span gives back its bytes.
func TestSpanOfFindsAnAddedFile(t *testing.T) {
	payload := "*** Begin Patch\n*** Add File: a.txt\n+\n+one\n+\n+\n+two\n+\n*** Add File: b.txt\n+solo\n*** End Patch\n"
	for _, header := range []string{"*** Add File: a.txt", "*** Add File: b.txt"} {
		lines := addSection(payload, header)
		sp, ok := SpanOf(payload, lines)
		if !ok {
			t.Fatalf("%s: not found", header)
		}
		got, err := sp.lines([]byte(payload))
		if err != nil || string(got) != joined(lines) {
			t.Errorf("%s: span %+v gives %q, %v; want %q", header, sp, got, err, joined(lines))
		}
	}
}

// U1: lines the payload does not hold as an Add section spells them leave the file to
// keep its own bytes: lines copied out of the payload (nothing to find them by), a CRLF
// payload, lines of one payload looked for in another, an empty file and one of empty
// lines only, and a line changed since it was cut.
func TestSpanOfRefusesWhatThePayloadDoesNotSpell(t *testing.T) {
	payload := "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch\n"
	lines := addSection(payload, "*** Add File: a.txt")
	crlf := "*** Begin Patch\r\n*** Add File: a.txt\r\n+one\r\n+two\r\n*** End Patch\r\n"
	crlfLines := []string{crlf[strings.Index(crlf, "+one")+1:][:3], crlf[strings.Index(crlf, "+two")+1:][:3]}
	blank := "*** Begin Patch\n*** Add File: a.txt\n+\n+\n*** End Patch\n"
	three := "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n+three\n*** End Patch\n"
	threeLines := addSection(three, "*** Add File: a.txt")
	for name, c := range map[string]struct {
		payload string
		lines   []string
	}{
		"copied":       {payload, []string{strings.Clone(lines[0]), strings.Clone(lines[1])}},
		"crlf":         {crlf, crlfLines},
		"other":        {strings.Clone(payload), lines},
		"empty file":   {payload, nil},
		"blank lines":  {blank, addSection(blank, "*** Add File: a.txt")},
		"line changed": {payload, []string{lines[0], "twx"}},
		"line dropped": {three, []string{threeLines[0], threeLines[2]}},
		"no payload":   {"", lines},
	} {
		if sp, ok := SpanOf(c.payload, c.lines); ok {
			t.Errorf("%s: found at %+v", name, sp)
		}
	}
	if sp, ok := SpanOf(payload, lines[:1]); !ok || sp.End-sp.Off != int64(len("+one\n")) {
		t.Errorf("a file of the section's first line only: %+v, %v", sp, ok)
	}
}

// U1: whatever the lines, a span SpanOf finds gives back exactly the file's bytes
// (random sections of random lines, empty ones among them, some cut from the payload,
// some copied).
func TestSpanOfProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "", "x", "+y", "func f() {", "\t}", "*** not a header", " "}
	found := 0
	for range 2000 {
		var b strings.Builder
		b.WriteString("*** Begin Patch\n*** Add File: f\n")
		n := r.IntN(8)
		for range n {
			b.WriteString("+" + words[r.IntN(len(words))] + "\n")
		}
		b.WriteString("*** End Patch\n")
		payload := b.String()
		lines := addSection(payload, "*** Add File: f")
		for i := range lines {
			if r.IntN(4) == 0 {
				lines[i] = strings.Clone(lines[i])
			}
		}
		sp, ok := SpanOf(payload, lines)
		if !ok {
			continue
		}
		found++
		got, err := sp.lines([]byte(payload))
		if err != nil || string(got) != joined(lines) {
			t.Fatalf("payload %q lines %q: span %+v gives %q, %v", payload, lines, sp, got, err)
		}
	}
	if found < 1000 {
		t.Errorf("found %d of 2000 sections: too few for the property to say much", found)
	}
}

// U1: a span read back from a record is checked: inside the payload, whole lines, each
// starting with '+'.
func TestSpanLinesRefusesWhatIsNoAddSection(t *testing.T) {
	payload := []byte("+one\n+two\nthree\n+four")
	for _, sp := range []Span{{-1, 5}, {5, 4}, {0, 100}, {0, 3}, {5, 16}, {16, 21}} {
		if got, err := sp.lines(payload); err == nil {
			t.Errorf("span %+v gave %q", sp, got)
		}
	}
	if got, err := (Span{0, 10}).lines(payload); err != nil || string(got) != "one\ntwo\n" {
		t.Errorf("span of two lines: %q, %v", got, err)
	}
}

// U1: an added file kept as a span of the payload is recorded, sealed, read back and
// rebuilt; a span that names other bytes than the ones recorded, or none of the payload,
// is refused.
func TestRecordedSpanReadBack(t *testing.T) {
	s := Open(afero.NewMemMapFs(), "/h", []byte("key"), Limits{})
	payload := "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch\n"
	lines := addSection(payload, "*** Add File: a.txt")
	sp, ok := SpanOf(payload, lines)
	if !ok {
		t.Fatal("span not found")
	}
	body := joined(lines)
	after := State{Exists: true, Mode: 0o644, Size: int64(len(body)), CRC: Checksum([]byte(body)), Blob: -1, Payload: &sp}
	e := &Entry{ID: "0123456789ab", Time: time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), Payload: payload, Files: []File{
		{Path: "a.txt", Name: "a.txt", Before: State{Blob: -1}, After: after},
	}}
	if err := s.Record(e, nil); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v, %v", list, err)
	}
	got := list[0].Files[0].After
	if got.Payload == nil || *got.Payload != sp {
		t.Fatalf("read back %+v, want the span %+v", got, sp)
	}
	b, err := s.Added(&list[0], got)
	if err != nil || string(b) != body {
		t.Fatalf("Added: %q, %v", b, err)
	}
	other := got
	other.CRC++
	if b, err := s.Added(&list[0], other); err == nil {
		t.Errorf("a span whose bytes do not match its checksum gave %q", b)
	}
}

// U1: a record whose span lies outside its payload, or that also names a content, is
// not trusted.
func TestSpanOutsideThePayloadIsNotTrusted(t *testing.T) {
	e := Entry{ID: "0123456789ab", Seq: 1, PayloadBlob: 0, Blobs: []Blob{{Len: 10}}}
	for _, st := range []State{
		{Exists: true, Blob: -1, Payload: &Span{0, 11}},
		{Exists: true, Blob: -1, Payload: &Span{4, 3}},
		{Exists: true, Blob: -1, Payload: &Span{-1, 3}},
		{Exists: true, Blob: 0, Payload: &Span{0, 5}},
		{Exists: true, Blob: -1, Base: 1, Payload: &Span{0, 5}},
		{Exists: true, Blob: -1, Payload: &Span{0, 5}, Edit: []Region{{}}},
	} {
		e.Files = []File{{Path: "a", Name: "a", Before: State{Blob: -1}, After: st}}
		if trusted(&e, 10) {
			t.Errorf("trusted %+v, span %+v", st, *st.Payload)
		}
	}
	e.Files[0].After = State{Exists: true, Blob: -1, Payload: &Span{0, 10}}
	if !trusted(&e, 10) {
		t.Error("a span of the whole payload is not trusted")
	}
	e.PayloadBlob = 1
	if trusted(&e, 10) {
		t.Error("trusted a span of a payload the entry does not hold")
	}
}
