// Package prefault makes the pages of a large buffer resident in one system call before
// it is filled, instead of one page fault per page as the first write reaches it.
//
// A process that reads a 4 MB file into a fresh buffer takes a thousand page faults;
// where faults are expensive (in a virtual machine each can cost microseconds), asking
// the kernel to populate the whole range at once costs a fraction of that. The buffer's
// content and the memory's meaning do not change: the pages read as zero, as fresh
// memory does, and are resident as they would be once written.
package prefault

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"unsafe"
)

// oneShot is whether the process ends after one patch (see OneShot).
var oneShot atomic.Bool

// OneShot declares that the process ends after one patch, as the command does and a
// library host does not. It lets what follows spend memory that a long-running process
// would keep: Write and Slice also ask the kernel to back the 2 MB-aligned part of a
// large buffer with transparent huge pages, where the platform has them (one page to
// clear and map for each 2 MB instead of 512), and Heap makes heap resident ahead. A
// huge-page request stays on the heap's range after the buffer is freed, and the kernel
// may later gather the small objects that reuse the range into a huge page again,
// holding 2 MB of memory for them, which a long-running host would keep.
func OneShot() { oneShot.Store(true) }

// minSize is the smallest buffer worth a system call: smaller ones take few faults.
const minSize = 64 << 10

// Write populates, writable, the whole pages b spans, where the platform can; it does
// nothing where it cannot, or for a small b.
func Write(b []byte) {
	if len(b) >= minSize {
		populate(b)
	}
}

// Bytes returns an empty slice with room for n bytes, to be filled, its pages made
// resident as Write makes them. In a process declared OneShot, where the platform has
// huge pages, a buffer of one huge page or more starts on a huge page's boundary, so
// that each of its whole 2 MB is one page, not only those its place on the heap happens
// to align: a 4.3 MB file's buffer then maps two huge pages and 75 small ones, not one
// and 540. The room before that boundary, less than 2 MB, is never touched and never
// resident.
func Bytes(n int) []byte {
	a := alignFor(n)
	b := make([]byte, n+a)
	off := 0
	if a > 0 {
		off = int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & uintptr(a-1))
	}
	b = b[off : off : off+n]
	Write(b[:n])
	return b
}

// alignFor is the boundary Bytes starts a buffer of n bytes on: a huge page's, or none.
func alignFor(n int) int {
	if hugeAlign == 0 || n < hugeAlign || !oneShot.Load() {
		return 0
	}
	return hugeAlign
}

// Slice is Write for the whole capacity of a slice of any element type.
func Slice[E any](s []E) {
	if n := cap(s) * int(unsafe.Sizeof(*new(E))); n >= minSize {
		populate(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s[:cap(s)]))), n))
	}
}

// HeapPerFile is about the heap a commit or an undo takes for each file of a source tree
// (a few hundred lines): its baseline, index, plan, journal and history records.
const HeapPerFile = 16 << 10

// heapMin is the least heap worth making resident ahead: a fresh process holds 4 MB
// before its first collection, and below that the collection Heap makes costs more than
// the faults it saves. heapMax is the most, whatever a caller's estimate: a quarter of
// the command's soft memory limit, and never more than a quarter of the process's.
const (
	heapMin = 4 << 20
	heapMax = 64 << 20
)

// Heap makes about n bytes of the heap resident before the process allocates them, in a
// process declared OneShot, and at most 64 MB or a quarter of the soft memory limit;
// elsewhere, or for less than 4 MB, it does nothing. It allocates one buffer of n bytes,
// populates its pages in one call (with huge pages where allowed) and collects it, so
// that the allocator hands the same resident pages out again to the objects that follow,
// instead of taking a fault on each fresh page: in a virtual machine a fault can cost
// 10 us. It costs one collection, of a heap that should hold little yet. Ask only for
// what will be allocated soon: pages the process does not reuse stay resident until the
// runtime returns them.
func Heap(n int) {
	n = min(n, heapMax, int(min(debug.SetMemoryLimit(-1)/4, math.MaxInt))) // -1 reads the limit
	if n < heapMin || !oneShot.Load() {
		return
	}
	b := make([]byte, n)
	populate(b)
	runtime.KeepAlive(b)
	runtime.GC()
}
