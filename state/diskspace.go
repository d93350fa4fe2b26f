package state

import (
	"fmt"
	"syscall"

	"github.com/weir-sql/weir/sql/sqlerr"
)

// Badger writes its value log through a memory map of a preallocated
// (sparse) file: when the disk fills up, a write into that map does not
// fail with ENOSPC, it kills the process with SIGBUS. So the store checks
// the free space of the data directory before each commit and refuses one
// that would leave less than Options.MinFreeBytes (default 64 MiB: room
// for a memtable flush) with a clean 53100 error; nothing committed is
// touched and writes succeed again once space returns.

const defaultMinFreeBytes = 64 << 20

// checkSpace fails with 53100 when writing bytes would eat into the
// reserve.
func (s *Store) checkSpace(bytes int64) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(s.dir, &st); err != nil {
		return nil // unknown: let the write try
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if free-bytes < s.opts.MinFreeBytes {
		return &sqlerr.Error{Code: sqlerr.DiskFull,
			Message: fmt.Sprintf("could not write to the data directory: %d MB free, weir keeps %d MB free", free>>20, s.opts.MinFreeBytes>>20),
			Hint:    "Free space on the disk of the data directory; nothing committed was lost."}
	}
	return nil
}
