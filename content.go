package applypatch

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/applypatch/applypatch/internal/lines"
)

// content is what a write step puts in its file: bytes held in memory, or an Update's
// result derived from its baseline's text each time it is needed, so that a large file
// is held once (its baseline), not twice. Deriving is a copy of the kept runs of lines
// and the inserted lines: it costs about as much as reading the bytes would.
type content struct {
	held []byte // the bytes, when t is not set
	// t is the baseline's text with the regions applied after the byte-order mark bom.
	t    *lines.Text
	regs []region
	bom  []byte
	// added are the lines of an Add File section that held was joined from: a history
	// finds them in the payload it keeps, rather than keeping the bytes twice.
	added []string
}

// heldContent is content of bytes held in memory.
func heldContent(b []byte) *content { return &content{held: b} }

// buffered reports whether the content is derived as it is written, in pieces worth
// gathering into large writes, rather than held.
func (c *content) buffered() bool { return c.t != nil }

// size is, for a derived content, about the bytes it writes.
func (c *content) size() int { return c.t.Len() + len(c.bom) }

// writeBuffer is the most a derived content is buffered before it is written: a few
// large writes, not one a run of lines.
const writeBuffer = 256 << 10

// WriteOut writes the content to a file, in large writes.
func (c *content) WriteOut(w io.Writer) error {
	if !c.buffered() {
		_, err := w.Write(c.held)
		return err
	}
	pool := &smallWriters
	if c.size()+4096 > smallWriteBuffer {
		pool = &largeWriters
	}
	bw := pool.Get().(*bufio.Writer)
	bw.Reset(w)
	defer func() {
		bw.Reset(nil)
		pool.Put(bw)
	}()
	if err := c.emit(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// smallWriteBuffer is the buffer of a small file's writes, most source files, which are
// written in one write.
const smallWriteBuffer = 16 << 10

// The writers derived contents are written through, kept between files: a commit of
// many files would otherwise allocate, and the collector then scan, a buffer per file.
var (
	smallWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, smallWriteBuffer) }}
	largeWriters = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeBuffer) }}
)

// Emit writes the content to w in the pieces it is derived in, unbuffered: for a
// writer that makes no system call, such as the journal's checksum of a step.
func (c *content) Emit(w io.Writer) error { return c.emit(w) }

// emit writes the content to w as it is derived.
func (c *content) emit(w io.Writer) error {
	if c.t == nil {
		_, err := w.Write(c.held)
		return err
	}
	if _, err := w.Write(c.bom); err != nil {
		return err
	}
	return writeResult(w, c.t, c.regs)
}

// Equal reports whether the content is exactly b.
func (c *content) Equal(b []byte) bool {
	if c.t == nil {
		return bytes.Equal(c.held, b)
	}
	cmp := &comparer{want: b}
	return c.emit(cmp) == nil && cmp.off == len(b)
}

// HasPrefix reports whether b is a prefix of the content: what a write cut short may
// have left.
func (c *content) HasPrefix(b []byte) bool {
	if c.t == nil {
		return bytes.HasPrefix(c.held, b)
	}
	cmp := &comparer{want: b, prefix: true}
	err := c.emit(cmp)
	return (err == nil || errors.Is(err, errCompared)) && cmp.off == len(b)
}

// errCompared stops a comparison: a difference was found, or, for a prefix, every byte
// compared.
var errCompared = errors.New("compared")

// comparer is a writer that compares what is written with want, from its start.
type comparer struct {
	want []byte
	off  int // bytes of want matched so far
	// prefix is set when the written bytes may go on past want.
	prefix bool
}

func (c *comparer) Write(p []byte) (int, error) {
	rest := c.want[c.off:]
	if len(p) > len(rest) {
		if !c.prefix {
			return 0, errCompared
		}
		p = p[:len(rest)]
	}
	if !bytes.Equal(p, rest[:len(p)]) {
		return 0, errCompared
	}
	c.off += len(p)
	if c.prefix && c.off == len(c.want) {
		return len(p), errCompared
	}
	return len(p), nil
}
