// Package crc32c sums bytes with CRC-32C, the checksum the journal and the history state
// a file's contents with: the processor's own instruction where it has one.
//
// The table behind it is made on first use rather than as the program starts. Making it
// (the tables that let the instruction run on three parts of a long input at once) is a
// fifth or more of the command's package initialisation, and a run that never sums, one
// that refuses its payload or prints its version, need not pay for it.
package crc32c

import (
	"hash/crc32"
	"sync"
)

// table is the CRC-32C table, made once, on first use.
var table = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Checksum is the CRC-32C of b.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, table()) }

// Update is the CRC-32C of the bytes summed by crc followed by p.
func Update(crc uint32, p []byte) uint32 { return crc32.Update(crc, table(), p) }

// A Sum is a writer that counts what is written to it and sums it: a content's size
// and CRC-32C, taken as its bytes are produced.
type Sum struct {
	N   int64
	CRC uint32
}

// Write adds p to the count and the sum; it never fails.
func (s *Sum) Write(p []byte) (int, error) {
	s.CRC = Update(s.CRC, p)
	s.N += int64(len(p))
	return len(p), nil
}

// Prepare makes the table on a goroutine of its own, for a caller that will sum soon and
// has a processor to spare in the meantime; a sum that comes first makes it itself. It
// returns at once.
func Prepare() { go table() }
