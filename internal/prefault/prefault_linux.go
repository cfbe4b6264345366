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

func populate(b []byte) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start, end := (p+pageSize-1)&^(pageSize-1), (p+uintptr(len(b)))&^(pageSize-1)
	if end > start {
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvPopulateWrite)
	}
}
