package state

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"
)

// A write cut short by a kill does not always leave a clean prefix. Badger
// appends to its logs by copying into a memory-mapped file, and Go's
// memmove stores a large copy's first bytes (up to the alignment of the
// destination) and its last 128 bytes after the body: a SIGKILL during the
// copy of a 30 kB batch of value-log entries leaves the batch's first
// entry headless, with the body of the batch after it, up to the page the
// kill stopped at. By bytes alone that is a bad entry followed by data,
// the mark of damage (see vlogtail.go). What tells the two apart is
// whether anything that was acknowledged comes after the bad entry:
//
//   - in the newest value-log file, values are acknowledged only once a
//     key of the tree points at them (the key is written after the value),
//     so the tail is damage only if some key, in a table file or a
//     write-ahead log, points at or past the bad entry;
//   - in a write-ahead log, Badger copies one entry at a time, so a torn
//     write is the last entry and no good entry follows it; a good entry
//     after the bad one (within the largest entry a log can hold) was
//     acknowledged, and it is damage.
//
// Older value-log files were cut at their last start and are not written
// again: there any bad entry followed by data is damage.

// logTailDamage says whether a log file (a .vlog or .mem of dir) has a bad
// entry followed by acknowledged data, and where the bad entry is. newest
// says whether a value-log file is the newest of dir.
func logTailDamage(dir, name string, data []byte, newest bool) (bad int, damaged bool) {
	bad, suspect := damagedLog(data)
	if !suspect {
		return bad, false
	}
	switch {
	case filepath.Ext(name) == ".mem":
		return bad, goodEntryAfter(data, bad)
	case newest:
		fid, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(name), ".vlog"), 10, 32)
		if err != nil {
			return bad, true
		}
		end, err := vlogReferencedEnd(dir, uint32(fid))
		// A tree that cannot be read cannot clear the tail: damage.
		return bad, err != nil || end > uint64(bad)
	}
	return bad, true
}

// maxWALEntry bounds a write-ahead log entry: a key (at most 64 kB) and an
// inline value (below the value threshold) or a value pointer.
const maxWALEntry = 1<<16 + valueThreshold + 2*maxEntryHeader

// goodEntryAfter says whether an entry that passes its CRC starts anywhere
// after the bad entry at bad, looking as far as one entry can reach.
func goodEntryAfter(data []byte, bad int) bool {
	limit := min(len(data), bad+2*maxWALEntry)
	for off := bad + 1; off < limit; off++ {
		if data[off] == 0 && off+2 < len(data) && data[off+2] == 0 {
			continue // a zero key length: no entry starts here
		}
		if _, ok := logEntryAt(data[:limit], off); ok {
			return true
		}
	}
	return false
}

// bitValuePointer is Badger's meta bit for a value stored in the value
// log: the entry's value is then a value pointer (fid, len, offset: three
// uint32 in the machine's byte order, as Badger copies its struct).
const bitValuePointer = 1 << 1

// vlogReferencedEnd is the end of the furthest value in value-log file
// fid that a key of dir points at (0 when none does): the table files are
// read with Badger's own table reader, the write-ahead logs entry by entry
// up to their first bad entry. It only reads, so it may run before Badger
// opens the directory.
func vlogReferencedEnd(dir string, fid uint32) (uint64, error) {
	var end uint64
	note := func(meta byte, value []byte) {
		if meta&bitValuePointer == 0 || len(value) < 12 {
			return
		}
		if binary.NativeEndian.Uint32(value[0:4]) != fid {
			return
		}
		n := binary.NativeEndian.Uint32(value[4:8])
		off := binary.NativeEndian.Uint32(value[8:12])
		end = max(end, uint64(off)+uint64(n))
	}
	tables, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		return 0, err
	}
	for _, name := range tables {
		if err := tableValuePointers(name, note); err != nil {
			return 0, err
		}
	}
	logs, err := filepath.Glob(filepath.Join(dir, "*.mem"))
	if err != nil {
		return 0, err
	}
	for _, name := range logs {
		mf, err := z.OpenMmapFile(name, os.O_RDONLY, 0)
		if err != nil {
			return 0, err
		}
		walkLogEntries(mf.Data, func(meta byte, _, value []byte) { note(meta, value) })
		_ = mf.Close(-1)
	}
	return end, nil
}

// tableValuePointers calls note with the meta and value of every entry of
// one table file. The table is never released through Badger's reference
// count, whose last release deletes the file: its mapping is closed
// directly.
func tableValuePointers(name string, note func(meta byte, value []byte)) (err error) {
	mf, err := z.OpenMmapFile(name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer func() { _ = mf.Close(-1) }()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("table file %s is unreadable: %v", filepath.Base(name), p)
		}
	}()
	// A damaged block would end the iteration early and hide the pointers
	// after it.
	if d := checkTableFile(name); len(d) > 0 {
		return fmt.Errorf("table file %s is damaged: %s", d[0].File, d[0].Reason)
	}
	t, err := table.OpenTable(mf, tableReadOptions())
	if err != nil {
		return err
	}
	it := t.NewIterator(0)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		v := it.Value()
		note(v.Meta, v.Value)
	}
	return nil
}

// tableReadOptions are the table options the store writes with, for
// reading only and without a cache.
func tableReadOptions() table.Options {
	o := badger.DefaultOptions("")
	return table.Options{
		ReadOnly:             true,
		BlockSize:            o.BlockSize,
		Compression:          o.Compression,
		ZSTDCompressionLevel: o.ZSTDCompressionLevel,
		ChkMode:              options.OnBlockRead,
	}
}
