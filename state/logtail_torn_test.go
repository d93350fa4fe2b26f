package state

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4/y"
)

// A kill during Badger's copy of a batch into the value log leaves the
// batch's first bytes unwritten and its body after them (Go's memmove
// stores a copy's head last). Nothing points at that batch: it is a torn
// tail, not damage, and a start must neither report nor copy it. The same
// bytes where a key points are damage.
func TestHeadlessTornWriteIsNotDamage(t *testing.T) {
	dir := t.TempDir()
	writeClosed(t, dir, 4, 2000)
	vlogs, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if len(vlogs) != 1 {
		t.Fatalf("value-log files: %v", vlogs)
	}
	data, err := os.ReadFile(vlogs[0])
	if err != nil {
		t.Fatal(err)
	}
	// The torn batch: the file's entries written again after its end,
	// their first 8 bytes left as zeros, then zeros (as a preallocated
	// file has).
	good := len(data)
	torn := append(append([]byte(nil), data[:good]...), data[vlogHeaderLen:good]...)
	clear(torn[good : good+8])
	torn = append(torn, make([]byte, 4096)...)
	if bad, suspect := damagedLog(torn); !suspect || bad != good {
		t.Fatalf("the torn batch does not look like damage by bytes alone (bad %d, good %d)", bad, good)
	}
	if bad, damaged := logTailDamage(dir, vlogs[0], torn, true); damaged {
		t.Fatalf("an unreferenced torn batch at %d is called damage", bad)
	}
	// In a file that is not the newest, it would be damage.
	if _, damaged := logTailDamage(dir, vlogs[0], torn, false); !damaged {
		t.Fatal("a bad entry with data after it in an old value-log file is not damage")
	}
	if err := os.WriteFile(vlogs[0], torn, 0o600); err != nil {
		t.Fatal(err)
	}
	if saved, err := preserveLogTails(dir); err != nil || len(saved) != 0 {
		t.Fatalf("torn tail copied aside as damage: %q, %v", saved, err)
	}
	s, err := Open(dir, Options{Sync: SyncNone})
	if err != nil {
		t.Fatal(err)
	}
	batches, err := s.ScanTable(1, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	rows := int64(0)
	for _, b := range batches {
		rows += b.NumRows()
		b.Release()
	}
	if rows != 8000 {
		t.Fatalf("%d rows after a torn tail, want 8000", rows)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The same headless bytes over entries that keys point at: damage.
	vlogs, _ = filepath.Glob(filepath.Join(dir, "*.vlog"))
	first := vlogs[0]
	data, _ = os.ReadFile(first)
	clear(data[vlogHeaderLen : vlogHeaderLen+8])
	if _, damaged := logTailDamage(dir, first, data, true); !damaged {
		t.Fatal("a headless entry that keys point at is not damage")
	}
}

// In a write-ahead log a torn entry is the last one; a good entry after a
// bad one was acknowledged and is damage.
func TestWriteAheadLogTornVersusDamaged(t *testing.T) {
	var log []byte
	log = append(log, make([]byte, vlogHeaderLen)...)
	entry := func(key, value string) []byte {
		return encodeTestEntry([]byte(key), []byte(value))
	}
	log = append(log, entry("k1", "v1")...)
	second := len(log)
	log = append(log, entry("k2", string(make([]byte, 600)))...)
	third := len(log)
	log = append(log, entry("k3", "v3")...)
	log = append(log, make([]byte, 1024)...)

	torn := append([]byte(nil), log[:third]...)
	clear(torn[second : second+8])
	torn = append(torn, make([]byte, 1024)...)
	if _, damaged := logTailDamage("", "00001.mem", torn, true); damaged {
		t.Fatal("a headless last entry is called damage")
	}
	mid := append([]byte(nil), log...)
	clear(mid[second : second+8])
	if _, damaged := logTailDamage("", "00001.mem", mid, true); !damaged {
		t.Fatal("a bad entry followed by a good one is not damage")
	}
}

// encodeTestEntry encodes one log entry as Badger writes it (see
// walkLogEntries).
func encodeTestEntry(key, value []byte) []byte {
	e := []byte{0, 0}
	e = binary.AppendUvarint(e, uint64(len(key)))
	e = binary.AppendUvarint(e, uint64(len(value)))
	e = binary.AppendUvarint(e, 0)
	e = append(append(e, key...), value...)
	return binary.BigEndian.AppendUint32(e, crc32.Checksum(e, y.CastagnoliCrcTable))
}
