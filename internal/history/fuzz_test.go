package history

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/spf13/afero"
)

// FuzzEntry reads entry files whose JSON is anything at all, sealed with the store's own
// key (the worst case: a seal proves only who wrote it): List never panics, and every
// entry it returns names only clean paths inside the workspace and contents inside its
// file, which Content reads or refuses.
func FuzzEntry(f *testing.F) {
	e, c := entry("aaaaaaaaaaaa", "one\n", "two\n")
	var b bytes.Buffer
	s := Open(afero.NewMemMapFs(), "/h", key, Limits{})
	writeEntry(&b, e, c, s.mac)
	raw := b.Bytes()
	start := bytes.Index(raw, []byte(`{"id"`))
	end := bytes.LastIndexByte(raw[:len(raw)-1], '\n')
	f.Add([]byte("two\n"), raw[start:end])
	f.Add([]byte(""), []byte(`{"id":"aaaaaaaaaaaa","seq":1,"files":[{"path":"x","name":"../x","before":{"exists":true,"blob":0},"after":{"blob":-1}}],"blobs":[{"off":0,"len":1}]}`))
	f.Fuzz(func(t *testing.T, contents, body []byte) {
		fsys := afero.NewMemMapFs()
		s := Open(fsys, "/h", key, Limits{})
		var file bytes.Buffer
		file.WriteString(entryMagic)
		file.Write(contents)
		hdr := int64(file.Len())
		file.Write(body)
		fmt.Fprintf(&file, "\n%s %d %d\n", hex.EncodeToString(s.mac(body)), hdr, len(body))
		fsys.MkdirAll("/h/entries", 0o700)
		afero.WriteFile(fsys, "/h/entries/0000000001-aaaaaaaaaaaa.entry", file.Bytes(), 0o600)
		list, err := s.List()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range list {
			for _, f := range e.Files {
				if !cleanName(f.Name) {
					t.Fatalf("an entry naming %q was read", f.Name)
				}
			}
			for i := range e.Blobs {
				s.Content(&e, i)
			}
		}
	})
}
