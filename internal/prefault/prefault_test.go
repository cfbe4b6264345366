package prefault

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

// TestWriteKeepsContent: populating a buffer's pages changes none of its bytes, whether
// it starts on a page or not, and an empty or small buffer is left alone.
func TestWriteKeepsContent(t *testing.T) {
	b := make([]byte, 1<<20+123)
	for i := range b {
		b[i] = byte(i * 7)
	}
	want := bytes.Clone(b)
	for _, s := range [][]byte{b, b[1:], b[4095 : len(b)-3], b[:100], b[:0]} {
		Write(s)
	}
	if !bytes.Equal(b, want) {
		t.Fatal("Write changed the buffer's bytes")
	}
	freshReadsZero(t, 1<<20)
	ends := make([]int32, 0, 100_000)
	Slice(ends)
	Slice([]int32(nil))
	if len(ends) != 0 || cap(ends) != 100_000 {
		t.Fatal("Slice changed the slice")
	}
}

// TestHugePagesKeepContent: with huge pages allowed, a buffer spanning several 2 MB
// boundaries keeps its bytes, and a fresh one still reads as zero.
func TestHugePagesKeepContent(t *testing.T) {
	defer oneShot.Store(oneShot.Load())
	OneShot()
	b := make([]byte, 5<<20+321)
	for i := range b {
		b[i] = byte(i * 13)
	}
	want := bytes.Clone(b)
	Write(b[7:])
	if !bytes.Equal(b, want) {
		t.Fatal("Write with huge pages changed the buffer's bytes")
	}
	freshReadsZero(t, 5<<20)
}

// TestBytesAlignsLargeBuffers (PERF5): Bytes gives an empty slice with room for exactly
// n bytes, made resident, which reads as zero; in a OneShot process, where the platform
// has huge pages, one of a huge page or more starts on a huge page's boundary, and
// smaller ones, or any outside such a process, are plain slices.
func TestBytesAlignsLargeBuffers(t *testing.T) {
	defer oneShot.Store(oneShot.Load())
	for _, one := range []bool{false, true} {
		oneShot.Store(one)
		for _, n := range []int{0, 1, 64 << 10, 2<<20 - 1, 2 << 20, 4<<20 + 300_001, 9 << 20} {
			b := Bytes(n)
			if len(b) != 0 || cap(b) != n {
				t.Fatalf("Bytes(%d) has len %d and cap %d, want 0 and %d", n, len(b), cap(b), n)
			}
			b = b[:n]
			if bytes.ContainsFunc(b, func(r rune) bool { return r != 0 }) {
				t.Fatalf("Bytes(%d) does not read as zero", n)
			}
			aligned := n > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(max(hugeAlign, 1)) == 0
			if want := one && hugeAlign > 0 && n >= hugeAlign; want && !aligned {
				t.Errorf("Bytes(%d) in a OneShot process does not start on a %d-byte boundary", n, hugeAlign)
			}
		}
	}
}

// freshReadsZero checks that a fresh buffer of n bytes reads as zero after Write.
func freshReadsZero(t *testing.T, n int) {
	t.Helper()
	fresh := make([]byte, n)
	Write(fresh)
	if bytes.ContainsFunc(fresh, func(r rune) bool { return r != 0 }) {
		t.Fatalf("a fresh buffer of %d bytes does not read as zero after Write", n)
	}
}

// TestHeapLeavesPagesResident: after Heap, allocating what it made resident takes far
// fewer page faults than there are pages, where the platform counts them; the objects
// read as zero. It measures in a fresh process, as the command that calls Heap is: a
// test binary's heap already holds what the other tests freed (PERF5).
func TestHeapLeavesPagesResident(t *testing.T) {
	if _, ok := minorFaults(); !ok || raceOn {
		t.Skip("no fault count of the test's own on this platform or with the race detector")
	}
	if os.Getenv("PREFAULT_HEAP_CHILD") == "1" {
		heapChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHeapLeavesPagesResident$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PREFAULT_HEAP_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// heapChild is the fresh process's side of TestHeapLeavesPagesResident. It collects as
// the command does (a tenth as often as by default): with the default, the collector's
// goal after Heap's collection is so small that the runtime's background scavenger
// starts returning the freed pages to the system, faster the busier the machine is.
func heapChild() {
	const n = 16 << 20
	debug.SetGCPercent(1000)
	OneShot()
	before, _ := minorFaults()
	Heap(n)
	after, _ := minorFaults()
	keep := make([][]byte, 0, n/(4<<10))
	for range n / 2 / (4 << 10) {
		b := make([]byte, 4<<10)
		if b[0] != 0 || b[len(b)-1] != 0 {
			fmt.Println("a fresh object does not read as zero")
			os.Exit(1)
		}
		b[0], b[len(b)-1] = 1, 1
		keep = append(keep, b)
	}
	used, _ := minorFaults()
	if pages := int64(n / 2 / 4096); used-after > pages/4 {
		fmt.Printf("allocating %d pages after Heap took %d faults (Heap itself took %d)\n", pages, used-after, after-before)
		os.Exit(1)
	}
	runtime.KeepAlive(keep)
}

// TestHeapIsBounded: whatever a caller's estimate, Heap allocates at most 64 MB or a
// quarter of the soft memory limit, and nothing at all in a process not declared OneShot
// or for less than 4 MB (PERF5, U2: an undo's estimate grows with its entry).
func TestHeapIsBounded(t *testing.T) {
	allocated := func(n int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		Heap(n)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	defer oneShot.Store(oneShot.Load())
	oneShot.Store(false)
	if got := allocated(32 << 20); got > 1<<20 {
		t.Errorf("not OneShot: Heap allocated %d bytes", got)
	}
	OneShot()
	if got := allocated(1 << 20); got > 1<<20 {
		t.Errorf("1 MB: Heap allocated %d bytes", got)
	}
	if got := allocated(math.MaxInt); got < heapMax || got > heapMax+1<<20 {
		t.Errorf("math.MaxInt asked: Heap allocated %d bytes, want the bound, %d", got, heapMax)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(80 << 20))
	if got := allocated(math.MaxInt); got < 20<<20 || got > 21<<20 {
		t.Errorf("math.MaxInt asked under an 80 MB limit: Heap allocated %d bytes, want a quarter of the limit", got)
	}
}
