package history

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"time"
	"unsafe"

	"github.com/spf13/afero"
)

// A Draft is an entry file begun before its commit is final: the magic line and the
// payload, most of the bytes an entry of a large payload holds, written beside the
// commit's own writes, so that recording the entry once the commit is final writes only
// what the commit decided. Record finishes it; Discard removes a draft no entry was
// recorded from. A draft that could not be written costs only the attempt: Record then
// writes the entry whole, as it does without one.
//
// Its file is a temporary entry file, which a crash leaves for a later recording to
// remove once it is stale (see listing).
type Draft struct {
	s       *Store
	payload string
	name    string     // the file, "" once recorded or removed
	f       afero.File // open, after the payload, until the entry is finished
	blob    Blob       // the payload, as the file holds it
}

// Begin writes the start of the file of an entry whose payload is payload. Begin and
// the draft's other methods may run on different goroutines, one at a time.
func (s *Store) Begin(payload string) *Draft {
	d := &Draft{s: s, payload: payload}
	if err := d.write(); err != nil {
		d.Discard()
	}
	return d
}

// write makes the draft's file and writes the magic line and the payload to it.
func (d *Draft) write() error {
	if err := EnsureDir(d.s.fs, d.s.entries()); err != nil {
		return err
	}
	name := path.Join(d.s.entries(), fmt.Sprintf("draft-%016x.entry.tmp-%s", rand.Uint64(), strconv.FormatInt(time.Now().UnixNano(), 36)))
	f, err := d.s.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	d.name, d.f = name, f
	if _, err := io.WriteString(f, entryMagic); err != nil {
		return err
	}
	if _, err := io.WriteString(f, d.payload); err != nil {
		return err
	}
	d.blob = Blob{Len: int64(len(d.payload)), CRC: Checksum(unsafe.Slice(unsafe.StringData(d.payload), len(d.payload)))} // read, never written
	return nil
}

// Record is Store.Record for the entry the draft was begun for, finishing the draft's
// file where it holds the entry's payload.
func (d *Draft) Record(e *Entry, contents []Content) error { return d.s.record(e, contents, d) }

// holds reports whether the draft's file is there to finish for e: written, and with
// e's payload.
func (d *Draft) holds(e *Entry) bool {
	return d != nil && d.f != nil && d.payload == e.Payload
}

// finish writes the rest of the entry e after the draft's payload, and renames the file
// to the entry's name with its size.
func (s *Store) finish(e *Entry, contents []Content, d *Draft) (name string, size int64, err error) {
	size, err = writeEntry(d.f, e, contents, s.mac, d.blob.Len)
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	d.f = nil
	if err != nil {
		return "", 0, err
	}
	name = path.Join(s.entries(), fileName(e, size))
	if err := s.fs.Rename(d.name, name); err != nil {
		return "", 0, err
	}
	d.name = ""
	return name, size, nil
}

// Discard removes the draft's file, unless an entry was recorded from it.
func (d *Draft) Discard() {
	if d == nil {
		return
	}
	if d.f != nil {
		d.f.Close()
		d.f = nil
	}
	if d.name != "" {
		d.s.fs.Remove(d.name)
		d.name = ""
	}
}

// drafted is a content a draft's file already holds, where Blob says.
type drafted struct{ Blob }

// WriteOut writes nothing: the content is in place.
func (drafted) WriteOut(io.Writer) error { return nil }
