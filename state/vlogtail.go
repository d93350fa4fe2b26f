package state

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
)

// When Badger opens a data directory for writing, it reads the newest
// value-log file up to its first entry that fails its CRC and truncates the
// file there: that is how it drops the torn tail of a write cut short by a
// crash. But a damaged entry in the middle of the file looks the same, and
// then the truncation throws away every good entry after it, for ever.
// So before Badger opens the directory, preserveVlogTail finds the first
// bad entry of that file itself; if any non-zero byte follows it (a torn
// tail is followed by nothing, or zeros), it copies the whole file aside as
// <name>.damaged-<time> and says so in the log. Badger then truncates as
// always; the reads of values that were after the damage fail with XX001,
// and the copy keeps them for whoever repairs the directory. (After a power
// loss a torn tail may be followed by data that never was acknowledged;
// the copy is then just a spare.)

// vlogHeaderLen is the size of a value-log file's header (Badger: key ID
// and IV for encryption, 8 + 12 bytes).
const vlogHeaderLen = 20

// preserveVlogTail copies the newest value-log file of dir aside when it
// is damaged before its end; it returns the copy's name, or "".
func preserveVlogTail(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	if err != nil || len(names) == 0 {
		return "", err
	}
	sort.Strings(names) // zero-padded numbers: the newest is last
	last := names[len(names)-1]
	mf, err := z.OpenMmapFile(last, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer func() { _ = mf.Close(-1) }()
	data := mf.Data
	bad := firstBadVlogEntry(data)
	if bad >= len(data) || allZero(data[bad:]) {
		return "", nil
	}
	saved := fmt.Sprintf("%s.damaged-%d", last, time.Now().Unix())
	if err := os.WriteFile(saved, data, 0o600); err != nil {
		return "", err
	}
	log.Printf("DATA CORRUPTION: value-log file %s has a damaged entry at offset %d with %d bytes after it; Badger will cut the file there, so a copy of it is kept as %s",
		filepath.Base(last), bad, len(data)-bad, filepath.Base(saved))
	return saved, nil
}

// firstBadVlogEntry is the offset of the first entry that does not parse
// or fails its CRC (len(data) when all do). An entry is: meta, user meta,
// uvarint key length, value length and expiry, key, value, then a
// big-endian CRC-32C of all that.
func firstBadVlogEntry(data []byte) int {
	off := vlogHeaderLen
	for off < len(data) {
		p := off + 2
		if p > len(data) {
			return off
		}
		var lens [3]uint64
		for i := range lens {
			v, n := binary.Uvarint(data[min(p, len(data)):])
			if n <= 0 {
				return off
			}
			lens[i], p = v, p+n
		}
		klen, vlen := lens[0], lens[1]
		if klen == 0 || klen > 1<<16 || vlen > uint64(len(data)) {
			return off
		}
		end := p + int(klen) + int(vlen)
		if end+crc32.Size > len(data) {
			return off
		}
		if crc32.Checksum(data[off:end], y.CastagnoliCrcTable) != binary.BigEndian.Uint32(data[end:]) {
			return off
		}
		off = end + crc32.Size
	}
	return len(data)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

