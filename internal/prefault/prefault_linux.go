//go:build linux

package prefault

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): populate page tables writable,
// faulting in every page of the range as a write to it would. An older kernel refuses
// it (EINVAL), and the buffer is faulted in as it is written.
const madvPopulateWrite = 23

// pageSize is the smallest page size of the platforms Go runs Linux on; the range is
// rounded inward to it, so no page outside b is touched.
const pageSize = 4096

// madvHugepage is MADV_HUGEPAGE, asked for in a process declared OneShot: back the range
// with transparent huge pages where the system allows them only on request (the usual
// "madvise" setting). The buffer is about to be written whole, so a huge page holds no
// more memory than small ones would; a 4 MB file's commit on tmpfs takes about 1 ms less.
// Where huge pages are off, or none is free, the kernel uses small pages as before.
const madvHugepage = 14

// hugeSize is the huge page size of x86-64 and arm64 with 4 KB pages; only the part of
// the buffer aligned to it is asked for.
const hugeSize = 2 << 20

// hugeAlign is what Bytes aligns a large buffer to.
const hugeAlign = hugeSize

func populate(b []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if start, end := (p+hugeSize-1)&^(hugeSize-1), (p+uintptr(len(b)))&^(hugeSize-1); end > start && oneShot.Load() {
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugepage)
	}
	start, end := (p+pageSize-1)&^(pageSize-1), (p+uintptr(len(b)))&^(pageSize-1)
	if end > start {
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPopulateWrite)
	}
}
