package applypatch_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/applypatch/applypatch"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/afero"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
)

// enc encodes s with e, failing the test if it cannot.
func enc(t testing.TB, e encoding.Encoding, s string) string {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	return string(b)
}

// declare is an Options.Encoding declaring e for every path.
func declare(e encoding.Encoding, name string) func(string) (encoding.Encoding, string) {
	return func(string) (encoding.Encoding, string) { return e, name }
}

var (
	utf16le = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	utf16be = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
)

// TestEncodingRoundTrip: files in UTF-16 with a BOM, UTF-8 with a BOM, or an encoding
// the host declares are decoded, patched and re-encoded byte-exactly; an Add to a path
// with a declared encoding is written in it (T3).
func TestEncodingRoundTrip(t *testing.T) {
	cases := []struct {
		name      string
		declare   func(string) (encoding.Encoding, string)
		file      func(t testing.TB) string // "" for none: the payload adds it
		payload   string
		want      func(t testing.TB) string
		wantIsUTF bool
	}{
		{
			name:    "UTF-16LE with BOM, CRLF",
			file:    func(t testing.TB) string { return "\xff\xfe" + enc(t, utf16le, "alpha\r\nbeta\r\ngamma\r\n") },
			payload: "@@\n alpha\n-beta\n+BETA ☃\n",
			want:    func(t testing.TB) string { return "\xff\xfe" + enc(t, utf16le, "alpha\r\nBETA ☃\r\ngamma\r\n") },
		},
		{
			name:    "UTF-16BE with BOM",
			file:    func(t testing.TB) string { return "\xfe\xff" + enc(t, utf16be, "alpha\nbeta\n") },
			payload: "@@\n-alpha\n+ALPHA 𝄞\n",
			want:    func(t testing.TB) string { return "\xfe\xff" + enc(t, utf16be, "ALPHA 𝄞\nbeta\n") },
		},
		{
			name:    "UTF-8 BOM kept",
			file:    func(testing.TB) string { return "\xef\xbb\xbffirst\nsecond\n" },
			payload: "@@\n-first\n+FIRST\n",
			want:    func(testing.TB) string { return "\xef\xbb\xbfFIRST\nsecond\n" },
		},
		{
			name:    "declared ISO-8859-1",
			declare: declare(charmap.ISO8859_1, "ISO-8859-1"),
			file:    func(testing.TB) string { return "caf\xe9\nna\xefve\n" },
			payload: "@@\n café\n-naïve\n+naïf ü\n",
			want:    func(testing.TB) string { return "caf\xe9\nna\xeff \xfc\n" },
		},
		{
			name:    "declared Windows-1252",
			declare: declare(charmap.Windows1252, "windows-1252"),
			file:    func(testing.TB) string { return "\x93quoted\x94\nprice \x80 5\n" },
			payload: "@@\n-price € 5\n+price € 6\n",
			want:    func(testing.TB) string { return "\x93quoted\x94\nprice \x80 6\n" },
		},
		{
			name:    "declared Shift_JIS",
			declare: declare(japanese.ShiftJIS, "Shift_JIS"),
			file:    func(t testing.TB) string { return enc(t, japanese.ShiftJIS, "こんにちは\n世界\n") },
			payload: "@@\n こんにちは\n-世界\n+日本\n",
			want:    func(t testing.TB) string { return enc(t, japanese.ShiftJIS, "こんにちは\n日本\n") },
		},
		{
			name:    "declared UTF-8 is plain UTF-8",
			declare: declare(unicode.UTF8, "UTF-8"),
			file:    func(testing.TB) string { return "é\n" },
			payload: "@@\n-é\n+è\n",
			want:    func(testing.TB) string { return "è\n" },
		},
		{
			name:    "Add in a declared Shift_JIS",
			declare: declare(japanese.ShiftJIS, "Shift_JIS"),
			payload: "+日本語\n",
			want:    func(t testing.TB) string { return enc(t, japanese.ShiftJIS, "日本語\n") },
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := afero.NewMemMapFs()
			header := "*** Update File: f.txt\n"
			if c.file != nil {
				if err := afero.WriteFile(fsys, "/ws/f.txt", []byte(c.file(t)), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				header = "*** Add File: f.txt\n"
			}
			payload := "*** Begin Patch\n" + header + c.payload + "*** End Patch\n"
			opts := &applypatch.Options{Workspace: "/ws", Encoding: c.declare}
			if _, err := applypatch.Apply(context.Background(), fsys, payload, opts); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			got, err := afero.ReadFile(fsys, "/ws/f.txt")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want(t), string(got)); diff != "" {
				t.Errorf("bytes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEncodingRefusals: a file not valid in its encoding, or a result with a character
// the encoding cannot hold, is refused with a FileUndecodable FileError saying where, and nothing
// is written: never a lossy rewrite (T3).
func TestEncodingRefusals(t *testing.T) {
	cases := []struct {
		name    string
		declare func(string) (encoding.Encoding, string)
		file    string // "" for none
		payload string
		want    string // what the error says: the encoding, the line, the character
	}{
		{
			name:    "undeclared Latin-1 is not UTF-8",
			file:    "ok\ncaf\xe9\n",
			payload: "*** Update File: f.txt\n@@\n-ok\n+OK\n",
			want:    "line 2 of the file is not valid UTF-8; it was left as it is. The host must declare the file's encoding",
		},
		{
			name:    "byte undefined in Windows-1252",
			declare: declare(charmap.Windows1252, "windows-1252"),
			file:    "one\ntwo\nbad \x81 byte\n",
			payload: "*** Update File: f.txt\n@@\n-one\n+ONE\n",
			want:    "line 3 of the file is not valid windows-1252, the encoding the host declared for it",
		},
		{
			name:    "invalid Shift_JIS sequence",
			declare: declare(japanese.ShiftJIS, "Shift_JIS"),
			file:    "one\n\x82\xff\n",
			payload: "*** Update File: f.txt\n@@\n-one\n+ONE\n",
			want:    "line 2 of the file is not valid Shift_JIS, the encoding the host declared for it",
		},
		{
			name:    "UTF-16LE with an odd byte",
			file:    "\xff\xfe" + "a\x00\n\x00b",
			payload: "*** Update File: f.txt\n@@\n-a\n+A\n",
			want:    "the file starts with a UTF-16LE byte-order mark, but line 2 is not valid UTF-16LE",
		},
		{
			name:    "UTF-16LE with a lone surrogate",
			file:    "\xff\xfe" + "a\x00\n\x00\x00\xd8\n\x00",
			payload: "*** Update File: f.txt\n@@\n-a\n+A\n",
			want:    "the file starts with a UTF-16LE byte-order mark, but line 2 is not valid UTF-16LE",
		},
		{
			name:    "UTF-16BE mark over a declared encoding",
			declare: declare(charmap.ISO8859_1, "ISO-8859-1"),
			file:    "\xfe\xff" + "\x00a\x00\n\xdc\x00",
			payload: "*** Update File: f.txt\n@@\n-a\n+A\n",
			want:    "the file starts with a UTF-16BE byte-order mark, but line 2 is not valid UTF-16BE",
		},
		{
			name:    "UTF-8 mark on bytes that are not UTF-8",
			file:    "\xef\xbb\xbf" + "ok\ncaf\xe9\n",
			payload: "*** Update File: f.txt\n@@\n-ok\n+OK\n",
			want:    "the file starts with a UTF-8 byte-order mark, but line 2 is not valid UTF-8",
		},
		{
			name:    "result has a character ISO-8859-1 cannot hold",
			declare: declare(charmap.ISO8859_1, "ISO-8859-1"),
			file:    "caf\xe9\nprice\n",
			payload: "*** Update File: f.txt\n@@\n café\n-price\n+price €\n",
			want:    "line 2 of the result has '€' (U+20AC), which ISO-8859-1 cannot encode",
		},
		{
			name:    "Add with a character ISO-8859-1 cannot hold",
			declare: declare(charmap.ISO8859_1, "ISO-8859-1"),
			payload: "*** Add File: f.txt\n+first\n+snow ☃\n",
			want:    "line 2 of the result has '☃' (U+2603), which ISO-8859-1 cannot encode",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := afero.NewMemMapFs()
			if err := fsys.MkdirAll("/ws", 0o755); err != nil {
				t.Fatal(err)
			}
			if c.file != "" {
				if err := afero.WriteFile(fsys, "/ws/f.txt", []byte(c.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := readTree(t, fsys, "/ws")
			payload := "*** Begin Patch\n" + c.payload + "*** End Patch\n"
			_, err := applypatch.Apply(context.Background(), fsys, payload, &applypatch.Options{Workspace: "/ws", Encoding: c.declare})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to say %q", err, c.want)
			}
			if !errors.Is(err, &applypatch.FileError{Reason: applypatch.FileUndecodable}) {
				t.Errorf("err = %v, want a FileError with reason FileUndecodable", err)
			}
			if diff := treeDiff(before, readTree(t, fsys, "/ws")); len(diff) > 0 {
				t.Errorf("a refusal wrote %v", diff)
			}
		})
	}
}

// TestEncodingOnOsFs: a declared encoding round-trips through a real file, mode kept.
func TestEncodingOnOsFs(t *testing.T) {
	root := t.TempDir()
	name := filepath.Join(root, "latin1.txt")
	fsys := afero.NewOsFs()
	writeFixture(t, fsys, root, map[string]fixtureFile{"latin1.txt": {"gar\xe7on\n", 0o640}})
	payload := "*** Begin Patch\n*** Update File: latin1.txt\n@@\n-garçon\n+garçons\n*** End Patch\n"
	opts := &applypatch.Options{Workspace: root, Encoding: declare(charmap.ISO8859_1, "ISO-8859-1")}
	if _, err := applypatch.Apply(context.Background(), fsys, payload, opts); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, fsys, root)["latin1.txt"]
	if got.data != "gar\xe7ons\n" || got.mode != 0o640 {
		t.Errorf("%s = %q %v", name, got.data, got.mode)
	}
}
